// The model summary (`info`, the page's summary): nodes and op counts at every depth, subgraphs.

import { describe, expect, it } from "vitest";
import { modelInfo } from "../../src/ir/info.js";
import { parseModelText } from "../../src/text/parse.js";

const MODEL = `
<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
main (bool cond, int64 trip, float[2] x) => (float[2] r, float[2] final, float[2] l) {
  r = If (cond) <
    then_branch: graph = then_g () => (float[2] t) {
      t = If (cond) <then_branch: graph = inner () => (float[2] u) { u = Neg (x) }, else_branch: graph = inner2 () => (float[2] u) { u = Abs (x) }>
    },
    else_branch: graph = else_g () => (float[2] e) { e = Identity (x) }
  >
  final = Loop (trip, cond, x) <body: graph = body (int64 it, bool c_in, float[2] acc) => (bool c_out, float[2] acc_out) {
    c_out = Identity (c_in)
    acc_out = Add (acc, x)
  }>
  l = local.Pick (cond, x)
}
<domain: "local", opset_import: ["" : 18]>
Pick (c, v) => (w) {
  w = If (c) <then_branch: graph = a () => (float[2] p) { p = Neg (v) }, else_branch: graph = b () => (float[2] q) { q = Identity (v) }>
}
`;

describe("modelInfo", () => {
  it("counts every node and op at every depth, functions included, and every subgraph", () => {
    const info = modelInfo(parseModelText(MODEL), 0);
    // Main graph 3, its subgraphs 1 + 1 + 1 + 1 + 2, the function 1 and its branches 2.
    expect(info.nodes).toBe(12);
    expect(info.subgraphs).toBe(7);
    expect(info.ops).toEqual({
      If: 3,
      Identity: 3,
      Neg: 2,
      Abs: 1,
      Add: 1,
      Loop: 1,
      "local.Pick": 1,
    });
    expect(info.functions).toEqual(["local.Pick"]);
  });
});
