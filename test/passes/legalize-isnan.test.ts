// legalize-isnan and the bounds it stands on (finite-values): IsNaN of a value shown finite made
// false and the Where it chose by its other branch, the same bits on onnxruntime; left where the
// value is not shown finite (a float graph input, a product that may overflow).

import { describe, expect, it } from "vitest";
import { compareTensors } from "../../src/interp/backend-test.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { finiteBounds } from "../../src/passes/finite-values.js";
import { legalizeIsNaN } from "../../src/passes/legalize-isnan.js";
import { parseModelText } from "../../src/text/parse.js";
import { random, runOrt } from "../helpers/ort.js";

const noIsNaN = { has: (op: string) => op !== "IsNaN" };

// a decoder's attention in small: embeddings of token ids, a root-mean-square norm, scores, a
// causal mask of 0 and -3.4e38 added, Softmax, and the guard against NaN rows
const attention = (table: string) =>
  parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
g (int64[1,6] ids, int64[1,6] pos) => (float[1,6,6] y)
  <float[10,8] emb = {${table}}, float[8,8] w = {${Array.from({ length: 64 }, (_, i) => ((i * 37) % 17) / 20 - 0.4).join(", ")}},
   float two = {2}, float eps = {1e-6}, float zero = {0}, float low = {-3.4028234663852886e38},
   int64[1] last = {-1}, float[1,1,8] inv = {1, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125}>
{
  e = Gather (emb, ids)
  sq = Pow (e, two)
  ms = ReduceMean (sq, last)
  me = Add (ms, eps)
  rt = Sqrt (me)
  r = Reciprocal (rt)
  n = Mul (e, r)
  pf = Cast <to = 1> (pos)
  pu = Unsqueeze (pf, last)
  ang = Mul (pu, inv)
  c = Cos (ang)
  nr = Mul (n, c)
  q = MatMul (nr, w)
  kt = Transpose <perm = [0, 2, 1]> (nr)
  s = MatMul (q, kt)
  pr = Unsqueeze (pos, last)
  pc = Transpose <perm = [0, 2, 1]> (pr)
  causal = LessOrEqual (pc, pr)
  mask = Where (causal, zero, low)
  sm = Add (s, mask)
  p = Softmax <axis = -1> (sm)
  bad = IsNaN (p)
  y = Where (bad, zero, p)
}`);
const rows = (v: number) =>
  Array.from({ length: 80 }, (_, i) => (((i * 13) % 7) - 3) * v).join(", ");

async function bitForBit(a: Model, b: Model) {
  const feeds = {
    ids: random(DataType.INT64, [1, 6], 1, 0, 9),
    pos: {
      dtype: DataType.INT64,
      shape: [1, 6],
      data: BigInt64Array.from([0n, 1n, 2n, 3n, 4n, 5n]),
    },
  };
  const [x, y] = [await runOrt(a, feeds), await runOrt(b, feeds)];
  expect(compareTensors(y.y!, x.y!, { rtol: 0, atol: 0 })).toBeUndefined();
}

describe("legalize-isnan", () => {
  it("IsNaN of a Softmax of bounded scores plus a finite mask is false; the Where gives its branch", async () => {
    const m = attention(rows(0.5));
    const r = runPass(legalizeIsNaN(noIsNaN), m);
    expect(r.ok && r.modified).toBe(true);
    if (!r.ok) return;
    const ops = r.model.graph.nodes.map((n) => n.opType);
    expect(ops).not.toContain("IsNaN");
    expect(ops.filter((o) => o === "Where")).toHaveLength(1);
    await bitForBit(m, r.model);
  });
  it("bounds: the norm is within √8 whatever the embeddings; a float input has none", () => {
    const b = finiteBounds(attention(rows(1e30)));
    expect(b.get("n")![1]).toBeLessThanOrEqual(2 * Math.sqrt(8) + 1e-9);
    expect(b.has("p")).toBe(true);
    expect(b.has("ids")).toBe(false);
  });
  it("is left where the value is not shown finite", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
g (float[4] x) => (bool[4] a, bool[4] b) <float big = {3e38}> {
  a = IsNaN (x)
  t = Tanh (x)
  s = Mul (t, big)
  d = Mul (s, big)
  b = IsNaN (d)
}`);
    const r = runPass(legalizeIsNaN(noIsNaN), m);
    expect(r.ok && r.model.graph.nodes.filter((n) => n.opType === "IsNaN")).toHaveLength(2);
  });
});
