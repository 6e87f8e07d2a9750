// expectPass (test/helpers/pass.ts) accepts a right pass whatever fresh names it picks, and fails
// on a wrong graph, a wrong computation, a renamed interface, a mutated input and a silent change.

import { describe, expect, it } from "vitest";
import { NameScope } from "../../src/ir/graph.js";
import type { Model, Node } from "../../src/ir/types.js";
import type { Pass } from "../../src/passes/pass.js";
import { canonicalNames, expectPass } from "../helpers/pass.js";
import { parseModelText } from "../../src/text/parse.js";
import { printModel } from "../../src/text/print.js";

/** Sub(a, b) becomes Add(a, Neg(b)); `wrong` forgets the Neg's effect by negating a instead. */
function subToAddNeg(wrong = false, opts: { mutate?: boolean; quiet?: boolean } = {}): Pass {
  return {
    name: "sub-to-add-neg",
    run(model: Model) {
      const scope = new NameScope(model.graph);
      let changed = false;
      const nodes = model.graph.nodes.flatMap((n): Node[] => {
        if (n.opType !== "Sub") return [n];
        changed = true;
        const [a, b] = n.inputs as [string, string];
        const neg = scope.fresh("negated");
        return [
          { opType: "Neg", domain: "", inputs: [wrong ? a : b], outputs: [neg], attributes: [] },
          { ...n, opType: "Add", inputs: [a, neg] },
        ];
      });
      if (opts.mutate) model.graph.nodes = nodes;
      const out = { ...model, graph: { ...model.graph, nodes } };
      return { ok: true, model: out, modified: opts.quiet ? false : changed, notes: [] };
    },
  };
}

const before = `
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2,3] x, float[2,3] y) => (float[2,3] z) {
    d = Sub (x, y)
    z = Relu (d)
  }`;

// The pass names its new value "negated"; the expected text says "t": only a fresh name differs.
const after = `
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2,3] x, float[2,3] y) => (float[2,3] z) {
    t = Neg (y)
    d = Add (x, t)
    z = Relu (d)
  }`;

describe("expectPass", () => {
  it("accepts the right result whatever names the pass introduced", () => {
    const r = expectPass(subToAddNeg(), before, after);
    expect(r.modified).toBe(true);
  });

  it("fails when the graph differs from the expected one", () => {
    const other = after.replace("t = Neg (y)", "t = Neg (x)");
    expect(() => expectPass(subToAddNeg(), before, other)).toThrow(/the model it gives/);
  });

  it("fails when the result computes something else, even if it is the expected graph", () => {
    const wrongAfter = after.replace("t = Neg (y)", "t = Neg (x)");
    expect(() => expectPass(subToAddNeg(true), before, wrongAfter)).toThrow(/output 'z'/);
  });

  it("does not forgive a renamed graph input or output", () => {
    const renamed = after.replace(/\bz\b/g, "w");
    expect(() => expectPass(subToAddNeg(), before, renamed)).toThrow(/the model it gives/);
  });

  it("fails when the pass changes its input model", () => {
    expect(() => expectPass(subToAddNeg(false, { mutate: true }), before, after)).toThrow(
      /must not change its input model/,
    );
  });

  it("fails when the pass changes the model but says it did not", () => {
    expect(() => expectPass(subToAddNeg(false, { quiet: true }), before, after)).toThrow(
      /'modified' must be set/,
    );
  });
});

describe("canonicalNames", () => {
  it("renames introduced values and node names in subgraphs too, in order of appearance", () => {
    const m = parseModelText(`
      <ir_version: 8, opset_import: ["" : 18]>
      g (bool c, float[1] x) => (float[1] y) {
        [first] k = Neg (x)
        y = If (c) <
          then_branch = t () => (float[1] p) { p = Identity (k) },
          else_branch = e () => (float[1] q) { q = Neg (k) }
        >
      }`);
    const c = canonicalNames(m);
    expect(c.graph.nodes[0]).toMatchObject({ name: "_n1", inputs: ["x"], outputs: ["_1"] });
    expect(c.graph.nodes[1]!.outputs).toEqual(["y"]);
    const then = c.graph.nodes[1]!.attributes[0]!.value as Model["graph"];
    expect(then.nodes[0]).toMatchObject({ inputs: ["_1"], outputs: ["_2"] });
    expect(then.outputs.map((o) => o.name)).toEqual(["_2"]);
  });

  it("does not count the order of value_info", () => {
    const text = (info: string) => `
      <ir_version: 8, opset_import: ["" : 18]>
      g (float[1] x) => (float[1] y) <${info}> {
        a = Neg (x)
        b = Neg (a)
        y = Neg (b)
      }`;
    const one = canonicalNames(parseModelText(text("float[1] a, float[1] b")));
    const two = canonicalNames(parseModelText(text("float[1] b, float[1] a")));
    expect(printModel(two)).toBe(printModel(one));
    expect(one.graph.valueInfo.map((v) => v.name)).toEqual(["_1", "_2"]);
  });
});
