// onnxruntime's quantized operators against onnxruntime-node itself: single nodes on seeded random
// inputs, uint8 and int8, with scalar, per-column and general broadcasting. The integer kernels
// (and the float32 rescales that follow them) must give onnxruntime's results bit for bit.

import { describe, expect, it } from "vitest";
import { run } from "../../src/interp/executor.js";
import { fromFloat64, toFloat64 } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";
import type { AttrInput } from "../../src/ir/builder.js";
import { toIRTensor } from "../../src/interp/ir-tensors.js";
import { DataType, graph, model, node, oneNodeModel, valueInfo } from "../helpers/interp.js";
import { rng, runOrt } from "../helpers/ort.js";

const U8 = DataType.UINT8;
const I8 = DataType.INT8;
const F = DataType.FLOAT;

/** Seeded integers of a quantized type, or floats in [lo, hi). */
function rand(dtype: number, shape: number[], seed: number, lo?: number, hi?: number): RTensor {
  const r = rng(seed);
  const n = shape.reduce((a, b) => a * b, 1);
  const [a, b] = dtype === U8 ? [0, 255] : dtype === I8 ? [-128, 127] : [lo ?? -2, hi ?? 2];
  const v = Float64Array.from({ length: n }, () =>
    dtype === F ? a + (b - a) * r() : Math.floor(a + (b - a + 1) * r()),
  );
  return fromFloat64(dtype, shape, v);
}
const scalar = (dtype: number, v: number) => fromFloat64(dtype, [], Float64Array.of(v));

/** Runs one node (domain com.microsoft unless `domain`) here and on onnxruntime; equal outputs. */
async function sameAsOrt(
  op: string,
  inputs: (RTensor | undefined)[],
  attrs: Record<string, AttrInput> = {},
  opts: { domain?: string; opset?: number; outputs?: number } = {},
): Promise<void> {
  const names = inputs.map((t, i) => (t ? `x${i}` : ""));
  const m = oneNodeModel({
    op,
    inputs: inputs.filter((t): t is RTensor => t !== undefined),
    names,
    attrs,
    outputs: opts.outputs ?? 1,
    opset: opts.opset ?? 17,
    extra: { domain: opts.domain ?? "com.microsoft" },
  });
  if ((opts.domain ?? "com.microsoft") === "com.microsoft")
    m.opsetImports.push({ domain: "com.microsoft", version: 1 });
  if ((opts.opset ?? 17) >= 21) m.irVersion = 10;
  const feeds: Record<string, RTensor> = {};
  inputs.forEach((t, i) => t && (feeds[`x${i}`] = t));
  const ours = run(m, feeds);
  const theirs = await runOrt(m, feeds);
  for (const o of m.graph.outputs) {
    const a = ours[o.name]!;
    const b = theirs[o.name]!;
    expect(a.dtype, o.name).toBe(b.dtype);
    expect(a.shape, o.name).toEqual(b.shape);
    const av = toFloat64(a);
    const bv = toFloat64(b);
    const bad: string[] = [];
    for (let i = 0; i < bv.length && bad.length < 5; i++)
      if (!Object.is(av[i], bv[i])) bad.push(`[${i}] ${av[i]} vs ${bv[i]}`);
    expect(bad, `${op} ${o.name}: ours vs onnxruntime`).toEqual([]);
  }
}

const CASES: [string, number[], number[]][] = [
  ["same shape", [3, 5, 7], [3, 5, 7]],
  ["B scalar", [3, 5, 7], [1]],
  ["A scalar", [1], [3, 5, 7]],
  ["B a row", [3, 5, 7], [7]],
  ["general", [3, 1, 7], [1, 5, 1]],
];

describe("QLinearAdd, QLinearMul: bit-exact", () => {
  for (const op of ["QLinearAdd", "QLinearMul"])
    for (const t of [U8, I8])
      it.each(CASES)(`${op} ${t === U8 ? "uint8" : "int8"}: %s`, async (_, sa, sb) => {
        for (let seed = 1; seed <= 4; seed++) {
          const zp = (v: number) => scalar(t, t === U8 ? 128 + v : v);
          await sameAsOrt(op, [
            rand(t, sa, seed),
            scalar(F, 0.013 * seed + 0.002),
            zp(seed * 3),
            rand(t, sb, seed + 100),
            scalar(F, 0.021 / seed),
            zp(-seed * 5),
            scalar(F, op === "QLinearAdd" ? 0.029 : 0.4 * seed),
            zp(seed),
          ]);
        }
      });
});

