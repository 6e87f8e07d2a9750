// legalize-mask's branch of -inf (an attention mask of 0 and -inf): Where(c, x, -inf) as
// x + Log(m), Where(c, -inf, y) as y + Log(1 - m), the same bits as onnxruntime's Where; and the
// whole of an NNAPI-like target's legalization on an attention with Attention-23's guards (no
// Where, And, Equal, ReduceMax or ReduceSum left; the guards still become Max, which read the
// softmax by its ReduceMax and ReduceSum before those go).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  estimateOf,
  NO_USABILITY_PYTHON,
  usability,
  usabilityPython,
} from "../../scripts/targets/ort-usability.js";
import { lower } from "../../src/app/transform.js";
import { saveModel } from "../../src/io/files.js";
import { loadProfile } from "../../src/targets/load.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeForTarget } from "../../src/passes/legalize.js";
import { legalizeMask } from "../../src/passes/legalize-mask.js";
import { parseModelText } from "../../src/text/parse.js";
import { guardedAttention, embeddingValues } from "../helpers/attention.js";
import { random, runOrt } from "../helpers/ort.js";

const without =
  (...lacking: string[]) =>
  (op: string) =>
    !lacking.includes(op);

const mask = (n: number, seed: number): RTensor => ({
  dtype: DataType.INT64,
  shape: [1, n],
  data: BigInt64Array.from({ length: n }, (_, i) => BigInt(((i + seed) * 5) % 3 ? 1 : 0)),
});

describe("legalize-mask, a branch of -inf", () => {
  it("Where(c, 0, -inf), Where(c, x, -inf), Where(c, -inf, y) as Log of the mask; same bits", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (int64[1,6] mask, float[1,6,6] s) => (float[1,6,6] a, float[1,6,6] b, float[1,6,6] c, float[2,6,6] d)
  <bool[6,1] causal = {1, 1, 0, 1, 1, 0}, float zero = {0}, float ninf = {-inf}, float[6] x = {0.5, -2, 0, 7, 1e30, -3},
   float[2,1,1] wide = {0, 0}>
{
  b0 = Cast <to = 9> (mask)
  k = And (causal, b0)
  w1 = Where (k, zero, ninf)
  a = Add (s, w1)
  w2 = Where (k, x, ninf)
  b = Add (s, w2)
  w3 = Where (k, ninf, x)
  c = Add (s, w3)
  d = Where (k, wide, ninf)
}`);
    // (through legalizeForTarget, whose simplification drops the And left dead)
    const r = runPass(legalizeForTarget({ has: without("Where", "And") }), m);
    if (!r.ok) throw new Error("failed");
    const ops = r.model.graph.nodes.map((n) => n.opType);
    for (const op of ["Where", "And"]) expect(ops).not.toContain(op);
    expect(ops.filter((o) => o === "Log")).toHaveLength(4);
    const feeds = { mask: mask(6, 1), s: random(DataType.FLOAT, [1, 6, 6], 2) };
    const [p, q] = [await runOrt(m, feeds), await runOrt(r.model, feeds)];
    for (const k of Object.keys(p)) {
      expect(q[k]!.shape, k).toEqual(p[k]!.shape);
      expect(compareTensors(q[k]!, p[k]!, { rtol: 0, atol: 0 }), k).toBeUndefined();
    }
  });

  it("branches shown finite by finite-values (Tanh, Sigmoid of integers) as arithmetic; same bits", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (bool[2,6] c, int32[2,6] k, float[2,6] s) => (float[2,6] a, float[2,6] b, float[2,6] d)
  <float ninf = {-inf}>
{
  f = Cast <to = 1> (k)
  t = Tanh (f)
  u = Sigmoid (f)
  a = Where (c, t, u)
  b = Where (c, ninf, t)
  d = Where (c, s, u)
}`);
    const r = runPass(legalizeForTarget({ has: without("Where") }), m);
    if (!r.ok) throw new Error("failed");
    // d's branch s is a graph input, unbounded (it may hold NaN): left
    expect(
      r.model.graph.nodes.filter((n) => n.opType === "Where").map((n) => n.outputs[0]),
    ).toEqual(["d"]);
    const c: RTensor = {
      dtype: DataType.BOOL,
      shape: [2, 6],
      data: Uint8Array.from({ length: 12 }, (_, i) => (i % 3 ? 1 : 0)),
    };
    const feeds = {
      c,
      k: random(DataType.INT32, [2, 6], 5, -4, 4),
      s: random(DataType.FLOAT, [2, 6], 4),
    };
    const [p, q] = [await runOrt(m, feeds), await runOrt(r.model, feeds)];
    for (const k of Object.keys(p))
      expect(compareTensors(q[k]!, p[k]!, { rtol: 0, atol: 0 }), k).toBeUndefined();
  });

  it("a Sub of a Where over no Equal (no row-maximum guard) is bounded as a Sub; same bits", async () => {
    // finite-values read such a Where's condition as an Equal's and failed (the expanded
    // DynamicQuantizeLSTM lowered for NNAPI: "Cannot read properties of undefined")
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (bool[2,6] c, int32[2,6] k) => (float[2,6] y)
  <float ninf = {-inf}, float one = {1}>
{
  f = Cast <to = 1> (k)
  t = Tanh (f)
  w = Where (c, t, one)
  d = Sub (t, w)
  y = Where (c, d, ninf)
}`);
    const r = runPass(legalizeMask({ has: without("Where") }), m);
    if (!r.ok) throw new Error("failed");
    expect(r.model.graph.nodes.map((n) => n.opType)).not.toContain("Where");
    const feeds = {
      c: {
        dtype: DataType.BOOL,
        shape: [2, 6],
        data: Uint8Array.from([1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0]),
      },
      k: {
        dtype: DataType.INT32,
        shape: [2, 6],
        data: Int32Array.from([-5, 0, 3, 1, -1, 2, 7, -2, 0, 4, -3, 9]),
      },
    };
    const [p, q] = [await runOrt(m, feeds), await runOrt(r.model, feeds)];
    expect(compareTensors(q.y!, p.y!, { rtol: 0, atol: 0 })).toBeUndefined();
  });

  it("leaves a -inf against a branch not shown finite, and a -inf wider than the rest", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (bool[4] c, float[4] x) => (float[4] y, float[3,4] z) <float ninf = {-inf}, float[3,1] wide = {-inf, -inf, -inf}, float zero = {0}>
{
  y = Where (c, x, ninf)
  z = Where (c, zero, wide)
}`);
    const r = runPass(legalizeMask({ has: without("Where") }), m);
    expect(r.ok && r.modified).toBe(false);
  });
});

