// Faster paths that must give the general loops' results bit for bit: ConvTranspose with disjoint
// taps on the WebAssembly product, float Add/Sub/Mul/Div over any broadcast, Erf on float32.

import { describe, expect, it } from "vitest";
import { erf, erfFloat32 } from "../../src/interp/kernels/erf.js";
import { erfWasm } from "../../src/interp/kernels/ew-wasm.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType, fastAndGeneral, runOne, type OneNodeSpec } from "../helpers/interp.js";

function rand(shape: number[], seed: number): RTensor {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    data[i] = (s / 2 ** 32) * 4 - 2;
  }
  if (n > 4) data[2] = 0;
  return { dtype: DataType.FLOAT, shape, data };
}

function bits(t: RTensor): number[] {
  return [...new Uint32Array((t.data as Float32Array).slice().buffer)];
}

describe("ConvTranspose with disjoint taps on the product", () => {
  it("matches the general loop bit for bit (stride = kernel, with and without bias, Inf weight)", () => {
    const cases: [number[], number[], Record<string, number[]>, boolean][] = [
      [[1, 8, 5, 6], [8, 4, 2, 2], { strides: [2, 2] }, true],
      [[2, 3, 4, 4], [3, 2, 2, 3], { strides: [3, 3], pads: [1, 0, 0, 1] }, false],
      [[1, 5, 7], [5, 3, 2], { strides: [2], output_padding: [1] }, true],
      [[2, 3, 3, 4], [3, 2, 2, 2], { strides: [3, 3] }, true], // outputs no tap reaches
    ];
    for (const [xs, ws, attrs, withBias] of cases) {
      const inputs = [rand(xs, 1), rand(ws, 2)];
      if (withBias) {
        const bias = rand([ws[1]!], 3);
        (bias.data as Float32Array)[0] = -0; // 0 + -0 is +0 where no tap reaches
        inputs.push(bias);
      }
      const [got, want] = fastAndGeneral({ op: "ConvTranspose", inputs, attrs });
      expect(got.shape).toEqual(want.shape);
      expect(bits(got)).toEqual(bits(want));
    }
    const w = rand([2, 2, 2, 2], 5);
    (w.data as Float32Array)[3] = Infinity;
    const x = rand([1, 2, 3, 3], 6);
    const y = runOne({ op: "ConvTranspose", inputs: [x, w], attrs: { strides: [2, 2] } })[0]!;
    expect(Number.isNaN((y.data as Float32Array)[0])).toBe(false);
  });
});

describe("broadcast arithmetic in blocks", () => {
  it("matches elementwise evaluation for [C,1,1], outer and middle broadcasts", () => {
    const shapes: [number[], number[]][] = [
      [
        [2, 3, 4, 5],
        [3, 1, 1],
      ],
      [
        [3, 1],
        [1, 4],
      ],
      [
        [2, 1, 4],
        [3, 1],
      ],
      [
        [1, 3, 1, 5],
        [2, 1, 4, 1],
      ],
      [
        [4, 1, 1],
        [2, 4, 3, 3],
      ],
    ];
    const ops: [string, (a: number, b: number) => number][] = [
      ["Add", (a, b) => a + b],
      ["Sub", (a, b) => a - b],
      ["Mul", (a, b) => a * b],
      ["Div", (a, b) => a / b],
    ];
    for (const [sa, sb] of shapes)
      for (const [op, f] of ops) {
        const a = rand(sa, 7);
        const b = rand(sb, 8);
        const y = runOne({ op, inputs: [a, b] })[0]!;
        const r = Math.max(sa.length, sb.length);
        const pa = [...new Array<number>(r - sa.length).fill(1), ...sa];
        const pb = [...new Array<number>(r - sb.length).fill(1), ...sb];
        const shape = pa.map((d, i) => Math.max(d, pb[i]!));
        expect(y.shape).toEqual(shape);
        const n = shape.reduce((p, d) => p * d, 1);
        const want = new Float32Array(n);
        const idx = (s: number[], c: number[]) =>
          s.reduce((acc, d, i) => acc * d + (d === 1 ? 0 : c[i]!), 0);
        for (let o = 0; o < n; o++) {
          const c: number[] = [];
          let rest = o;
          for (let i = r - 1; i >= 0; i--) {
            c[i] = rest % shape[i]!;
            rest = Math.floor(rest / shape[i]!);
          }
          want[o] = f((a.data as Float32Array)[idx(pa, c)]!, (b.data as Float32Array)[idx(pb, c)]!);
        }
        expect(bits(y)).toEqual([...new Uint32Array(want.buffer)]);
      }
  });
});