describe("quantized unary and reductions: bit-exact", () => {
  for (const t of [U8, I8]) {
    const name = t === U8 ? "uint8" : "int8";
    const zp = (v: number) => scalar(t, t === U8 ? 128 + v : v);
    it(`QLinearLeakyRelu ${name}`, async () => {
      await sameAsOrt(
        "QLinearLeakyRelu",
        [rand(t, [4, 64], 7), scalar(F, 0.05), zp(3), scalar(F, 0.04), zp(-9)],
        { alpha: 0.1 },
      );
    });
    it(`QLinearSoftmax ${name}, last axis and axis 0`, async () => {
      const x = rand(t, [6, 20], 8);
      const args = [x, scalar(F, 0.08), zp(0), scalar(F, 1 / 256), scalar(t, t === U8 ? 0 : -128)];
      await sameAsOrt("QLinearSoftmax", args, { opset: 13 });
      await sameAsOrt("QLinearSoftmax", args, { opset: 13, axis: 0 });
      await sameAsOrt("QLinearSoftmax", args, { opset: 12, axis: 1 });
    });
    it(`QLinearGlobalAveragePool ${name}, NCHW and NHWC`, async () => {
      const args = [rand(t, [2, 3, 5, 5], 9), scalar(F, 0.03), zp(4), scalar(F, 0.02), zp(-2)];
      await sameAsOrt("QLinearGlobalAveragePool", args);
      await sameAsOrt("QLinearGlobalAveragePool", args, { channels_last: 1 });
    });
    it(`QLinearConcat ${name}`, async () => {
      await sameAsOrt(
        "QLinearConcat",
        [
          scalar(F, 0.05),
          zp(1),
          rand(t, [2, 3, 4], 10),
          scalar(F, 0.05),
          zp(1),
          rand(t, [2, 5, 4], 11),
          scalar(F, 0.031),
          zp(-7),
          rand(t, [2, 1, 4], 12),
          scalar(F, 0.11),
          zp(12),
        ],
        { axis: 1 },
      );
    });
  }
});

describe("integer products rescaled in float32: bit-exact", () => {
  it("QGemm: quantized and float outputs, per-tensor and per-column B, transposes, C", async () => {
    for (const [transA, transB] of [
      [0, 0],
      [1, 1],
    ]) {
      const A = rand(U8, transA ? [8, 5] : [5, 8], 13);
      const B = rand(I8, transB ? [6, 8] : [8, 6], 14);
      const C = fromFloat64(
        DataType.INT32,
        [6],
        Float64Array.from({ length: 6 }, (_, i) => i * 97 - 300),
      );
      const perCol = fromFloat64(
        F,
        [6],
        Float64Array.from({ length: 6 }, (_, i) => 0.01 + 0.003 * i),
      );
      const zcol = fromFloat64(I8, [6], new Float64Array(6));
      for (const [bs, bz] of [
        [scalar(F, 0.012), scalar(I8, 0)],
        [perCol, zcol],
      ]) {
        const base = [A, scalar(F, 0.02), scalar(U8, 120), B, bs, bz, C];
        await sameAsOrt("QGemm", [...base, scalar(F, 0.07), scalar(U8, 110)], {
          transA,
          transB,
          alpha: 1.5,
        });
        await sameAsOrt("QGemm", base, { transA, transB, alpha: 0.5 });
      }
    }
  });

  it("MatMulIntegerToFloat: per-tensor and per-column, with bias", async () => {
    const A = rand(U8, [2, 3, 8], 15);
    const B = rand(I8, [8, 5], 16);
    const bias = rand(F, [5], 17);
    await sameAsOrt("MatMulIntegerToFloat", [
      A,
      B,
      scalar(F, 0.02),
      scalar(F, 0.013),
      scalar(U8, 131),
    ]);
    const bs = fromFloat64(F, [5], Float64Array.of(0.01, 0.02, 0.015, 0.003, 0.04));
    await sameAsOrt("MatMulIntegerToFloat", [
      A,
      B,
      scalar(F, 0.02),
      bs,
      scalar(U8, 131),
      undefined,
      bias,
    ]);
  });

  it("DynamicQuantizeMatMul: the activation quantized by onnxruntime's rule", async () => {
    for (let seed = 1; seed <= 3; seed++) {
      const A = rand(F, [4, 8], 18 + seed, -1.5, 2.5);
      const B = rand(I8, [8, 6], 22 + seed);
      await sameAsOrt("DynamicQuantizeMatMul", [
        A,
        B,
        scalar(F, 0.011),
        scalar(I8, 0),
        rand(F, [6], 30),
      ]);
    }
  });

  it("DynamicQuantizeLinear computes as its function body (Sub, then Div in float32)", async () => {
    const x = fromFloat64(
      F,
      [6],
      Float64Array.of(-0.46709406, 0.49066624, 0.15962672, 0.13709119, -0.07324049, 0.11831156),
    );
    const m = oneNodeModel({ op: "DynamicQuantizeLinear", inputs: [x], outputs: 3, opset: 15 });
    expect(Array.from(run(m, { x0: x }).y0!.data as Uint8Array)).toEqual([
      0, 255, 166, 160, 105, 155,
    ]);
    for (let seed = 1; seed <= 20; seed++)
      await sameAsOrt(
        "DynamicQuantizeLinear",
        [rand(F, [50], seed, -3 + seed / 10, 2)],
        {},
        {
          domain: "",
          opset: 15,
          outputs: 3,
        },
      );
  });
});

