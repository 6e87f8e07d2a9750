// HardSigmoid and HardSwish in the element type's steps (docs/semantics.md, "Other kernels"):
// float32 as fl(fl(alpha·x) + beta), clamped, HardSwish times x, which is what onnxruntime (x86-64)
// and ONNX's reference evaluator compute. Checked bit for bit against onnxruntime-node on random
// values and on the edges (NaN with payload and sign, ±Inf, −0, subnormals, the clamp's ends), on
// the WebAssembly path and on the TypeScript loop.

import { describe, expect, it } from "vitest";
import type { RTensor } from "../../src/interp/types.js";
import { DataType, fastAndGeneral, oneNodeModel, type OneNodeSpec } from "../helpers/interp.js";
import { runOrt } from "../helpers/ort.js";

const EDGES = [
  0x7fc00000, 0xffc00000, 0x7fa00001, 0xffa00001, 0x7f800000, 0xff800000, 0x80000000, 0, 1,
  0x80000001, 0x007fffff, 0x00800000, 0x40400000, 0xc0400000, 0x403fffff, 0xc03fffff, 0x3f800000,
  0xbf800000, 0x40200000, 0xc0200000,
];

/** The edges, then n random float32 bit patterns of moderate size (|x| < 8), then random bits. */
function values(n: number): RTensor {
  const data = new Float32Array(EDGES.length + 2 * n);
  const bits = new Uint32Array(data.buffer);
  bits.set(EDGES);
  let s = 12345;
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0);
  for (let i = 0; i < n; i++) data[EDGES.length + i] = (next() / 2 ** 32) * 16 - 8;
  for (let i = 0; i < n; i++) bits[EDGES.length + n + i] = next();
  return { dtype: DataType.FLOAT, shape: [data.length], data };
}

const bitsOf = (t: RTensor) => [...new Uint32Array((t.data as Float32Array).slice().buffer)];

describe("HardSigmoid and HardSwish in float32 steps, as onnxruntime", () => {
  const x = values(20000);
  const cases: [string, OneNodeSpec][] = [
    ["HardSigmoid (default alpha 0.2, beta 0.5)", { op: "HardSigmoid", inputs: [x] }],
    [
      "HardSigmoid alpha 1/6, beta 0.5",
      { op: "HardSigmoid", inputs: [x], attrs: { alpha: 1 / 6, beta: 0.5 } },
    ],
    [
      "HardSigmoid alpha 0.3, beta -0.25",
      { op: "HardSigmoid", inputs: [x], attrs: { alpha: 0.3, beta: -0.25 } },
    ],
    ["HardSwish", { op: "HardSwish", inputs: [x] }],
  ];
  it.each(cases)("%s: onnxruntime's bits on both paths", async (_, spec) => {
    const [fast, general] = fastAndGeneral(spec);
    const theirs = (await runOrt(oneNodeModel(spec), { x0: x })).y0!;
    const want = bitsOf(theirs);
    expect(bitsOf(general)).toEqual(want);
    expect(bitsOf(fast)).toEqual(want);
  });

  it("double computes in float64 steps, with HardSwish's alpha double's 1/6", () => {
    const v = [-4, -3, -0.1, 0, 0.7, 2.9999999, 3, 5];
    const t: RTensor = { dtype: DataType.DOUBLE, shape: [v.length], data: Float64Array.from(v) };
    const [hs] = fastAndGeneral({ op: "HardSwish", inputs: [t] });
    const a = 1 / 6;
    expect([...(hs.data as Float64Array)]).toEqual(
      v.map((u) => u * Math.max(0, Math.min(1, a * u + 0.5))),
    );
  });
});
