// convert-opset: the opset converter as a pass; a blocked conversion is a failure with a note
// per blocked node.

import { describe, expect, it } from "vitest";
import { convertPass } from "../../src/convert/index.js";
import { runPass } from "../../src/passes/manager.js";
import { passContext } from "../../src/passes/pass.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectPass } from "../helpers/pass.js";

describe("convert-opset", () => {
  it("converts ReduceSum-13 to 11 (constant axes become the attribute), an info note per step", () => {
    const r = expectPass(
      convertPass(11),
      `<ir_version: 8, opset_import: ["" : 13]>
      g (float[2,3] x) => (float[2] y) {
        axes = Constant <value = int64[1] {1}> ()
        y = ReduceSum <keepdims = 0> (x, axes)
      }`,
      `<ir_version: 6, opset_import: ["" : 11]>
      g (float[2,3] x) => (float[2] y) {
        y = ReduceSum <axes: ints = [1], keepdims: int = 0> (x)
      }`,
    );
    expect(r.notes.map((n) => n.level)).toEqual(["info"]);
    expect(r.notes[0]!.message).toMatch(/^ReduceSum 13 -> 11: /);
  });

  it("fails, naming each blocked node", () => {
    const m = parseModelText(`<ir_version: 10, opset_import: ["" : 29]>
      g (float[4] x) => (float[4] y, float[4] w) { [c1] y = LogCumSumExp (x)  [c2] w = LogCumSumExp (y) }`);
    const r = runPass(convertPass(28), m, passContext());
    expect(r.ok).toBe(false);
    expect(r.notes.map((n) => n.where)).toEqual([
      "graph > node 'c1' (LogCumSumExp)",
      "graph > node 'c2' (LogCumSumExp)",
    ]);
  });
});
