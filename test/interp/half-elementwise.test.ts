// The fast paths the deployed float16 and quantized models take besides their products give the
// general loops' bits: float16 / bfloat16 unary ops through a table of all 2^16 values, float16
// arithmetic and float32 arithmetic over per-channel broadcasts on WebAssembly, float32 Relu,
// Cast between float32, float16, bfloat16 and int32, and float16 / bfloat16 MaxPool through
// float32, on inputs holding NaN (both signs, payloads), ±Inf, −0 and subnormals.

import { describe, expect, it } from "vitest";
import type { RTensor } from "../../src/interp/types.js";
import { DataType, fastAndGeneral, type OneNodeSpec } from "../helpers/interp.js";

const HALVES = [
  ["float16", DataType.FLOAT16],
  ["bfloat16", DataType.BFLOAT16],
] as const;

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Random bit patterns: every kind of value (NaN, ±Inf, ±0, subnormals) appears. */
function halfBits(dtype: number, shape: number[], seed: number): RTensor {
  const n = shape.reduce((a, b) => a * b, 1);
  const next = lcg(seed);
  const data = new Uint16Array(n);
  const special =
    dtype === DataType.FLOAT16
      ? [0x7e00, 0xfe00, 0x7c01, 0xfd55, 0x7c00, 0xfc00, 0x8000, 0, 0x0001, 0x83ff]
      : [0x7fc0, 0xffc0, 0x7f81, 0xffaa, 0x7f80, 0xff80, 0x8000, 0, 0x0001, 0x807f];
  for (let i = 0; i < n; i++)
    data[i] =
      next() < 0.05
        ? special[Math.floor(next() * special.length)]!
        : dtype === DataType.FLOAT16
          ? Math.floor(next() * 65536) & 0xbfff // exponents up to 15: few overflows
          : (0x3000 + Math.floor(next() * 0x1800)) | (next() < 0.5 ? 0x8000 : 0);
  return { dtype, shape, data };
}

/**
 * float32 values with the special ones. A NaN with its sign bit set only with `negNaN`: which of
 * two NaN operands an addition passes on is the choice of the engine's compiled code (both the
 * JavaScript loop's and WebAssembly's), so arithmetic is compared on one NaN (generated NaNs and
 * a NaN meeting a number are the same on both).
 */
function floats(shape: number[], seed: number, negNaN = false): RTensor {
  const n = shape.reduce((a, b) => a * b, 1);
  const next = lcg(seed);
  const data = new Float32Array(n);
  const special = [NaN, negNaN ? -NaN : NaN, Infinity, -Infinity, -0, 0, 1e-40, -3e-39, 65520, 1e6];
  for (let i = 0; i < n; i++)
    data[i] = next() < 0.05 ? special[Math.floor(next() * special.length)]! : (next() - 0.5) * 8;
  return { dtype: DataType.FLOAT, shape, data };
}

function expectSameBits(spec: OneNodeSpec): void {
  const [got, want] = fastAndGeneral(spec);
  expect(got.dtype).toBe(want.dtype);
  expect(got.shape).toEqual(want.shape);
  const view = (t: RTensor) =>
    t.data instanceof Float32Array || t.data instanceof Int32Array
      ? new Uint32Array(t.data.buffer, t.data.byteOffset, t.data.length)
      : (t.data as Uint16Array);
  const [g, w] = [view(got), view(want)];
  expect(g.length).toBe(w.length);
  let bad = -1;
  for (let i = 0; i < w.length && bad < 0; i++) if (g[i] !== w[i]) bad = i;
  if (bad >= 0) expect([bad, g[bad]!.toString(16)]).toEqual([bad, w[bad]!.toString(16)]);
}

const BIG = [1, 4, 256, 300]; // 307,200 elements: past the table's and the windows' thresholds

describe.each(HALVES)("%s elementwise fast paths", (_name, dt) => {
  for (const op of ["Relu", "Sigmoid", "Abs", "Neg", "Exp", "Sqrt", "Tanh", "Softplus"])
    it(`${op} through the table of all values`, () => {
      expectSameBits({ op, inputs: [halfBits(dt, BIG, 1)] });
    });

  it("LeakyRelu (attributes) through a table of its own", () => {
    expectSameBits({ op: "LeakyRelu", inputs: [halfBits(dt, BIG, 2)], attrs: { alpha: 0.3 } });
  });

  it("Add, Sub, Mul, Div: full, one value, a row, per channel", () => {
    for (const op of ["Add", "Sub", "Mul", "Div"])
      for (const other of [BIG, [1], [300], [1, 4, 1, 1], [4, 1, 1]])
        expectSameBits({ op, inputs: [halfBits(dt, BIG, 3), halfBits(dt, other, 4)] });
  });

  it("MaxPool 2x2 / 3x3 through float32", () => {
    for (const attrs of [
      { kernel_shape: [2, 2], strides: [2, 2], ceil_mode: 1 },
      { kernel_shape: [3, 3], pads: [1, 1, 1, 1] },
    ])
      expectSameBits({ op: "MaxPool", inputs: [halfBits(dt, [1, 3, 41, 37], 5)], attrs });
  });

  it("Cast to and from float32", () => {
    expectSameBits({ op: "Cast", inputs: [halfBits(dt, BIG, 6)], attrs: { to: DataType.FLOAT } });
    expectSameBits({ op: "Cast", inputs: [floats(BIG, 7, true)], attrs: { to: dt } });
  });
});

