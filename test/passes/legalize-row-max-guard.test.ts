// legalize-row-max-guard: Attention-23's two guards against a fully masked row (row max -inf,
// row sum 0) made Max with the float32 extremes, for a target without Equal; the same bits on
// onnxruntime, a fully masked row included, and on scores that are a float graph input (NaN and
// infinities in any place: a KV cache's past keys), in onnxruntime and in the interpreter.

import { describe, expect, it } from "vitest";
import { compareTensors } from "../../src/interp/backend-test.js";
import { run } from "../../src/interp/executor.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeRowMaxGuard } from "../../src/passes/legalize-row-max-guard.js";
import { parseModelText } from "../../src/text/parse.js";
import { guardedAttention, embeddingValues } from "../helpers/attention.js";
import { random, rng, runOrt } from "../helpers/ort.js";

describe("legalize-row-max-guard", () => {
  it("Attention-23's guards (row max -inf, row sum 0) made Max; the same bits, a fully masked row included", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
g (int64[1,4] ids, bool[1,4,4] keep) => (float[1,4,8] y)
  <float[10,8] emb = {${embeddingValues(10, 0.25)}}, float zero = {0}, float one = {1}, float ninf = {-inf}, int64[1] last = {-1}>
{
${guardedAttention("  mask = Where (keep, zero, ninf)")}
}`);
    const r = runPass(legalizeRowMaxGuard({ has: (op) => op !== "Equal" }), m);
    expect(r.ok && r.model.graph.nodes.filter((n) => n.opType === "Max")).toHaveLength(2);
    if (!r.ok) return;
    const keep = Uint8Array.from({ length: 16 }, (_, i) => (i < 4 ? 0 : (i * 7) % 3 ? 1 : 0));
    const feeds = {
      ids: random(DataType.INT64, [1, 4], 3, 0, 9),
      keep: { dtype: DataType.BOOL, shape: [1, 4, 4], data: keep },
    };
    const [a, b] = [await runOrt(m, feeds), await runOrt(r.model, feeds)];
    expect(compareTensors(b.y!, a.y!, { rtol: 0, atol: 0 })).toBeUndefined();
  });

  // The softmax of scores s that are a graph input: no bound on them at all.
  const softmax = (z = "zero") =>
    parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
g (float[R,5] s) => (float[R,5] y, float[R,5] d)
  <float zero = {0}, float one = {1}, float ninf = {-inf}, float[1,5] wide = {0, 0, 0, 0, 0}, int64[1] last = {-1}>
{
  m = ReduceMax (s, last)
  isinf = Equal (m, ninf)
  g1 = Where (isinf, ${z}, m)
  d = Sub (s, g1)
  x = Exp (d)
  t = ReduceSum (x, last)
  none = Equal (t, zero)
  g2 = Where (none, one, t)
  y = Div (x, g2)
}`);
  const bits = (t: RTensor) => Array.from(new Uint32Array((t.data as Float32Array).buffer));
  const SPECIAL = [NaN, Infinity, -Infinity, 0, -0, 1.5, -2, 3e38, -3e38, 88, -104, 1e-45];

  it("is exact on unbounded scores: NaN, ±inf, ±0 and extremes anywhere in a row, bit for bit", async () => {
    const m = softmax();
    const r = runPass(legalizeRowMaxGuard({ has: (op) => op !== "Equal" }), m);
    if (!r.ok) throw new Error("pass failed");
    const ops = r.model.graph.nodes.map((n) => n.opType);
    expect([ops.filter((o) => o === "Max").length, ops.includes("Where")]).toEqual([2, false]);
    const next = rng(39);
    const rows = 4000;
    const data = Float32Array.from({ length: rows * 5 }, (_, i) => {
      const row = Math.floor(i / 5);
      if (row === 0) return -Infinity; // a fully masked row
      if (row === 1) return NaN;
      if (row === 2) return i % 5 ? -Infinity : NaN; // NaN first: onnxruntime's max gives NaN
      if (row === 3) return i % 5 === 2 ? NaN : -Infinity; // NaN inside: its max skips it
      const u = next();
      return u < 0.6 ? SPECIAL[Math.floor(next() * SPECIAL.length)]! : (next() - 0.5) * 20;
    });
    const feeds = { s: { dtype: DataType.FLOAT, shape: [rows, 5], data } };
    const [a, b] = [await runOrt(m, feeds), await runOrt(r.model, feeds)];
    for (const k of ["y", "d"]) expect(bits(b[k]!), k).toEqual(bits(a[k]!));
    const [ia, ib] = [run(m, feeds), run(r.model, feeds)];
    for (const k of ["y", "d"]) expect(bits(ib[k]!), k).toEqual(bits(ia[k]!));
  });

  it("leaves a guard whose replacement would differ: z of -inf, a z wider than the row max", () => {
    const has = (op: string) => op !== "Equal";
    const count = (r: ReturnType<typeof runPass>) =>
      r.ok ? r.model.graph.nodes.filter((n) => n.opType === "Where").length : -1;
    // -inf - (-inf) is NaN where the guard's -inf - (-max) is -inf
    expect(count(runPass(legalizeRowMaxGuard({ has }), softmax("ninf")))).toBe(1);
    // Where broadcasts a [1,5] z to [R,5]: not the row max's shape
    expect(count(runPass(legalizeRowMaxGuard({ has }), softmax("wide")))).toBe(1);
  });
});
