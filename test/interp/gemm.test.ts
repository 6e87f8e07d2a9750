// The float32 Conv, MatMul and Gemm on the WebAssembly product (kernels/gemm-ops.ts, wasm/gemm.ts)
// give the TypeScript loops' results bit for bit (same float64 sums, in the same order, rounded
// once), on one thread or several; packed weights count against the memory budget.

import { afterEach, describe, expect, it } from "vitest";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { run } from "../../src/interp/executor.js";
import { MemoryBudget } from "../../src/interp/budget.js";
import { gemmArena, setGemmDisabled } from "../../src/interp/kernels/wasm/gemm.js";
import { gemmHelpersReady, setGemmThreads } from "../../src/interp/kernels/wasm/gemm-threads.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType, fastAndGeneral, runOne, type OneNodeSpec } from "../helpers/interp.js";

function rand(shape: number[], seed: number, special = false): RTensor {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    data[i] = (s / 2 ** 32) * 4 - 2;
  }
  if (special && n > 3) {
    data[1] = Infinity;
    data[n - 2] = NaN;
  }
  return { dtype: DataType.FLOAT, shape, data };
}

function both(spec: OneNodeSpec): [Float32Array, Float32Array] {
  const [got, want] = fastAndGeneral(spec);
  expect(got.shape).toEqual(want.shape);
  return [got.data as Float32Array, want.data as Float32Array];
}

function expectSame(spec: OneNodeSpec): void {
  const [got, want] = both(spec);
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++)
    if (!Object.is(got[i], want[i])) expect([i, got[i]]).toEqual([i, want[i]]);
}

afterEach(() => {
  setGemmDisabled(false);
  setGemmThreads(undefined, 1 << 21);
});

