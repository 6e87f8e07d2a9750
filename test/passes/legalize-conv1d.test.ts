// legalize-conv1d: a 1D Conv the target refuses (NNAPI takes only 2D) made a 2D Conv over a dim
// of 1 between an Unsqueeze and a Squeeze, the weight stored again with the same bytes; for
// pads, strides, dilations, groups, a bias and auto_pad the same bits in the interpreter and
// onnxruntime's numbers within its rounding; and through `lower --target nnapi`, every Conv
// taken.

import { describe, expect, it } from "vitest";
import { lower } from "../../src/app/transform.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import { run } from "../../src/interp/executor.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType, type Model, type Node } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeConv1d } from "../../src/passes/legalize-conv1d.js";
import { loadProfile } from "../../src/targets/load.js";
import { parseModelText } from "../../src/text/parse.js";
import { random, runOrt } from "../helpers/ort.js";

const weights = (n: number) =>
  Array.from({ length: n }, (_, i) => (((i * 29) % 23) - 11) / 8).join(", ");

// Two 1D Convs as an audio encoder's stem has them (kernel 3, pads 1; the second strided 2),
// a dilated grouped one with no bias, and one with auto_pad.
const STEM = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[1,4,20] x) => (float[1,6,10] y, float[1,6,6] z, float[1,6,10] u)
  <float[6,4,3] w1 = {${weights(72)}}, float[6] b1 = {0.5, -0.25, 0, 1, -1, 0.125},
   float[6,6,3] w2 = {${weights(108)}}, float[6] b2 = {0, 0.1, 0.2, 0.3, 0.4, 0.5},
   float[6,3,2] w3 = {${weights(36)}}, float[6,6,3] w4 = {${weights(108)}}>
{
  h = Conv <kernel_shape = [3], pads = [1, 1]> (x, w1, b1)
  y = Conv <kernel_shape = [3], pads = [1, 1], strides = [2]> (h, w2, b2)
  z = Conv <dilations = [2], group = 2> (y, w3)
  u = Conv <auto_pad = "SAME_UPPER"> (y, w4)
}`);

const conv = () => (n: Node) => n.opType === "Conv";

/**
 * The same bits in the interpreter (the same products summed in the same order); on onnxruntime,
 * whose 1D and 2D kernels order the sum differently, within float32 rounding (norm-wise).
 */
async function same(a: Model, b: Model) {
  const feeds: Record<string, RTensor> = { x: random(DataType.FLOAT, [1, 4, 20], 5) };
  const [ia, ib] = [run(a, feeds), run(b, feeds)];
  const [ra, rb] = [await runOrt(a, feeds), await runOrt(b, feeds)];
  for (const k of Object.keys(ra)) {
    expect(rb[k]!.shape, k).toEqual(ra[k]!.shape);
    expect(Array.from(ib[k]!.data as Float32Array), k).toEqual(
      Array.from(ia[k]!.data as Float32Array),
    );
    expect(compareTensors(rb[k]!, ra[k]!, { rtol: 0, atol: 0, normRtol: 1e-6 }), k).toBeUndefined();
  }
}

describe("legalize-conv1d", () => {
  it("makes each refused 1D Conv a 2D Conv over a dim of 1, the same numbers", async () => {
    const r = runPass(legalizeConv1d({ has: () => true, refuses: conv }), STEM);
    if (!r.ok) throw new Error("pass failed");
    const convs = r.model.graph.nodes.filter((n) => n.opType === "Conv");
    expect(convs).toHaveLength(4);
    const dims = new Map(r.model.graph.initializers.map((t) => [t.name, t.dims] as const));
    for (const c of convs) expect(dims.get(c.inputs[1]!)?.length).toBe(4);
    await same(STEM, r.model);
  });

  it("leaves a Conv the target takes, and does nothing without the target's judgement", () => {
    const taken = runPass(legalizeConv1d({ has: () => true, refuses: () => () => false }), STEM);
    expect(taken.ok && taken.modified).toBe(false);
    const unjudged = runPass(legalizeConv1d({ has: () => true }), STEM);
    expect(unjudged.ok && unjudged.modified).toBe(false);
  });

  it("lower --target nnapi takes every Conv of the stem", async () => {
    const r = lower(STEM, { profile: loadProfile("nnapi") });
    if (!r.ok) throw new Error("lower failed");
    expect(r.report.nodes.filter((n) => n.verdict !== "supported").map((n) => n.op)).toEqual([]);
    expect(r.report.partitions.count).toBe(1);
    await same(STEM, r.model);
  });
});
