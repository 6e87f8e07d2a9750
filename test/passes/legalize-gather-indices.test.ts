// legalize-gather-indices: a Gather of computed int64 indices, which NNAPI refuses (int64 indices
// only as constants), with the indices cast to int32: the same elements on onnxruntime for every
// index in range, negative ones included; constant indices and int32 ones are left; and through
// `lower --target nnapi` an embedding of run-time token ids is taken, in one partition.

import { describe, expect, it } from "vitest";
import { lower } from "../../src/app/transform.js";
import { DataType, type Node } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeGatherIndices } from "../../src/passes/legalize-gather-indices.js";
import { loadProfile } from "../../src/targets/load.js";
import { parseModelText } from "../../src/text/parse.js";
import { runOrt } from "../helpers/ort.js";

const EMBED = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (int64[2,5] ids) => (float[2,5,4] y, float[3,2,5] z, float[2,4] k)
  <float[7,4] emb = {${Array.from({ length: 28 }, (_, i) => i / 4 - 3).join(", ")}},
   float[3,7] t = {${Array.from({ length: 21 }, (_, i) => 10 - i).join(", ")}}, int64[2] two = {1, -1}>
{
  y = Gather (emb, ids)
  z = Gather <axis = 1> (t, ids)
  k = Gather (emb, two)
}`);

describe("legalize-gather-indices", () => {
  it("casts computed int64 indices to int32; the same elements for every index in range", async () => {
    const refused = () => (n: Node) => n.opType === "Gather";
    const r = runPass(legalizeGatherIndices({ has: () => true, refuses: refused }), EMBED);
    if (!r.ok) throw new Error("pass failed");
    const casts = r.model.graph.nodes.filter((n) => n.opType === "Cast");
    expect(casts).toHaveLength(2); // the constant indices are left
    const ids = BigInt64Array.from({ length: 10 }, (_, i) => BigInt(i - 3)); // -3 … 6
    const feeds = { ids: { dtype: DataType.INT64, shape: [2, 5], data: ids } };
    const [a, b] = [await runOrt(EMBED, feeds), await runOrt(r.model, feeds)];
    for (const k of Object.keys(a))
      expect(Array.from(b[k]!.data as Float32Array), k).toEqual(
        Array.from(a[k]!.data as Float32Array),
      );
  });

  it("lower --target nnapi: the embedding is taken, one partition", async () => {
    const r = lower(EMBED, { profile: loadProfile("nnapi") });
    if (!r.ok) throw new Error("lower failed");
    expect(r.report.nodes.filter((n) => n.verdict !== "supported").map((n) => n.op)).toEqual([]);
    expect(r.report.partitions.count).toBe(1);
    const feeds = {
      ids: {
        dtype: DataType.INT64,
        shape: [2, 5],
        data: BigInt64Array.from([0n, 6n, 3n, -1n, 2n, 5n, 4n, 1n, -7n, 0n]),
      },
    };
    const [a, b] = [await runOrt(EMBED, feeds), await runOrt(r.model, feeds)];
    for (const k of Object.keys(a))
      expect(Array.from(b[k]!.data as Float32Array), k).toEqual(
        Array.from(a[k]!.data as Float32Array),
      );
  });
});
