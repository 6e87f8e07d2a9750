// flatten-to-reshape: Flatten becomes a Reshape to the same two dims (a dim not known kept by 0
// before axis 1), the same numbers on onnxruntime; a Flatten whose dims are not known enough is
// left; `lower --target coreml` (no Flatten in its ML Program table) runs it.

import { describe, expect, it } from "vitest";
import { lower } from "../../src/app/transform.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import { DataType } from "../../src/ir/types.js";
import { flattenToReshape, runPass } from "../../src/passes/index.js";
import { loadProfile } from "../../src/targets/load.js";
import { parseModelText } from "../../src/text/parse.js";
import { random, runOrt } from "../helpers/ort.js";

const MODEL = `<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4,5] x, float[N,3,1,1] p, float[N,M,2] q) => (float[6,20] a, float[N,3] b, float[2,60] c, float[?,?] d) {
  a = Flatten <axis = 2> (x)
  b = Flatten (p)
  c = Flatten <axis = -3> (x)
  d = Flatten <axis = 2> (q)
}`;

describe("flatten-to-reshape", () => {
  it("makes Reshapes to the same dims, leaves what it cannot know; same numbers", async () => {
    const m = parseModelText(MODEL);
    const r = runPass(flattenToReshape(), m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const g = r.model.graph;
    expect(g.nodes.map((n) => n.opType)).toEqual(["Reshape", "Reshape", "Reshape", "Flatten"]);
    const shapes = g.nodes
      .filter((n) => n.opType === "Reshape")
      .map((n) => g.initializers.find((t) => t.name === n.inputs[1])!.numbers());
    expect(shapes).toEqual([
      [6, 20],
      [0, 3],
      [2, 60],
    ]);
    const feeds = {
      x: random(DataType.FLOAT, [2, 3, 4, 5], 1),
      p: random(DataType.FLOAT, [4, 3, 1, 1], 2),
      q: random(DataType.FLOAT, [2, 3, 2], 3),
    };
    const [a, b] = [await runOrt(m, feeds), await runOrt(r.model, feeds)];
    for (const k of ["a", "b", "c", "d"]) {
      expect(b[k]!.shape, k).toEqual(a[k]!.shape);
      expect(compareTensors(b[k]!, a[k]!, { rtol: 0, atol: 0 }), k).toBeUndefined();
    }
  });

  it("lower --target coreml: no Flatten left", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[1,8,1,1] x) => (float[1,8] y) { y = Flatten (x) }`);
    const r = lower(m, { profile: loadProfile("coreml") });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.model.graph.nodes.map((n) => n.opType)).toEqual(["Reshape"]);
    expect(r.report.nodes.every((n) => n.verdict === "supported")).toBe(true);
  });
});
