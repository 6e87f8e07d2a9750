// remove-dead-values: nodes whose outputs nothing uses removed (graph, subgraphs, functions).

import { describe, expect, it } from "vitest";
import { removeDeadValues } from "../../src/passes/remove-dead-values.js";
import { expectPass } from "../helpers/pass.js";

describe("remove-dead-values", () => {
  it("removes chains of unused nodes, keeps what a subgraph reads from outside", () => {
    expectPass(
      removeDeadValues(),
      `<ir_version: 8, opset_import: ["" : 18]>
      g (bool c, float[2] x) => (float[2] y) {
        d1 = Neg (x)
        d2 = Abs (d1)
        k = Exp (x)
        y = If (c) <
          then_branch = t () => (float[2] p) { unused = Neg (k)  p = Identity (k) },
          else_branch = e () => (float[2] q) { q = Neg (x) }
        >
      }`,
      `<ir_version: 8, opset_import: ["" : 18]>
      g (bool c, float[2] x) => (float[2] y) {
        k = Exp (x)
        y = If (c) <
          then_branch = t () => (float[2] p) { p = Identity (k) },
          else_branch = e () => (float[2] q) { q = Neg (x) }
        >
      }`,
      { inputs: {} },
    );
  });

  it("prunes a local function's body to what its outputs need", () => {
    expectPass(
      removeDeadValues(),
      `<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
      g (float[2] x) => (float[2] y) { y = local.F (x) }
      < domain: "local", opset_import: ["" : 18] >
      F (a) => (b) { u = Abs (a)  b = Neg (a) }`,
      `<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
      g (float[2] x) => (float[2] y) { y = local.F (x) }
      < domain: "local", opset_import: ["" : 18] >
      F (a) => (b) { b = Neg (a) }`,
    );
  });

  it("changes nothing when every node is used", () => {
    const same = `<ir_version: 8, opset_import: ["" : 18]>
      g (float[2] x) => (float[2] y) { t = Neg (x)  y = Abs (t) }`;
    expect(expectPass(removeDeadValues(), same, same).modified).toBe(false);
  });
});
