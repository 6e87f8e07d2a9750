// Versions that are not functions but whose later version is: converted up, expanded, and the
// body converted back to the model's opset.

import { describe, expect, it } from "vitest";
import { parseModelText } from "../../src/text/parse.js";
import { f32 } from "../helpers/interp.js";
import { expand, expectSameRun, opsOf } from "../helpers/expand.js";
import { runOrt } from "../helpers/ort.js";
import { run } from "../../src/interp/index.js";
import { compareTensors } from "../../src/interp/backend-test.js";

const x = f32(
  [2, 3, 4],
  Array.from({ length: 24 }, (_, i) => 0.25 + ((i * 7) % 11) * 0.5),
);

describe("expand: older versions through the converter", () => {
  for (const opset of [1, 11, 13])
    it(`ReduceLogSum, ReduceL1, ReduceL2, ReduceLogSumExp, ReduceSumSquare at opset ${opset}`, async () => {
      const axes = opset >= 11 ? "[-1]" : "[2]";
      const text = `
        < ir_version: ${opset >= 13 ? 7 : opset >= 11 ? 6 : 3}, opset_import: ["" : ${opset}] >
        g (float[2,3,4] x) => (float[2,3] a, float[2,3,1] b, float[1,1,1] c, float[2,1,4] d, float[2,3] e) {
          a = ReduceLogSum <axes: ints = ${axes}, keepdims: int = 0> (x)
          b = ReduceL1 <axes: ints = ${axes}> (x)
          c = ReduceL2 (x)
          d = ${opset >= 10 ? "ReduceLogSumExp" : "ReduceL2"} <axes: ints = [1]> (x)
          e = ReduceSumSquare <axes: ints = ${axes}, keepdims: int = 0> (x)
        }`;
      const before = parseModelText(text);
      const r = expand(before);
      const ops = new Set(opsOf(r.model));
      for (const op of [
        "ReduceLogSum",
        "ReduceL1",
        "ReduceL2",
        "ReduceLogSumExp",
        "ReduceSumSquare",
      ])
        expect(ops.has(op), op).toBe(false);
      expect(r.model.opsetImports).toEqual([{ domain: "", version: opset }]);
      // ReduceSum takes axes as an input from 13 on, as an attribute before.
      for (const s of r.model.graph.nodes.filter((n) => n.opType === "ReduceSum")) {
        if (opset >= 13) expect(s.attributes.map((a) => a.name)).not.toContain("axes");
        else expect(s.inputs.length).toBe(1);
      }
      expectSameRun(before, r.model, { x }, 1e-5);
      // onnxruntime has no kernels for opset 1's elementwise ops (Log-1, Abs-1, ...).
      if (opset < 7) return;
      const want = run(before, { x });
      const got = await runOrt(r.model, { x });
      for (const o of before.graph.outputs)
        expect(
          compareTensors(got[o.name]!, want[o.name]!, { rtol: 1e-5, atol: 1e-6 }),
          o.name,
        ).toBeUndefined();
    });

  it("leaves a call whose body the model's opset cannot express, with a warning; refuses it under --only", () => {
    const text = `< ir_version: 4, opset_import: ["" : 9] >
        g (float[2,3] x) => (float[2] y) { y = ReduceLogSumExp <axes: ints = [1], keepdims: int = 0> (x) }`;
    const r = expand(text);
    expect(opsOf(r.model)).toEqual(["ReduceLogSumExp"]);
    expect(r.modified).toBe(false);
    expect(r.notes.map((n) => `${n.level}: ${n.message}`).join("\n")).toMatch(
      /warning: left as it is: cannot convert to opset 9: .*IsInf does not exist before opset 10/,
    );
    expect(() => expand(text, { only: [{ domain: "", op: "ReduceLogSumExp" }] })).toThrow(
      /node #0 \(ReduceLogSumExp\): cannot convert to opset 9: .*IsInf does not exist before opset 10/,
    );
  });

  it("without a converter, an older version is left as it is with a warning", () => {
    const r = expand(
      `< ir_version: 7, opset_import: ["" : 13] >
       g (float[2,3] x) => (float[2] y) { y = ReduceLogSum <axes: ints = [1], keepdims: int = 0> (x) }`,
      { converter: null },
    );
    expect(opsOf(r.model)).toEqual(["ReduceLogSum"]);
    expect(r.notes.map((n) => n.message).join("\n")).toMatch(
      /ReduceLogSum-13 is not a function; it expands through ReduceLogSum-18, which needs the opset converter/,
    );
  });
});
