// Kernels that overwrite a donated input (ctx.donated: a large tensor a kernel of this run made,
// read by no later node) give the same bits as the general loops, and nothing else is
// overwritten: a value read twice, a graph input, an initializer and a graph output keep their
// values, across runs.

import { afterEach, describe, expect, it } from "vitest";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { run } from "../../src/interp/executor.js";
import { setGemmDisabled } from "../../src/interp/kernels/wasm/gemm.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType } from "../helpers/interp.js";

const F = DataType.FLOAT;
const U8 = DataType.UINT8;
const SHAPE = [1, 16, 256, 256]; // 2^20 elements: in a WebAssembly memory of their own

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}
function floats(n: number, seed: number, specials = true): Float32Array {
  const next = lcg(seed);
  const d = new Float32Array(n);
  for (let i = 0; i < n; i++) d[i] = (next() - 0.5) * 4;
  if (specials) d.set([NaN, Infinity, -Infinity, -0, 0, 1e-42], 1000);
  return d;
}
const bitsOf = (t: RTensor) =>
  Array.from(new Uint32Array(t.data.buffer, t.data.byteOffset, t.data.length));

afterEach(() => setGemmDisabled(false));

function both(m: ReturnType<typeof model>, feeds: Record<string, RTensor>, names: string[]) {
  const fast = run(m, feeds);
  setGemmDisabled(true);
  let slow: Record<string, RTensor>;
  try {
    slow = run(m, feeds) as Record<string, RTensor>;
  } finally {
    setGemmDisabled(false);
  }
  for (const n of names) {
    const [f, s] = [fast[n] as RTensor, slow[n]!];
    expect(f.shape).toEqual(s.shape);
    if (f.data instanceof Float32Array || f.data instanceof Int32Array)
      expect(bitsOf(f)).toEqual(bitsOf(s));
    else expect(Array.from(f.data as Uint8Array)).toEqual(Array.from(s.data as Uint8Array));
  }
  return fast;
}

describe("donated inputs", () => {
  it("Mul by one value, Add per channel, Sub and Div with the small operand first, Relu: in place", () => {
    const init = (name: string, shape: number[], v: Float32Array) => Tensor.from(F, shape, v, name);
    const g = graph({
      nodes: [
        node("Conv", ["x", "w"], ["c"]),
        node("Mul", ["c", "s"], ["m"]),
        node("Add", ["m", "b"], ["a"]),
        node("Sub", ["b", "a"], ["d"]),
        node("Div", ["s", "d"], ["q"]),
        node("Relu", ["q"], ["r"]),
        // Read twice: neither Relu nor Add may overwrite c2.
        node("Conv", ["x", "w"], ["c2"]),
        node("Relu", ["c2"], ["u"]),
        node("Add", ["c2", "u"], ["v"]),
        // A graph input and an initializer as the large operand: never overwritten.
        node("Relu", ["x"], ["xr"]),
        node("Mul", ["big", "s"], ["bm"]),
      ],
      inputs: [valueInfo("x", F, SHAPE)],
      outputs: ["r", "u", "v", "xr", "bm"].map((n) => valueInfo(n)),
      initializers: [
        init("w", [16, 16, 1, 1], floats(256, 2, false)),
        init("s", [], Float32Array.of(0.37)),
        init("b", [1, 16, 1, 1], floats(16, 3, false)),
        init("big", SHAPE, floats(1 << 20, 4)),
      ],
    });
    const m = model(g, 18);
    const xData = floats(1 << 20, 1);
    const before = Array.from(xData);
    const x: RTensor = { dtype: F, shape: SHAPE, data: xData };
    const first = both(m, { x }, ["r", "u", "v", "xr", "bm"]);
    expect(Array.from(xData)).toEqual(before);
    // The initializer and the outputs of the first run are untouched by a second.
    const keep = bitsOf(first.bm as RTensor);
    const again = run(m, { x });
    expect(bitsOf(again.bm as RTensor)).toEqual(keep);
    expect(bitsOf(first.bm as RTensor)).toEqual(keep);
  });

  it("ConvInteger → Cast → Mul → Add → Relu → DynamicQuantizeLinear, as the quantized IS-Net runs", () => {
    const next = lcg(5);
    const x = new Uint8Array(1 << 20).map(() => next() * 256);
    const w = new Uint8Array(16 * 16).map(() => next() * 256);
    const g = graph({
      nodes: [
        node("ConvInteger", ["x", "w", "xz", "wz"], ["ci"]),
        node("Cast", ["ci"], ["cf"], { to: F }),
        node("Mul", ["cf", "s"], ["m"]),
        node("Add", ["m", "b"], ["a"]),
        node("Relu", ["a"], ["r"]),
        node("DynamicQuantizeLinear", ["r"], ["q", "qs", "qz"]),
      ],
      inputs: [valueInfo("x", U8, SHAPE)],
      outputs: ["q", "qs", "qz"].map((n) => valueInfo(n)),
      initializers: [
        Tensor.from(U8, [16, 16, 1, 1], w, "w"),
        Tensor.from(U8, [], [128], "xz"),
        Tensor.from(U8, [], [131], "wz"),
        Tensor.from(F, [], [1.3e-5], "s"),
        Tensor.from(F, [1, 16, 1, 1], floats(16, 6, false), "b"),
      ],
    });
    both(model(g, 18), { x: { dtype: U8, shape: SHAPE, data: x } }, ["q", "qs", "qz"]);
  });
});