describe("QuantizeLinear / DequantizeLinear: 16-bit, blocked int4, float8", () => {
  it("com.microsoft, uint16 and int16 per axis", async () => {
    const x = rand(F, [2, 3, 4], 40, -3, 3);
    const s = fromFloat64(F, [3], Float64Array.of(0.001, 0.002, 0.0005));
    for (const t of [DataType.UINT16, DataType.INT16]) {
      const z = fromFloat64(t, [3], Float64Array.of(t === DataType.UINT16 ? 30000 : 10, 2, 0));
      await sameAsOrt("QuantizeLinear", [x, s, z], { axis: 1 });
      const q = run(
        (() => {
          const m = oneNodeModel({
            op: "QuantizeLinear",
            inputs: [x, s, z],
            attrs: { axis: 1 },
            extra: { domain: "com.microsoft" },
          });
          m.opsetImports.push({ domain: "com.microsoft", version: 1 });
          return m;
        })(),
        { x0: x, x1: s, x2: z },
      ).y0!;
      await sameAsOrt("DequantizeLinear", [q, s, z], { axis: 1 });
    }
  });

  /** QuantizeLinear then DequantizeLinear (onnxruntime-node takes no 4- or 8-bit tensors in or out),
   * the zero point a Constant: the round trip's floats, here and on onnxruntime. */
  async function roundTrip(x: RTensor, s: RTensor, z: RTensor, attrs: Record<string, AttrInput>) {
    const g = graph({
      nodes: [
        node("Constant", [], ["z"], { value: toIRTensor(z) }),
        node("QuantizeLinear", ["x", "s", "z"], ["q"], attrs),
        node("DequantizeLinear", ["q", "s", "z"], ["y"], {
          axis: attrs.axis ?? 1,
          ...(attrs.block_size ? { block_size: attrs.block_size } : {}),
        }),
      ],
      inputs: [valueInfo("x", x.dtype, x.shape), valueInfo("s", s.dtype, s.shape)],
      outputs: [valueInfo("y")],
    });
    const m = model(g, 21);
    m.irVersion = 10;
    const ours = toFloat64(run(m, { x, s }).y!);
    const theirs = toFloat64((await runOrt(m, { x, s })).y!);
    const diff = Array.from(ours).flatMap((v, i) =>
      Object.is(v, theirs[i]) ? [] : [`[${i}] ${v} vs ${theirs[i]}`],
    );
    expect(diff, `${JSON.stringify(attrs)}`).toEqual([]);
  }

  it("ai.onnx 21: blocked int4 and uint4, and float8 with saturate", async () => {
    const x = rand(F, [4, 64], 41, -2, 2);
    const s = rand(F, [4, 2], 42, 0.05, 0.3);
    for (const t of [DataType.INT4, DataType.UINT4]) {
      const z = fromFloat64(
        t,
        [4, 2],
        Float64Array.of(1, -2, 3, 0, 0, 1, -1, 2).map((v) => (t === DataType.UINT4 ? v + 8 : v)),
      );
      await roundTrip(x, s, z, { axis: 1, block_size: 32 });
    }
    for (const t of [DataType.FLOAT8E4M3FN, DataType.FLOAT8E5M2]) {
      const z = fromFloat64(t, [], Float64Array.of(0));
      // saturate = 0 overflows to NaN as ONNX's reference does (test/interp/low-precision.test.ts);
      // onnxruntime 1.30 rounds some overflowing values to the largest one instead (-480 -> -448
      // but -470 -> NaN in e4m3fn): not compared here.
      await roundTrip(rand(F, [40], 43, -600, 600), scalar(F, 0.5), z, { saturate: 1 });
    }
  });
});
