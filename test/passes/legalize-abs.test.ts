// legalize-abs: Abs, for a target without it (CoreML), as Relu(x) + Relu(-x); the same bits as
// Abs in the interpreter and on onnxruntime, zeros of either sign, infinities and NaN included.

import { describe, expect, it } from "vitest";
import { run } from "../../src/interp/executor.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeForTarget } from "../../src/passes/legalize.js";
import { parseModelText } from "../../src/text/parse.js";
import { same, without } from "../helpers/legalize.js";

const M = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[12] x, int32[3] i) => (float[12] y, float r, int32[3] j) {
  y = Abs (x)
  r = ReduceMax <keepdims: int = 0> (y)
  j = Abs (i)
}`);
const xs = [-0, 0, 1.5, -1.5, -3e38, 3e38, -Infinity, Infinity, 1e-45, -1e-45, -7, NaN];
const feeds = {
  x: { dtype: DataType.FLOAT, shape: [12], data: new Float32Array(xs) } as RTensor,
  i: { dtype: DataType.INT32, shape: [3], data: new Int32Array([-5, 0, 9]) } as RTensor,
};
const bits = (t: RTensor) =>
  Array.from(new Uint32Array(new Float32Array(t.data as Float32Array).buffer));

describe("legalize-abs", () => {
  it("a float Abs as Relu(x) + Relu(x · -1): the same bits on onnxruntime and in the interpreter", async () => {
    const pass = legalizeForTarget({ has: without("Abs") });
    const { ops, model } = await same(M, pass, feeds);
    // the float Abs goes; the int32 one stays (its rewrite is not written)
    expect(ops.filter((o) => o === "Abs")).toHaveLength(1);
    expect(ops).toContain("Relu");
    const [a, b] = [run(M, feeds), run(model, feeds)];
    expect(bits(b.y!)).toEqual(bits(a.y!));
    // +0 for both zeros, as Abs gives
    expect(bits(b.y!).slice(0, 2)).toEqual([0, 0]);
    expect(Array.from(b.j!.data as Int32Array)).toEqual([5, 0, 9]);
  });

  it("stays where the target lacks Relu", () => {
    const r = runPass(legalizeForTarget({ has: without("Abs", "Relu") }), M);
    expect(r.ok && r.model.graph.nodes.filter((n) => n.opType === "Abs")).toHaveLength(2);
  });
});
