// legalize-row-max-guard: Attention-23's two guards against a fully masked row (row max -inf,
// row sum 0) made Max with the float32 extremes, for a target without Equal; the same bits on
// onnxruntime, a fully masked row included.

import { describe, expect, it } from "vitest";
import { compareTensors } from "../../src/interp/backend-test.js";
import { DataType } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeRowMaxGuard } from "../../src/passes/legalize-row-max-guard.js";
import { parseModelText } from "../../src/text/parse.js";
import { guardedAttention, embeddingValues } from "../helpers/attention.js";
import { random, runOrt } from "../helpers/ort.js";

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
});