const ATTENTION = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
g (int64[1,8] ids, int64[1,8] keep) => (float[1,8,8] y)
  <float[10,8] emb = {${embeddingValues(10, 0.25)}},
   bool[8,8] causal = {${Array.from({ length: 64 }, (_, i) => (i % 8 <= Math.floor(i / 8) ? 1 : 0)).join(", ")}},
   float zero = {0}, float one = {1}, float ninf = {-inf}, int64[1] last = {-1}>
{
${guardedAttention(`  kb = Cast <to = 9> (keep)
  both = And (causal, kb)
  mask = Where (both, zero, ninf)`)}
}`);

describe("an NNAPI-like target's legalization of an attention", () => {
  it("no Where, And, Equal, ReduceMax or ReduceSum left; onnxruntime's numbers, a fully masked row included", async () => {
    const m = ATTENTION;
    const lacking = ["Where", "And", "Equal", "ReduceMax", "ReduceSum"];
    const r = runPass(legalizeForTarget({ has: without(...lacking) }), m);
    if (!r.ok) throw new Error("failed");
    const ops = r.model.graph.nodes.map((n) => n.opType);
    for (const op of lacking) expect(ops, op).not.toContain(op);
    // the first column is masked for every row: row 0 is fully masked
    const keep: RTensor = {
      dtype: DataType.INT64,
      shape: [1, 8],
      data: BigInt64Array.from([0n, 1n, 1n, 0n, 1n, 1n, 1n, 1n]),
    };
    const feeds = { ids: random(DataType.INT64, [1, 8], 3, 0, 9), keep };
    const [a, b] = [await runOrt(m, feeds), await runOrt(r.model, feeds)];
    expect(compareTensors(b.y!, a.y!, { rtol: 1e-6, atol: 1e-7 })).toBeUndefined();
    expect(Array.from((b.y!.data as Float32Array).slice(0, 8))).toEqual(new Array(8).fill(0));
  });
});

const python = usabilityPython();

describe.skipIf(!python)(
  `lower --target nnapi on the attention, judged by onnxruntime's checker${python ? "" : ` (${NO_USABILITY_PYTHON})`}`,
  () => {
    it("one NNAPI partition covering every node (as written: And, Equal, ReduceMax, ReduceSum, Where left)", () => {
      const work = mkdtempSync(join(tmpdir(), "legalize-mask-"));
      try {
        const r = lower(ATTENTION, { profile: loadProfile("nnapi") });
        if (!r.ok) throw new Error("lower failed");
        const [before, after] = [join(work, "a.onnx"), join(work, "a.nnapi.onnx")];
        saveModel(ATTENTION, before);
        saveModel(r.model, after);
        const [b, a] = usability(python!, [before, after]).map((v) => estimateOf(v.nnapi)!);
        expect(b!.unsupportedOps).toEqual(["And", "Equal", "ReduceMax", "ReduceSum", "Where"]);
        expect({ partitions: a!.partitions, left: a!.nodes - a!.supported }).toEqual({
          partitions: 1,
          left: 0,
        });
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    }, 60_000);
  },
);
