// lower-older-versions: a version without a body lowered through the later version that has one.

import { describe, expect, it } from "vitest";
import { lowerOlderVersions } from "../../src/expand/lower-older-versions.js";
import { expectPass } from "../helpers/pass.js";

describe("lower-older-versions", () => {
  it("lowers ReduceLogSum-13 through ReduceLogSum-18's body, at the model's opset", () => {
    const r = expectPass(
      lowerOlderVersions(),
      `<ir_version: 8, opset_import: ["" : 13]>
      g (float[2,3] x) => (float[2] y) { y = ReduceLogSum <axes = [1], keepdims = 0> (x) }`,
      // ReduceSum-13 takes its axes as an input: a constant, put in before it.
      `<ir_version: 8, opset_import: ["" : 13]>
      g (float[2,3] x) => (float[2] y) {
        [n0] axes = Constant <value = int64[1] {1}> ()
        [n1] s = ReduceSum <keepdims: int = 0, noop_with_empty_axes: int = 0> (x, axes)
        [n2] y = Log (s)
      }`,
      { low: 0.5, high: 3 },
    );
    expect(r.notes).toEqual([{ level: "info", message: "expanded 1 call", calls: 1 }]);
  });

  it("leaves schema function ops for expand-schema-functions", () => {
    const same = `<ir_version: 8, opset_import: ["" : 18]>
      g (float[3] x) => (float[3] y) { y = Celu (x) }`;
    expect(expectPass(lowerOlderVersions(), same, same).modified).toBe(false);
  });

  it("without the converter, leaves the node with a warning", () => {
    const same = `<ir_version: 8, opset_import: ["" : 13]>
      g (float[2,3] x) => (float[2,3] y) { y = ReduceLogSum (x) }`;
    const r = expectPass(lowerOlderVersions({ converter: null }), same, same, { low: 0.5 });
    expect(r.notes.map((n) => n.message).join("\n")).toMatch(
      /ReduceLogSum-13 is not a function; it expands through ReduceLogSum-18/,
    );
  });
});
