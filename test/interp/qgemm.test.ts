// The integer product (kernels/qgemm-ops.ts, wasm/qgemm.wat) gives the reference kernels' int32
// results bit for bit: ConvInteger and MatMulInteger on int8 and uint8 operands with their
// extremes (sums of ±255·255 products, and sums past the int32 range, which wrap), scalar and
// per-channel zero points, padding, strides, dilations, groups, an odd summed length, on one
// thread and two; QLinearConv and QLinearMatMul (their integer sums requantized), also against
// onnxruntime; DynamicQuantizeLinear's quantization with NaN, ±Inf, −0 and subnormals.

import { afterEach, describe, expect, it } from "vitest";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { run } from "../../src/interp/executor.js";
import { gemmArena, setGemmDisabled } from "../../src/interp/kernels/wasm/gemm.js";
import { gemmHelpersReady, setGemmThreads } from "../../src/interp/kernels/wasm/gemm-threads.js";
import type { RTensor } from "../../src/interp/types.js";
import {
  DataType,
  fastAndGeneral,
  oneNodeModel,
  runOne,
  type OneNodeSpec,
} from "../helpers/interp.js";
import { runOrt } from "../helpers/ort.js";

function ints(dtype: number, shape: number[], seed: number, extremes = 0.1): RTensor {
  const n = shape.reduce((a, b) => a * b, 1);
  const signed = dtype === DataType.INT8;
  const data = signed ? new Int8Array(n) : new Uint8Array(n);
  let s = seed >>> 0;
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const [lo, hi] = signed ? [-128, 127] : [0, 255];
  for (let i = 0; i < n; i++) {
    const r = next();
    data[i] = r < extremes / 2 ? lo : r < extremes ? hi : lo + Math.floor(next() * 256);
  }
  return { dtype, shape, data };
}

const scalar = (dtype: number, v: number): RTensor => ({
  dtype,
  shape: [],
  data: dtype === DataType.INT8 ? Int8Array.of(v) : Uint8Array.of(v),
});

function expectSame(spec: OneNodeSpec): void {
  const [got, want] = fastAndGeneral(spec);
  expect(got.dtype).toBe(want.dtype);
  expect(got.shape).toEqual(want.shape);
  const [g, w] = [got.data as ArrayLike<number>, want.data as ArrayLike<number>];
  expect(g.length).toBe(w.length);
  let bad = -1;
  for (let i = 0; i < w.length && bad < 0; i++) if (!Object.is(g[i], w[i])) bad = i;
  if (bad >= 0) expect([bad, g[bad]]).toEqual([bad, w[bad]]);
}

afterEach(() => {
  setGemmDisabled(false);
  setGemmThreads(undefined, 1 << 21);
});

const U8 = DataType.UINT8;
const I8 = DataType.INT8;

