// MatMulNBits at accuracy_level 4 (src/schema/builders/contrib.ts): A quantized to int8 per block
// in arithmetic every target has (no Equal, Where or Reciprocal: CoreML and NNAPI lack them). With
// B the identity (4-bit codes 9 on the diagonal, 8 elsewhere, zero point 8, scale 1), Y is A as
// quantized and dequantized: the interpreter's kernel, the body in the interpreter and on
// onnxruntime give the same bits, for an all-zero block (scale 0), ties (half to even), small
// negatives (Round's -0), large and tiny magnitudes; onnxruntime's int8 kernel the same bits at
// scale 1, within its fused arithmetic's rounding elsewhere (a block near 1e-30: 0). With
// random weights, the body is onnxruntime's kernel within float32 rounding; and lowered for
// CoreML and NNAPI, every node is taken.

import { describe, expect, it } from "vitest";
import { expand, lower } from "../../src/app/transform.js";
import { run } from "../../src/interp/executor.js";
import { toIRTensor } from "../../src/interp/ir-tensors.js";
import { fromFloat64, toFloat64 } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";
import type { Model } from "../../src/ir/types.js";
import { loadProfile } from "../../src/targets/load.js";
import { DataType, oneNodeModel } from "../helpers/interp.js";
import { rng, runOrt } from "../helpers/ort.js";

const [F, U8] = [DataType.FLOAT, DataType.UINT8];
const [K, block] = [32, 16];

/** One MatMulNBits (4 bits, block 16, accuracy_level 4): B, scales as initializers. */
function nbits(N: number, codes: (n: number, k: number) => number, scale: number[]): Model {
  const blob = block / 2;
  const bytes = new Float64Array((N * K) / 2);
  for (let n = 0; n < N; n++)
    for (let k = 0; k < K; k += 2) bytes[(n * K + k) / 2] = codes(n, k) | (codes(n, k + 1) << 4);
  const A = fromFloat64(F, [3, K], new Float64Array(3 * K));
  const B = fromFloat64(U8, [N, K / block, blob], bytes);
  const S = fromFloat64(F, [N * (K / block)], Float64Array.from(scale));
  const m = oneNodeModel({
    op: "MatMulNBits",
    inputs: [A, B, S],
    attrs: { K, N, bits: 4, block_size: block, accuracy_level: 4 },
    opset: 21,
    extra: { domain: "com.microsoft" },
  });
  m.irVersion = 10;
  m.opsetImports.push({ domain: "com.microsoft", version: 1 });
  m.graph.inputs = m.graph.inputs.slice(0, 1);
  m.graph.initializers.push(toIRTensor(B, "x1"), toIRTensor(S, "x2"));
  return m;
}

// MatMulNBits alone expanded (a full expansion would expand the body's Clip as well)
const expanded = (m: Model): Model => {
  const r = expand(m, { only: [{ domain: "com.microsoft", op: "MatMulNBits" }] });
  if (!r.ok) throw new Error(r.notes.map((n) => n.message).join("; "));
  return r.model;
};
const bits = (t: RTensor) => Array.from(new Uint32Array(Float32Array.from(toFloat64(t)).buffer));

// Row 0: block 0 all zeros, block 1 with ties at scale 1 (max 127) and -0.3 (Round's -0).
// Row 1: large magnitudes, then tiny ones (a normal scale near 1e-32). Row 2: random.
const r = rng(5);
const rows = [
  [...Array(16).fill(0), 127, 2.5, -2.5, 0.5, -0.5, 3.5, -0.3, 1.5, -126.5, 0, -0, 7, 8, 9, 10, 11],
  [
    ...Array.from({ length: 16 }, (_, i) => (i % 2 ? -3e30 : 1e29 * i)),
    ...Array.from({ length: 16 }, (_, i) => (i - 7.5) * 1e-30),
  ],
  Array.from({ length: K }, () => (r() - 0.5) * 8),
];
const feeds = { x0: fromFloat64(F, [3, K], Float64Array.from(rows.flat())) };

describe("MatMulNBits accuracy_level 4: the body's int8 quantization of A", () => {
  it("B the identity: the body gives the interpreter kernel's bits, here and on onnxruntime", async () => {
    const m = nbits(K, (n, k) => (n === k ? 9 : 8), Array(K * 2).fill(1));
    const e = expanded(m);
    const ops = e.graph.nodes.map((n) => n.opType);
    for (const op of ["Equal", "Where", "Reciprocal"]) expect(ops).not.toContain(op);
    // the interpreter's kernel, and the body in the interpreter and on onnxruntime: the same bits
    const want = bits(run(m, feeds).y0!);
    expect(bits(run(e, feeds).y0!)).toEqual(want);
    expect(bits((await runOrt(e, feeds)).y0!)).toEqual(want);
    // onnxruntime's int8 kernel (its block sums subtracted in float32): row 0 (scale 1) the
    // same bits; rows 1 and 2 within 1e-5 of the block's largest value, but for the block near
    // 1e-30, which it gives as 0 (docs/semantics.md)
    const ort = bits((await runOrt(m, feeds)).y0!);
    expect(ort.slice(0, K)).toEqual(want.slice(0, K));
    const [o, w] = [toFloat64((await runOrt(m, feeds)).y0!), toFloat64(run(m, feeds).y0!)];
    for (const start of [K, 2 * K, 2 * K + 16]) {
      const big = Math.max(...Array.from(w.slice(start, start + 16), Math.abs));
      for (let i = start; i < start + 16; i++)
        expect(Math.abs(o[i]! - w[i]!)).toBeLessThanOrEqual(1e-5 * big);
    }
    expect(Array.from(o.slice(K + 16, 2 * K)).every((v) => v === 0)).toBe(true);
    // the all-zero block gives +0, a tie rounds to even (2.5 -> 2), -0.3 to +0
    expect(want.slice(0, 16).every((b) => b === 0)).toBe(true);
    expect(toFloat64(run(e, feeds).y0!).slice(16, 23)).toEqual(
      Float64Array.of(127, 2, -2, 0, 0, 4, 0),
    );
  });

  it("random weights: onnxruntime's kernel within float32 rounding; one CoreML/NNAPI partition", async () => {
    const c = rng(9);
    const N = 6;
    const m = nbits(
      N,
      () => Math.floor(c() * 16),
      Array.from({ length: N * 2 }, () => 0.01 + c() / 10),
    );
    const feeds2 = {
      x0: fromFloat64(F, [3, K], Float64Array.from(rows[2]!.concat(rows[2]!, rows[2]!))),
    };
    const want = toFloat64((await runOrt(m, feeds2)).y0!);
    for (const got of [
      toFloat64((await runOrt(expanded(m), feeds2)).y0!),
      toFloat64(run(expanded(m), feeds2).y0!),
    ]) {
      let [d, n] = [0, 0];
      for (let i = 0; i < want.length; i++)
        [d, n] = [d + (got[i]! - want[i]!) ** 2, n + want[i]! ** 2];
      expect(Math.sqrt(d / n)).toBeLessThan(1e-6);
    }
    for (const t of ["coreml", "nnapi"] as const) {
      const l = lower(m, { profile: loadProfile(t) });
      if (!l.ok) throw new Error("lower failed");
      expect(
        l.report.nodes.filter((v) => v.verdict !== "supported").map((v) => v.op),
        t,
      ).toEqual([]);
      const got = toFloat64((await runOrt(l.model, feeds2)).y0!);
      expect(Array.from(got), t).toEqual(
        Array.from(toFloat64((await runOrt(expanded(m), feeds2)).y0!)),
      );
    }
  });
});
