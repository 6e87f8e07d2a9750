// legalize-cast-first: Cast(Move(x)) as Move(Cast(x)) where the target runs the move on the
// Cast's type only (a decoder's int64 position ids unsqueezed, then cast to float: onnxruntime-
// web's WebGPU Unsqueeze takes no int64), the same values on onnxruntime for int64 values beyond
// float's precision; left where the moved value has another reader, or the move takes the type.

import { describe, expect, it } from "vitest";
import { DataType } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeCastFirst } from "../../src/passes/legalize-cast-first.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectSameOnOrt } from "../helpers/ort.js";

// moves on float and int32 only, Cast on anything
const noInt64Moves = {
  has: () => true,
  takes: (op: string, t: number) => op === "Cast" || t !== DataType.INT64,
};

const positions = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (int64[1,5] pos) => (float[1,1,5] u, float[5,1] t, float[2,5] e, int64[1,5,1] kept) <
  int64[1] zero = {0}, int64[1] last = {-1}, int64[2] big = {2, 5}> {
  pu = Unsqueeze (pos, zero)
  u = Cast <to = 1> (pu)
  pt = Transpose <perm = [1, 0]> (pos)
  t = Cast <to = 1> (pt)
  pe = Expand (pos, big)
  e = Cast <to = 1> (pe)
  kept = Unsqueeze (pos, last)
  kf = Cast <to = 1> (kept)
}`);

const feeds = {
  pos: {
    dtype: DataType.INT64,
    shape: [1, 5],
    data: BigInt64Array.from([0n, 7n, -3n, 16777217n, 9007199254740993n]),
  },
};

describe("legalize-cast-first", () => {
  it("casts before the Unsqueeze, Transpose and Expand: the same floats on onnxruntime", async () => {
    const r = runPass(legalizeCastFirst(noInt64Moves), positions);
    expect(r.ok && r.modified).toBe(true);
    if (!r.ok) return;
    const casts = r.model.graph.nodes.filter((n) => n.opType === "Cast");
    // three Casts now read the graph's input; the one after the Unsqueeze whose value is an output stays
    expect(casts.filter((n) => n.inputs[0] === "pos")).toHaveLength(3);
    expect(casts.find((n) => n.outputs[0] === "kf")!.inputs[0]).toBe("kept");
    for (const o of ["u", "t", "e"]) {
      const p = r.model.graph.nodes.find((n) => n.outputs[0] === o)!;
      expect(p.opType).not.toBe("Cast");
    }
    await expectSameOnOrt(positions, r.model, feeds);
  });
  it("is left where the target runs the move on int64", () => {
    const r = runPass(legalizeCastFirst({ has: () => true }), positions);
    expect(r.ok && r.modified).toBe(false);
  });
});