describe("ConvInteger on the integer product", () => {
  const cases: [string, number[], number[], Record<string, number | number[]>][] = [
    ["3x3 pad 1", [1, 5, 9, 11], [7, 5, 3, 3], { pads: [1, 1, 1, 1] }],
    [
      "3 channels, stride 2 (odd summed length)",
      [2, 3, 17, 15],
      [8, 3, 3, 3],
      { strides: [2, 2], pads: [1, 1, 1, 1] },
    ],
    ["dilated 4", [1, 4, 20, 19], [6, 4, 3, 3], { dilations: [4, 4], pads: [4, 4, 4, 4] }],
    ["1x1", [1, 16, 6, 5], [13, 16, 1, 1], {}],
    ["grouped", [1, 8, 7, 9], [12, 2, 3, 3], { group: 4, pads: [1, 0, 2, 1] }],
    ["one output channel", [1, 6, 10, 9], [1, 6, 3, 3], { pads: [1, 1, 1, 1] }],
    ["wide rows (whole vectors)", [1, 4, 12, 40], [9, 4, 3, 3], { pads: [1, 1, 1, 1] }],
    ["SAME_UPPER", [1, 3, 9, 10], [4, 3, 4, 2], { auto_pad: "SAME_UPPER", strides: [2, 3] }],
  ];
  for (const [xt, wt] of [
    [U8, U8],
    [U8, I8],
    [I8, U8],
    [I8, I8],
  ])
    for (const [name, xs, ws, attrs] of cases)
      it(`${name}, ${xt === U8 ? "u8" : "i8"} × ${wt === U8 ? "u8" : "i8"}`, () => {
        const x = ints(xt, xs, 1);
        const w = ints(wt, ws, 2);
        const xz = scalar(xt, xt === U8 ? 131 : -3);
        // Per output channel weight zero points (ws[0] of them), extremes included.
        const wz = ints(wt, [ws[0]!], 3, 0.5);
        expectSame({ op: "ConvInteger", inputs: [x, w, xz, wz], attrs });
        expectSame({ op: "ConvInteger", inputs: [x, w], attrs });
        expectSame({
          op: "ConvInteger",
          inputs: [x, w, xz, scalar(wt, wt === U8 ? 255 : -128)],
          attrs,
        });
      });

  it("sums past the int32 range wrap as the reference's do", () => {
    // 2 × 36000 taps of 255 · 255 (x 255 − 0, w 0 − 255): |sum| ≈ 4.7e9.
    const x = { dtype: U8, shape: [1, 2, 190, 190], data: new Uint8Array(2 * 190 * 190).fill(255) };
    const w = { dtype: U8, shape: [1, 2, 190, 190], data: new Uint8Array(2 * 190 * 190) };
    expectSame({ op: "ConvInteger", inputs: [x, w, scalar(U8, 0), scalar(U8, 255)] });
  });

  it("the same results on two threads, and with initializer weights packed once per run", async () => {
    setGemmThreads(2, 0);
    expect(await gemmHelpersReady(gemmArena()!)).toBe(true);
    expectSame({
      op: "ConvInteger",
      inputs: [
        ints(U8, [1, 6, 30, 30], 4),
        ints(U8, [10, 6, 3, 3], 5),
        scalar(U8, 17),
        scalar(U8, 130),
      ],
      attrs: { pads: [1, 1, 1, 1] },
    });
    const w = ints(U8, [8, 6, 3, 3], 6);
    const g = graph({
      nodes: [node("ConvInteger", ["x", "w", "xz", "wz"], ["y"], { pads: [1, 1, 1, 1] })],
      inputs: [valueInfo("x", U8, [1, 6, 12, 12]), valueInfo("xz", U8, [])],
      outputs: [valueInfo("y")],
      initializers: [
        Tensor.from(U8, [8, 6, 3, 3], w.data as Uint8Array, "w"),
        Tensor.from(U8, [8], [0, 1, 127, 128, 255, 3, 90, 200], "wz"),
      ],
    });
    const m = model(g, 18);
    const x = ints(U8, [1, 6, 12, 12], 7);
    const xz = scalar(U8, 99);
    const fast = [run(m, { x, xz }).y!, run(m, { x, xz }).y!];
    setGemmDisabled(true);
    const slow = run(m, { x, xz }).y!;
    setGemmDisabled(false);
    for (const f of fast)
      expect(Array.from(f.data as Int32Array)).toEqual(Array.from(slow.data as Int32Array));
  });
});

describe("MatMulInteger on the integer product", () => {
  it("2-D and batched A, per-row and per-column zero points, int8 and uint8", () => {
    for (const [at, bt] of [
      [U8, U8],
      [I8, U8],
      [U8, I8],
      [I8, I8],
    ])
      for (const [as, bs] of [
        [
          [5, 7],
          [7, 9],
        ],
        [
          [2, 3, 13, 33],
          [33, 11],
        ],
        [
          [1, 1],
          [1, 1],
        ],
      ] as [number[], number[]][]) {
        const a = ints(at, as, 8);
        const b = ints(bt, bs, 9);
        expectSame({ op: "MatMulInteger", inputs: [a, b] });
        expectSame({ op: "MatMulInteger", inputs: [a, b, scalar(at, 7), scalar(bt, 100)] });
        expectSame({
          op: "MatMulInteger",
          inputs: [a, b, ints(at, [as.at(-2)!], 10, 0.5), ints(bt, [bs[1]!], 11, 0.5)],
        });
      }
  });
});

describe("DynamicQuantizeLinear on WebAssembly SIMD", () => {
  function floats(n: number, seed: number, f: (r: number, i: number) => number): RTensor {
    const data = new Float32Array(n);
    let s = seed >>> 0;
    const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    for (let i = 0; i < n; i++) data[i] = f(next(), i);
    return { dtype: DataType.FLOAT, shape: [n], data };
  }
  const cases: [string, number, (r: number, i: number) => number][] = [
    ["mixed signs, large", 50_001, (r) => (r - 0.3) * 7],
    ["all positive", 40_000, (r) => r * 3 + 1e-3],
    ["all negative", 40_003, (r) => -r * 5 - 1],
    ["zeros", 20_000, () => 0],
    ["negative zeros and subnormals", 20_000, (r, i) => (i % 3 ? -0 : (r - 0.5) * 1e-40)],
    ["halfway quotients", 30_000, (r, i) => (i % 2 ? 0.5 * Math.round(r * 510) - 127 : 128)],
    ["NaN among the values", 33_333, (r, i) => (i % 97 === 0 ? NaN : r * 2 - 1)],
    ["±Inf among the values", 30_000, (r, i) => (i === 5 ? Infinity : i === 9 ? -Infinity : r)],
    ["small", 7, (r) => r - 0.5],
  ];
  for (const [name, n, f] of cases)
    it(name, () => {
      const spec: OneNodeSpec = {
        op: "DynamicQuantizeLinear",
        inputs: [floats(n, 12, f)],
        outputs: 3,
      };
      setGemmDisabled(true);
      let slow: RTensor[];
      try {
        slow = [0, 1, 2].map((i) => runOneOut(spec, i));
      } finally {
        setGemmDisabled(false);
      }
      const fast = [0, 1, 2].map((i) => runOneOut(spec, i));
      for (let i = 0; i < 3; i++) {
        expect(fast[i]!.dtype).toBe(slow[i]!.dtype);
        expect(Array.from(fast[i]!.data as ArrayLike<number>)).toEqual(
          Array.from(slow[i]!.data as ArrayLike<number>),
        );
      }
    });
});

