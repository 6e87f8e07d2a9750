// legalize-bool-data: bool tensors moved by ops the target runs, but not on bool, moved as 0 and
// 1 of a type it runs them on (onnxruntime-web's WebGPU Flatten, Gather, GatherND, Reshape take
// no bool): a BERT-style mask path (Cast of an int64 mask, Flatten, Gather, Reshape) and a
// decoder's (GatherND, Transpose, Concat, Pad, Expand), the same bools on onnxruntime, with the
// Casts between two moves gone; left where the target runs the op on bool.

import { describe, expect, it } from "vitest";
import { DataType } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeBoolData } from "../../src/passes/legalize-bool-data.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectSameOnOrt } from "../helpers/ort.js";

// WebGPU's: Cast between bool and int32/float, the moves on int32 and float only
const webgpuLike = {
  has: () => true,
  takes: (op: string, t: number) =>
    [DataType.INT32, DataType.FLOAT].includes(t) || (op === "Cast" && t === DataType.BOOL),
};

const masks = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (int64[1,6] mask, bool[2,3] c) => (bool[1,1,1,6] bert, bool[6,1] nd, bool[6,2] t, bool[3,2,3] e, bool[4,4] p) <
  int64[1,1,1,6] idx = {0, 1, 2, 3, 4, 5}, int64[4] shape = {1, 1, 1, 6},
  int64[6,1,2] ndi = {0, 5, 0, 4, 0, 3, 0, 2, 0, 1, 0, 0}, int64[3] big = {3, 2, 3},
  int64[4] pads = {1, 0, 1, 1}, bool pv = {1}> {
  b = Cast <to = 9> (mask)
  f = Flatten <axis = 2> (b)
  gat = Gather <axis = 0> (f, idx)
  bert = Reshape (gat, shape)
  nd = GatherND (b, ndi)
  tr = Transpose <perm = [1, 0]> (c)
  t = Concat <axis = 0> (tr, tr)
  e = Expand (c, big)
  p = Pad (c, pads, pv)
}`);

const feeds = {
  mask: {
    dtype: DataType.INT64,
    shape: [1, 6],
    data: BigInt64Array.from([0n, 1n, -3n, 0n, 9007199254740993n, 1n]),
  },
  c: { dtype: DataType.BOOL, shape: [2, 3], data: Uint8Array.from([1, 0, 0, 1, 1, 0]) },
};

describe("legalize-bool-data", () => {
  it("moves bool as int32 0/1 between Casts, the Casts between two moves gone: same bools on onnxruntime", async () => {
    const r = runPass(legalizeBoolData(webgpuLike), masks);
    expect(r.ok && r.modified).toBe(true);
    if (!r.ok) return;
    const types = new Map<string, number>();
    for (const n of r.model.graph.nodes)
      if (n.opType === "Cast") types.set(n.outputs[0]!, Number(n.attributes[0]!.value));
    // every move now reads int32 (a Cast's output or another move's)
    const moves = r.model.graph.nodes.filter((n) => n.opType !== "Cast");
    expect(moves.map((n) => n.opType).sort()).toEqual(
      ["Concat", "Expand", "Flatten", "Gather", "GatherND", "Pad", "Reshape", "Transpose"].sort(),
    );
    // Flatten → Gather → Reshape pass 0/1 on: one Cast to int32 before the chain, the mask's own
    const reshape = moves.find((n) => n.opType === "Reshape")!;
    const gather = moves.find((n) => n.opType === "Gather")!;
    expect(reshape.inputs[0]).toBe(gather.outputs[0]);
    // Pad's constant is cast too
    const pad = moves.find((n) => n.opType === "Pad")!;
    expect(types.get(pad.inputs[2]!)).toBe(DataType.INT32);
    await expectSameOnOrt(masks, r.model, feeds);
  });
  it("in float where the target's moves take no int32", async () => {
    const floatOnly = {
      has: () => true,
      takes: (op: string, t: number) =>
        t === DataType.FLOAT || (op === "Cast" && t === DataType.BOOL),
    };
    const r = runPass(legalizeBoolData(floatOnly), masks);
    expect(r.ok && r.modified).toBe(true);
    if (r.ok) await expectSameOnOrt(masks, r.model, feeds);
  });
  it("is left where the target runs the op on bool, or no Cast from bool", () => {
    const boolOk = runPass(legalizeBoolData({ has: () => true }), masks);
    expect(boolOk.ok && boolOk.modified).toBe(false);
    const noCast = { has: () => true, takes: (op: string) => op !== "Cast" };
    const r = runPass(legalizeBoolData(noCast), masks);
    expect(r.ok && r.modified).toBe(false);
  });
});