describe("float32 arithmetic in WebAssembly", () => {
  it("gives the JavaScript loop's bits: full, one value, repeated rows; Inf, NaN, -0, 0/0", () => {
    const shapes: [number[], number[]][] = [
      [
        [3, 50, 41],
        [3, 50, 41],
      ],
      [[3, 50, 41], []],
      [[], [3, 50, 41]],
      [[3, 50, 41], [41]],
      [
        [50, 41],
        [3, 50, 41],
      ],
      [
        [3, 50, 41],
        [1, 1, 41],
      ],
      [[7, 9000], [9000]], // a chunk of one row
    ];
    const special = (t: RTensor) => {
      const d = t.data as Float32Array;
      if (d.length > 8) [d[3], d[5], d[6], d[7]] = [Infinity, NaN, -0, 0];
      return t;
    };
    for (const [sa, sb] of shapes)
      for (const op of ["Add", "Sub", "Mul", "Div"]) {
        const inputs = [special(rand(sa, 11)), special(rand(sb, 12))];
        const [got, want] = fastAndGeneral({ op, inputs });
        expect(got.shape).toEqual(want.shape);
        expect(bits(got)).toEqual(bits(want));
      }
  });
});

describe("float32 HardSigmoid in WebAssembly", () => {
  it("gives the JavaScript loop's bits (odd length; Inf, NaN, -0, a beta of -0)", () => {
    const x = rand([5001], 31);
    const d = x.data as Float32Array;
    d.set([Infinity, -Infinity, NaN, -0, 0, 1e30, -1e-30], 100);
    for (const attrs of [{}, { alpha: 1 / 6, beta: 0.5 }, { alpha: 3, beta: -0 }]) {
      const [got, want] = fastAndGeneral({ op: "HardSigmoid", inputs: [x], attrs });
      expect(bits(got)).toEqual(bits(want));
    }
  });
});