describe("the WebAssembly matrix product", () => {
  it("is available here (Node has WebAssembly SIMD)", () => {
    expect(gemmArena()).toBeDefined();
  });

  const convs: [string, number[], number[], Record<string, number | number[]>, boolean][] = [
    ["3x3 pad 1", [1, 5, 9, 7], [7, 5, 3, 3], { pads: [1, 1, 1, 1] }, true],
    ["7x7 stride 2", [2, 3, 17, 15], [8, 3, 7, 7], { strides: [2, 2], pads: [3, 3, 3, 3] }, false],
    ["1x1", [1, 16, 6, 5], [13, 16, 1, 1], {}, true],
    ["dilated", [1, 4, 11, 11], [6, 4, 3, 3], { dilations: [2, 2], pads: [2, 1, 0, 2] }, true],
    ["grouped", [1, 8, 7, 7], [12, 2, 3, 3], { group: 4, pads: [1, 1, 1, 1] }, true],
    ["1-D", [3, 6, 20], [5, 6, 4], { strides: [3] }, true],
    ["depthwise 7x7", [1, 6, 12, 10], [6, 1, 7, 7], { group: 6, pads: [3, 3, 3, 3] }, true],
    [
      "depthwise ×2, stride 2",
      [2, 3, 11, 9],
      [6, 1, 5, 5],
      { group: 3, strides: [2, 2], pads: [2, 1, 2, 0] },
      false,
    ],
    [
      "depthwise dilated",
      [1, 4, 9, 9],
      [4, 1, 3, 3],
      { group: 4, dilations: [2, 3], pads: [1, 0, 2, 3] },
      true,
    ],
  ];
  for (const [name, xs, ws, attrs, withBias] of convs)
    it(`Conv ${name}: identical to the TypeScript loop`, () => {
      const inputs = [rand(xs, 1), rand(ws, 2, true)];
      if (withBias) inputs.push(rand([ws[0]!], 3));
      expectSame({ op: "Conv", inputs, attrs });
    });

  it("MaxPool 2-D: identical to the general loop (padding, dilation, ceil mode, NaN)", () => {
    for (const attrs of [
      { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] },
      { kernel_shape: [2, 3], dilations: [2, 1], pads: [0, 1, 2, 0], ceil_mode: 1 },
      { kernel_shape: [5, 5], auto_pad: "SAME_UPPER", strides: [3, 2] },
    ])
      expectSame({ op: "MaxPool", inputs: [rand([2, 3, 11, 9], 15, true)], attrs });
  });

  it("MatMul: batched, broadcast and 1-D operands", () => {
    for (const [a, b] of [
      [
        [5, 7],
        [7, 9],
      ],
      [
        [2, 3, 13, 8],
        [8, 11],
      ],
      [
        [3, 1, 6, 5],
        [4, 5, 7],
      ],
      [[9], [9, 6]],
      [[4, 9], [9]],
      [
        [1, 1],
        [1, 1],
      ],
    ] as [number[], number[]][])
      expectSame({ op: "MatMul", inputs: [rand(a, 4, true), rand(b, 5)] });
  });

  it("Gemm: transposes, alpha, beta and C as before", () => {
    for (const [transA, transB] of [
      [0, 0],
      [1, 0],
      [0, 1],
      [1, 1],
    ])
      expectSame({
        op: "Gemm",
        inputs: [
          rand(transA ? [6, 10] : [10, 6], 6),
          rand(transB ? [7, 6] : [6, 7], 7),
          rand([7], 8),
        ],
        attrs: { transA, transB, alpha: 0.7, beta: 1.3 },
      });
  });

  it("gives the same results on one thread and on several", async () => {
    setGemmThreads(2, 0);
    expect(await gemmHelpersReady(gemmArena()!)).toBe(true);
    const spec: OneNodeSpec = {
      op: "Conv",
      inputs: [rand([1, 6, 30, 30], 9), rand([10, 6, 3, 3], 10), rand([10], 11)],
      attrs: { pads: [1, 1, 1, 1] },
    };
    const threaded = runOne(spec)[0]!.data as Float32Array;
    setGemmThreads(1);
    const alone = runOne(spec)[0]!.data as Float32Array;
    expect(Buffer.from(threaded.buffer, threaded.byteOffset, threaded.byteLength)).toEqual(
      Buffer.from(alone.buffer, alone.byteOffset, alone.byteLength),
    );
    const [got, want] = both(spec);
    expect(Array.from(got)).toEqual(Array.from(want));
    // Rows in several cache-sized chunks (K = 1200: 24 rows a chunk), on two threads and on one.
    setGemmThreads(2, 0);
    expectSame({ op: "MatMul", inputs: [rand([130, 1200], 16), rand([1200, 37], 17)] });
    setGemmThreads(1);
    expectSame({ op: "MatMul", inputs: [rand([130, 1200], 16), rand([1200, 37], 17)] });
  });

  it("packs constant weights once per run and counts them against --max-memory", () => {
    const w = rand([64, 32, 3, 3], 12);
    const init = Tensor.from(DataType.FLOAT, [64, 32, 3, 3], w.data as Float32Array, "w");
    const g = graph({
      nodes: [
        node("Conv", ["x", "w"], ["y"], { pads: [1, 1, 1, 1] }),
        node("Conv", ["y", "w2"], ["z"], { pads: [1, 1, 1, 1] }),
      ],
      inputs: [valueInfo("x", DataType.FLOAT, [1, 32, 8, 8])],
      outputs: [valueInfo("z")],
      initializers: [
        init,
        Tensor.from(
          DataType.FLOAT,
          [32, 64, 3, 3],
          rand([32, 64, 3, 3], 13).data as Float32Array,
          "w2",
        ),
      ],
    });
    const m = model(g, 18);
    const x = rand([1, 32, 8, 8], 14);
    const a = run(m, { x }).z!.data as Float32Array;
    const b = run(m, { x }).z!.data as Float32Array;
    expect(Array.from(a)).toEqual(Array.from(b));
    // The weights (2 × 72 KiB as float32) packed as float64 take 288 KiB more, held to the end.
    expect(() => run(m, { x }, { maxMemory: 300_000 })).toThrow(/--max-memory/);
    const budget = new MemoryBudget(1000);
    budget.pin(600, "packed weights");
    const mark = budget.enter();
    budget.leave(mark);
    expect(budget.used).toBe(600);
    expect(() => budget.charge(500)).toThrow(/--max-memory/);
  });
});