describe("float32 → float16 rounding four at a time", () => {
  it("gives numberToFloat16Bits's bits around every boundary (subnormal, normal, overflow, NaN)", () => {
    // Every float32 pattern within 2^12 of each boundary, both signs: the smallest subnormal's
    // half, the subnormal/normal edge, the largest finite float16 and the overflow to Inf, Inf
    // and the NaNs; lengths not a multiple of four leave a scalar tail.
    const bases = [
      0x33000000, 0x387fe000, 0x38800000, 0x477fe000, 0x477ff000, 0x7f800000, 0x7fc00000,
    ];
    const u = new Uint32Array(bases.length * 8192 * 2 + 3);
    let k = 0;
    for (const sign of [0, 0x80000000])
      for (const b of bases) for (let d = -4096; d < 4096; d++) u[k++] = ((b + d) | sign) >>> 0;
    const data = new Float32Array(u.buffer);
    expectSameBits({
      op: "Cast",
      inputs: [{ dtype: DataType.FLOAT, shape: [data.length], data }],
      attrs: { to: DataType.FLOAT16 },
    });
  });
});

describe("float32 fast paths of the quantized model", () => {
  it("Relu on WebAssembly", () => {
    expectSameBits({ op: "Relu", inputs: [floats(BIG, 8, true)] });
  });

  it("Add and Mul over a per-channel broadcast, long rows", () => {
    for (const op of ["Add", "Sub", "Mul", "Div"]) {
      expectSameBits({ op, inputs: [floats([1, 5, 128, 130], 9), floats([1, 5, 1, 1], 10)] });
      expectSameBits({ op, inputs: [floats([5, 1, 1], 11), floats([2, 5, 70, 90], 12)] });
    }
  });

  it("MaxPool 2-D with a signalling NaN (quieted, as the general loop's float64 values do)", () => {
    const x = floats([1, 2, 9, 10], 15);
    new Uint32Array((x.data as Float32Array).buffer).set([0x7f800001, 0xffa00000], 30);
    for (const attrs of [
      { kernel_shape: [2, 2], strides: [2, 2], ceil_mode: 1 },
      { kernel_shape: [3, 3], pads: [1, 1, 1, 1], dilations: [2, 1] },
    ])
      expectSameBits({ op: "MaxPool", inputs: [x], attrs });
  });

  it("Cast int32 → float32 and float32 → int32", () => {
    const n = 300_000;
    const next = lcg(13);
    const data = new Int32Array(n);
    for (let i = 0; i < n; i++) data[i] = Math.floor((next() - 0.5) * 2 ** 32);
    data[0] = 2 ** 31 - 1;
    data[1] = -(2 ** 31);
    data[2] = 16777217; // rounds to float32
    expectSameBits({
      op: "Cast",
      inputs: [{ dtype: DataType.INT32, shape: [n], data }],
      attrs: { to: DataType.FLOAT },
    });
  });
});

describe("float32 linear and cubic Resize over the last two axes on WebAssembly", () => {
  const f = (v: number[]): RTensor => ({
    dtype: DataType.FLOAT,
    shape: [v.length],
    data: Float32Array.from(v),
  });
  const i = (v: number[]): RTensor => ({
    dtype: DataType.INT64,
    shape: [v.length],
    data: BigInt64Array.from(v.map(BigInt)),
  });
  for (const mode of ["linear", "cubic"])
    for (const coord of ["half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"])
      it(`${mode}, ${coord}: up, down, one axis kept`, () => {
        const x = floats([2, 3, 9, 13], 14);
        for (const sizes of [
          [2, 3, 18, 26],
          [2, 3, 5, 7],
          [2, 3, 9, 20],
          [2, 3, 16, 13],
          [2, 3, 9, 13],
        ])
          expectSameBits({
            op: "Resize",
            inputs: [x, f([]), f([]), i(sizes)],
            attrs: { mode, coordinate_transformation_mode: coord },
          });
        expectSameBits({
          op: "Resize",
          inputs: [x, f([1, 1, 2.5, 0.75])],
          names: ["x0", "", "x2"],
          attrs: { mode, coordinate_transformation_mode: coord, exclude_outside: 1 },
        });
      });
});