describe("float32 LayerNormalization, Softmax, nearest Resize, BatchNormalization, activations and Concat without float64 copies", () => {
  const wide = (t: RTensor): RTensor => ({
    dtype: DataType.DOUBLE,
    shape: t.shape,
    data: Float64Array.from(t.data as Float32Array),
  });
  const rounded = (t: RTensor) =>
    t.data instanceof Float32Array
      ? bits(t)
      : [...new Uint32Array(Float32Array.from(t.data as Float64Array).buffer)];
  it("rounds the float64 path's results (the same operations), statistics too; nearest Resize", () => {
    const x = rand([2, 5, 24], 21);
    (x.data as Float32Array)[7] = -0;
    const cases: OneNodeSpec[] = [
      {
        op: "LayerNormalization",
        inputs: [x, rand([24], 22), rand([24], 23)],
        attrs: { axis: -1 },
      },
      { op: "LayerNormalization", inputs: [x, rand([5, 24], 24)], attrs: { axis: 1 } },
      { op: "Softmax", inputs: [x], attrs: { axis: -1 } },
      { op: "Softmax", inputs: [x], attrs: { axis: 1 } },
      { op: "LogSoftmax", inputs: [x], attrs: { axis: -1 } },
      { op: "Hardmax", inputs: [x], attrs: { axis: 0 } },
      ...[
        [1, 1, 2, 2],
        [1, 1.5, 0.6, 3],
        [1, 1, 1, 1],
      ].flatMap((sc) =>
        [
          { mode: "nearest" },
          { mode: "nearest", coordinate_transformation_mode: "half_pixel", nearest_mode: "ceil" },
          { mode: "nearest", coordinate_transformation_mode: "align_corners" },
        ].map((attrs) => ({
          op: "Resize",
          inputs: [
            { ...x, shape: [2, 5, 4, 6] },
            { dtype: DataType.FLOAT, shape: [0], data: new Float32Array(0) },
            { dtype: DataType.FLOAT, shape: [4], data: new Float32Array(sc) },
          ],
          attrs,
        })),
      ),
    ];
    // BatchNormalization (inference), the unary activations, Concat: with Inf, NaN and -0 too.
    const y = rand([2, 5, 24], 25);
    (y.data as Float32Array).set([Infinity, -Infinity, NaN, -0, 0, 1e30, -1e-30, 88.5, -104], 30);
    const positive = { ...rand([5], 26) };
    positive.data = (positive.data as Float32Array).map((v) => Math.abs(v) + 0.01);
    cases.push(
      {
        op: "BatchNormalization",
        inputs: [y, rand([5], 27), rand([5], 28), rand([5], 29), positive],
      },
      {
        op: "BatchNormalization",
        inputs: [
          { ...y, shape: [10, 12, 2] },
          ...[31, 32, 33].map((k) => rand([12], k)),
          {
            ...positive,
            shape: [12],
            data: new Float32Array(12).fill(0.25),
          },
        ],
        attrs: { epsilon: 0.001 },
      },
      ...["Relu", "Sigmoid", "Tanh", "Exp", "Sqrt"].map((op) => ({ op, inputs: [y] })),
      { op: "Concat", inputs: [x, y, x], attrs: { axis: 1 } },
      {
        op: "Concat",
        inputs: [
          { ...x, shape: [10, 24] },
          { ...y, shape: [10, 24] },
        ],
        attrs: { axis: 0 },
      },
      {
        op: "Concat",
        inputs: [
          { ...x, shape: [10, 24] },
          { ...y, shape: [10, 24] },
        ],
        attrs: { axis: 1 },
      },
    );
    for (const spec of cases) {
      const outs = spec.op === "LayerNormalization" ? 3 : 1;
      const got = runOne({ ...spec, outputs: outs });
      const inputs = spec.inputs.map((t, i) => (spec.op === "Resize" && i > 0 ? t : wide(t)));
      const want = runOne({ ...spec, inputs, outputs: outs });
      expect(got.length).toBe(want.length);
      got.forEach((g, i) => {
        expect(g.shape).toEqual(want[i]!.shape);
        expect(bits(g)).toEqual(rounded(want[i]!));
      });
    }
  });
});

describe("Erf on float32", () => {
  it("rounds like the float64 series on a sweep of inputs (bench/interp-erf-check.ts: all 2^32)", () => {
    const n = 1 << 16;
    const src = new Float32Array(n);
    for (let i = 0; i < n; i++) src[i] = -7 + (14 * i) / n;
    src[0] = -0;
    src[1] = NaN;
    src[2] = Infinity;
    src[3] = 1e-40;
    const out = new Float32Array(n);
    erfFloat32(src, out);
    for (let i = 0; i < n; i++) expect(Object.is(out[i], Math.fround(erf(src[i]!)))).toBe(true);
  });

  it("in WebAssembly gives erfFloat32's bits: every 4,099th float32 bit pattern, ±0, NaN, ±Inf, ±6", () => {
    const pats: number[] = [];
    for (let b = 0; b < 2 ** 32; b += 4099) pats.push(b);
    const src = new Float32Array(new Uint32Array(pats).buffer);
    src.set([0, -0, NaN, Infinity, -Infinity, 6, -6, Math.fround(5.99999), 1e-40, -1e-45]);
    const got = new Float32Array(src.length);
    expect(erfWasm(src, got)).toBe(true);
    const want = new Float32Array(src.length);
    erfFloat32(src, want);
    for (let i = 0; i < src.length; i++)
      if (!Object.is(got[i], want[i])) expect([src[i], got[i]]).toEqual([src[i], want[i]]);
  });
});
