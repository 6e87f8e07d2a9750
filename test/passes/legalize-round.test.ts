// legalize-round: Round of a clipped float32, for a target without Round, as an Add and a Sub of
// 1.5 · 2^23; the quantizing Round's saturation moved before it; the same bytes on onnxruntime.

import { describe, expect, it } from "vitest";
import { legalizeForTarget } from "../../src/passes/legalize.js";
import { runPass } from "../../src/passes/index.js";
import { parseModelText } from "../../src/text/parse.js";
import { QDQ, qdqFeeds as feeds, same, without } from "../helpers/legalize.js";

describe("legalize-round", () => {
  it("Round, for a target without it (NNAPI): an Add and a Sub of 1.5 · 2^23 on the clipped value; the same bytes", async () => {
    const { ops } = await same(
      QDQ,
      legalizeForTarget({ has: without("QuantizeLinear", "DequantizeLinear", "Round") }),
      feeds,
    );
    expect(ops.filter((o) => /Quantize|Round/.test(o))).toEqual([]);
    // A Round nothing clips, or whose zero's sign is seen, stays.
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x) => (float[3] y, float[3] z) <float lo = {-9}, float hi = {9}> {
  y = Round (x)
  c = Clip (x, lo, hi)
  z = Round (c)
}`);
    const r = runPass(legalizeForTarget({ has: without("Round") }), m);
    expect(r.ok && r.model.graph.nodes.filter((n) => n.opType === "Round")).toHaveLength(2);
  });
});