function runOneOut(spec: OneNodeSpec, i: number): RTensor {
  const m = model(
    graph({
      nodes: [node(spec.op, ["x"], ["y", "s", "z"])],
      inputs: [valueInfo("x", DataType.FLOAT, spec.inputs[0]!.shape)],
      outputs: [valueInfo("y"), valueInfo("s"), valueInfo("z")],
    }),
    18,
  );
  const out = run(m, { x: spec.inputs[0]! });
  return out[["y", "s", "z"][i]!]!;
}

describe("QLinearConv and QLinearMatMul: integer sums, requantized", () => {
  const f32 = (v: number): RTensor => ({
    dtype: DataType.FLOAT,
    shape: [],
    data: Float32Array.of(v),
  });
  const convInputs = (seed: number, xt: number, wt: number, perChannel: boolean): RTensor[] => [
    ints(xt, [1, 8, 20, 21], seed),
    f32(0.02 + seed * 0.001),
    scalar(xt, xt === U8 ? 100 + seed : seed - 5),
    ints(wt, [16, 8, 3, 3], seed + 100),
    perChannel
      ? {
          dtype: DataType.FLOAT,
          shape: [16],
          data: Float32Array.from({ length: 16 }, (_, i) => 0.001 + i * 3e-4),
        }
      : f32(0.003 + seed * 0.0002),
    perChannel ? ints(wt, [16], seed + 7, 0.3) : scalar(wt, wt === U8 ? 128 : 0),
    f32(0.7 + seed * 0.05),
    scalar(U8, 128),
    {
      dtype: DataType.INT32,
      shape: [16],
      data: Int32Array.from({ length: 16 }, (_, i) => ((i * 7919 * seed) % 20000) - 10000),
    },
  ];

  it("QLinearConv: the same bits as the reference loop, and as onnxruntime", async () => {
    for (const [xt, wt, perChannel] of [
      [U8, I8, false],
      [U8, U8, true],
      [I8, I8, true],
    ] as [number, number, boolean][]) {
      const spec: OneNodeSpec = {
        op: "QLinearConv",
        inputs: convInputs(3, xt, wt, perChannel),
        attrs: { pads: [1, 1, 1, 1] },
      };
      spec.inputs[7] = scalar(xt, xt === U8 ? 128 : 0);
      expectSame(spec);
      const ours = runOne(spec)[0]!;
      const feeds = Object.fromEntries(spec.inputs.map((t, i) => [`x${i}`, t]));
      const theirs = (await runOrt(oneNodeModel(spec), feeds)).y0!;
      expect(Array.from(ours.data as Uint8Array)).toEqual(Array.from(theirs.data as Uint8Array));
    }
  });

  it("QLinearMatMul: the same bits as the reference loop, and as onnxruntime", async () => {
    for (const seed of [1, 2, 3]) {
      const spec: OneNodeSpec = {
        op: "QLinearMatMul",
        inputs: [
          ints(U8, [2, 16, 300], seed),
          f32(0.001 + seed * 3.7e-4),
          scalar(U8, 120 + seed),
          ints(U8, [300, 40], seed + 100),
          f32(0.0021 + seed * 1.1e-4),
          scalar(U8, 130 - seed),
          f32(0.9 + seed * 0.013),
          scalar(U8, 128),
        ],
      };
      expectSame(spec);
      const ours = runOne(spec)[0]!;
      const feeds = Object.fromEntries(spec.inputs.map((t, i) => [`x${i}`, t]));
      const theirs = (await runOrt(oneNodeModel(spec), feeds)).y0!;
      expect(Array.from(ours.data as Uint8Array)).toEqual(Array.from(theirs.data as Uint8Array));
    }
  });
});
