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

  it("drops the initializers nothing reads once their readers are gone; keeps those a subgraph, an output or an input names", () => {
    expectPass(
      removeDeadValues(),
      `<ir_version: 8, opset_import: ["" : 18]>
      g (bool c, float[2] x, float[2] w) => (float[2] y, float[2] z)
        <float[2] dead = {1, 2}, float[2] w = {3, 4}, float[2] inner = {5, 6}, float[2] z = {7, 8}, float[2] used = {9, 10}>
      {
        d = Add (x, dead)
        u = Mul (x, used)
        y = If (c) <
          then_branch = t () => (float[2] p) { p = Add (u, inner) },
          else_branch = e () => (float[2] q) { q = Add (u, w) }
        >
      }`,
      `<ir_version: 8, opset_import: ["" : 18]>
      g (bool c, float[2] x, float[2] w) => (float[2] y, float[2] z)
        <float[2] w = {3, 4}, float[2] inner = {5, 6}, float[2] z = {7, 8}, float[2] used = {9, 10}>
      {
        u = Mul (x, used)
        y = If (c) <
          then_branch = t () => (float[2] p) { p = Add (u, inner) },
          else_branch = e () => (float[2] q) { q = Add (u, w) }
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
