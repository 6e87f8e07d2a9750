// eliminate-identity: Identity nodes removed, their readers reading the input; one that writes a
// graph output removed where a node of the graph computes its input (that node then writes the
// output), kept where its input is a graph input or another output.

import { describe, expect, it } from "vitest";

import { eliminateIdentity, runPass } from "../../src/passes/index.js";
import { parseModelText } from "../../src/text/parse.js";

const nodes = (text: string) => {
  const r = runPass(eliminateIdentity(), parseModelText(text));
  return r.ok && r.model.graph.nodes.map((n) => `${n.opType}(${n.inputs})->${n.outputs}`);
};

describe("eliminate-identity", () => {
  it("removes an Identity; one writing a graph output makes the node before it write the output", () => {
    expect(
      nodes(`<ir_version: 9, opset_import: ["" : 18]>
g (float[2] x) => (float[2] y, float[2] z) { t = Identity (x)
  u = Abs (t)
  y = Identity (u)
  z = Neg (u) }`),
    ).toEqual(["Abs(x)->y", "Neg(y)->z"]);
  });
  it("keeps one writing a graph output from a graph input or from another output", () => {
    expect(
      nodes(`<ir_version: 9, opset_import: ["" : 18]>
g (float[2] x) => (float[2] y, float[2] a, float[2] b) { y = Identity (x)
  a = Abs (x)
  b = Identity (a) }`),
    ).toEqual(["Identity(x)->y", "Abs(x)->a", "Identity(a)->b"]);
  });
});
