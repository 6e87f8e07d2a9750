// legalize-compare: integer comparisons against small constants, and the Not/And/Or over them,
// as a 0/1 float mask for a target without them (CoreML, NNAPI); the same bits on onnxruntime,
// extreme int64 values included.

import { describe, expect, it } from "vitest";
import type { RTensor } from "../../src/interp/types.js";
import { DataType } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeForTarget } from "../../src/passes/legalize.js";
import { parseModelText } from "../../src/text/parse.js";
import { same, without } from "../helpers/legalize.js";
import { random } from "../helpers/ort.js";

describe("legalize-compare", () => {
  // Key-length and raw masks as the attention bodies write them, on extreme int64 values too.
  const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (int64[6] len, int64[6,5] mask, float[6,5] s) => (float[6,5] y, int32[6] n, bool[6,5] gt, bool[6,5] ge, bool[6,5] le, float[6,5] z)
  <int64[1,5] t = {0, 1, 2, 3, 4}, int64 zero = {0}, int64[1] ax = {1}, float fz = {0}, float filter = {-10000}, float ninf = {-inf}>
{
  l = Unsqueeze (len, ax)
  keep = Less (t, l)
  w = Where (keep, fz, filter)
  y = Add (s, w)
  e = Equal (mask, zero)
  ne = Not (e)
  c = Cast <to = 6> (ne)
  n = ReduceSum <keepdims = 0> (c, ax)
  gt = Greater (t, l)
  ge = GreaterOrEqual (t, l)
  le = LessOrEqual (l, t)
  both = And (keep, ne)
  w2 = Where (both, fz, ninf)
  z = Add (s, w2)
}`);
  const big = 2n ** 62n;
  const feeds = {
    len: {
      dtype: DataType.INT64,
      shape: [6],
      data: new BigInt64Array([-(2n ** 63n), big + 1n, 3n, -1n, 5n, 0n]),
    } as RTensor,
    mask: {
      dtype: DataType.INT64,
      shape: [6, 5],
      data: BigInt64Array.from({ length: 30 }, (_, i) =>
        i % 7 === 0 ? -(2n ** 63n) : i % 5 === 1 ? big : BigInt((i * 3) % 4) - 1n,
      ),
    } as RTensor,
    s: random(DataType.FLOAT, [6, 5], 4),
  };
  const LOGIC = ["Less", "Greater", "GreaterOrEqual", "LessOrEqual", "Equal", "Not", "And"];
  it("CoreML's case (Where kept): comparisons against small constants as a float mask; same bits", async () => {
    const { ops } = await same(m, legalizeForTarget({ has: without(...LOGIC) }), feeds);
    for (const op of LOGIC) expect(ops).not.toContain(op);
    expect(ops).toContain("Where");
  });
  it("NNAPI's case (no Where): a -inf mask as Log of the mask; same bits", async () => {
    const { ops } = await same(m, legalizeForTarget({ has: without("Where", ...LOGIC) }), feeds);
    for (const op of ["Where", ...LOGIC]) expect(ops).not.toContain(op);
    expect(ops).toContain("Log");
  });
  it("leaves comparisons of two run-time integers, and of floats", () => {
    const m2 = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (int64[4] a, int64[4] b, float[4] x) => (bool[4] y, bool[4] z) <float h = {0.5}> { y = Less (a, b) z = Less (x, h) }`);
    const r = runPass(legalizeForTarget({ has: without("Less") }), m2);
    expect(r.ok && r.model.graph.nodes.map((n) => n.opType)).toEqual(["Less", "Less"]);
  });
});
