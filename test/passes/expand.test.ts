// expand: the expander as one pass (expand/pipeline.ts): validate-model, inline-local-functions,
// remove-unused-functions, lower-older-versions, expand-schema-functions, and, when anything
// changed, trim-opset-imports; "expanded N calls" summed over its steps; with a target op list,
// its postcondition fails naming each node left that the backend lacks.

import { describe, expect, it } from "vitest";
import { expandPipeline } from "../../src/expand/pipeline.js";
import { parseTargetOps } from "../../src/expand/select.js";
import { runPass } from "../../src/passes/manager.js";
import { passContext } from "../../src/passes/pass.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectPass } from "../helpers/pass.js";

describe("expand", () => {
  it("inlines a local function and the schema function op inside it, sums the calls, drops the function", () => {
    const r = expectPass(
      expandPipeline({ origin: false }),
      `<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
      g (float[2,3] x) => (float[2] y) { y = local.F (x) }
      < domain: "local", opset_import: ["" : 18] >
      F (a) => (b) {
        axes = Constant <value: tensor = int64[1] {1}> ()
        b = ReduceL1 <keepdims: int = 0> (a, axes)
      }`,
      `<ir_version: 8, opset_import: ["" : 18]>
      g (float[2,3] x) => (float[2] y) {
        [n1] axes = Constant <value: tensor = int64[1] {1}> ()
        [n2] abs = Abs (x)
        [n3] y = ReduceSum <keepdims: int = 0, noop_with_empty_axes: int = 0> (abs, axes)
      }`,
    );
    expect(r.notes.map((n) => n.message)).toEqual(["expanded 2 calls"]);
  });

  it("changes nothing in a model without function ops (not modified, imports as they were)", () => {
    const same = `<ir_version: 8, opset_import: ["" : 18, "com.unused" : 1]>
      g (float[2] x) => (float[2] y) { y = Neg (x) }`;
    expect(expectPass(expandPipeline(), same, same).modified).toBe(false);
  });

  it("with a target op list, fails in its postcondition naming what the backend lacks", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
      g (float[2,3] x) => (float[2] y) { [r] y = ReduceL1 <keepdims: int = 0> (x, axes)
        axes = Constant <value: tensor = int64[1] {1}> () }`);
    const r = runPass(
      expandPipeline({ targetOps: parseTargetOps("Constant\nReduceSum\n") }),
      m,
      passContext(),
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r).toMatchObject({ pass: "expand", stage: "ensures" });
    expect(r.notes.filter((n) => n.level === "error")).toEqual([
      {
        level: "error",
        where: "graph > node 'r__Abs' (Abs)",
        message:
          "Abs-13 is not in the target op list and cannot be lowered to it (not a function op)",
      },
    ]);
  });
});
