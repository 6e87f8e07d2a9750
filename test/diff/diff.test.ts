// The structural diff: matched by structure, not by position or generated names.

import { describe, expect, it } from "vitest";
import { diffModels, formatDiff } from "../../src/diff/index.js";
import { parseModelText } from "../../src/text/parse.js";
import { expand } from "../helpers/expand.js";

const BEFORE = `
  < ir_version: 9, opset_import: ["" : 18] >
  g (float[2,3] x) => (float[2] a, float[2,1] b, float[2,3] y) {
    ax = Constant <value_ints: ints = [1]> ()
    a = ReduceLogSum <keepdims: int = 0> (x, ax)
    b = ReduceL1 (x, ax)
    n = Neg (x)
    y = Exp (n)
  }`;

describe("diff", () => {
  it("shows no change for the same model, and for one with nodes reordered and renamed", () => {
    const a = parseModelText(BEFORE);
    expect(diffModels(a, a).same).toBe(true);
    const b = parseModelText(
      BEFORE.replace("    n = Neg (x)\n    y = Exp (n)\n", "").replace(
        "ax = Constant",
        "neg_out = Neg (x)\n    y = Exp (neg_out)\n    ax = Constant",
      ),
    );
    const d = diffModels(a, b);
    expect(d.graph.hunks).toEqual([]);
    expect(d.same).toBe(true);
  });

  it("shows each expanded call as one node replaced by its body", () => {
    const a = parseModelText(BEFORE);
    const b = expand(a).model;
    const d = diffModels(a, b);
    expect(d.same).toBe(false);
    expect(d.graph.matched).toBe(3); // Constant, Neg, Exp
    expect(
      d.graph.hunks.map((h) => [h.removed.map((r) => r.op), h.added.map((r) => r.op)]),
    ).toEqual([
      [["ReduceLogSum"], ["ReduceSum", "Log"]],
      [["ReduceL1"], ["Abs", "ReduceSum"]],
    ]);
    const text = formatDiff(d, { a: "before", b: "after" });
    expect(text).toContain(
      "  ~ a = ReduceLogSum <keepdims: int = 0> (x, ax)\n      replaced by 2 nodes:",
    );
    expect(text).toMatch(/5 -> 7 nodes: 3 matched, 2 removed, 4 added, 0 changed/);
  });

  it("reports changed attributes, opset imports, initializers and removed functions", () => {
    const a = parseModelText(`
      < ir_version: 9, opset_import: ["" : 18, "local" : 1] >
      g (float[2,3] x) => (float[2,3] y, float[2,3] z) <float[1] w = {2.0}> {
        s = Softmax <axis: int = 0> (x)
        y = Mul (s, w)
        z = local.F (x)
      }
      < domain: "local", opset_import: ["" : 18] >
      F (p) => (q) { q = Neg (p) }`);
    const b = parseModelText(`
      < ir_version: 9, opset_import: ["" : 19] >
      g (float[2,3] x) => (float[2,3] y, float[2,3] z) <float[1] w = {2.0}, float[1] extra = {1.0}> {
        s = Softmax <axis: int = 1> (x)
        y = Mul (s, w)
        z = Neg (x)
      }`);
    const d = diffModels(a, b);
    expect(d.opsetImports).toEqual([
      { domain: "", a: 18, b: 19 },
      { domain: "local", a: 1 },
    ]);
    expect(d.functions).toEqual([{ name: "local.F", change: "removed" }]);
    expect(d.graph.changed.map((c) => [c.a.op, c.removed, c.added])).toEqual([
      ["Softmax", ["axis: int = 0"], ["axis: int = 1"]],
    ]);
    expect(d.graph.initializers).toEqual([{ name: "extra", b: "1[1]" }]);
    const text = formatDiff(d);
    expect(text).toContain("~ opset ai.onnx 18 -> 19");
    expect(text).toContain("- function local.F");
    expect(text).toContain("      - axis: int = 0\n      + axis: int = 1");
  });

  it("looks into subgraphs of matched nodes", () => {
    const src = (op: string) => `
      < ir_version: 9, opset_import: ["" : 18] >
      g (float[2] x, bool c) => (float[2] y) {
        y = If (c) <
          then_branch: graph = th () => (float[2] r) { r = ${op} (x) },
          else_branch: graph = el () => (float[2] r2) { r2 = Identity (x) }
        >
      }`;
    const d = diffModels(parseModelText(src("Neg")), parseModelText(src("Abs")));
    expect(d.graph.changed.length).toBe(1);
    const sub = d.graph.changed[0]!.subgraphs;
    expect(sub.map((s) => s.attribute)).toEqual(["then_branch"]);
    expect(sub[0]!.diff.hunks.map((h) => [h.removed[0]!.op, h.added[0]!.op])).toEqual([
      ["Neg", "Abs"],
    ]);
  });
});
