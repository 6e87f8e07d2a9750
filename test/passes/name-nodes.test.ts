// name-nodes: unnamed nodes named after their op, unique across a graph and its subgraphs and
// within a function's body; named nodes, values and outputs unchanged.

import { describe, expect, it } from "vitest";
import { nameNodes } from "../../src/passes/name-nodes.js";
import { expectPass } from "../helpers/pass.js";

describe("name-nodes", () => {
  it("names unnamed nodes by op, numbered where taken, in subgraphs and functions too", () => {
    const r = expectPass(
      nameNodes(),
      `<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
      g (float[2] x, bool c) => (float[2] y) {
        [Relu] a = Relu (x)
        b = Relu (a)
        y = If (c) <
          then_branch = t () => (float[2] u) { u = Neg (b) },
          else_branch = e () => (float[2] v) { v = local.F (b) }
        >
      }
      < domain: "local", opset_import: ["" : 18] >
      F (p) => (q) { q = Neg (p) }`,
      `<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
      g (float[2] x, bool c) => (float[2] y) {
        [Relu] a = Relu (x)
        [Relu_1] b = Relu (a)
        [If] y = If (c) <
          then_branch = t () => (float[2] u) { [Neg] u = Neg (b) },
          else_branch = e () => (float[2] v) { [F] v = local.F (b) }
        >
      }
      < domain: "local", opset_import: ["" : 18] >
      F (p) => (q) { [Neg] q = Neg (p) }`,
    );
    expect(r.modified).toBe(true);
    const [g] = [r.model.graph];
    expect(g.nodes.map((n) => n.name)).toEqual(["Relu", "Relu_1", "If"]);
  });

  it("a model whose nodes all have names is given back as it is", () => {
    const same = `<ir_version: 8, opset_import: ["" : 18]>
      g (float[2] x) => (float[2] y) { [n] y = Neg (x) }`;
    expect(expectPass(nameNodes(), same, same).modified).toBe(false);
  });
});
