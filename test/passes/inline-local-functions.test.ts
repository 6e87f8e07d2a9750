// inline-local-functions: calls of model-local functions replaced by their bodies, callee-first
// (no rounds, no limit on depth), cycles refused by the precondition.

import { describe, expect, it } from "vitest";
import { expandPipeline } from "../../src/expand/pipeline.js";
import { inlineLocalFunctions } from "../../src/expand/inline-local-functions.js";
import { modelFunctions } from "../../src/check/functions.js";
import { runPass } from "../../src/passes/manager.js";
import { passContext } from "../../src/passes/pass.js";
import { parseModelText } from "../../src/text/parse.js";
import { run } from "../../src/interp/executor.js";
import { DataType } from "../../src/ir/types.js";
import { opsOf } from "../helpers/expand.js";
import { expectPass, expectSameOutputs } from "../helpers/pass.js";

/** A chain of n local functions, F0 calling F1 once, ..., the last adding one. */
function chain(n: number): string {
  const fns: string[] = [];
  for (let i = 0; i < n; i++) {
    const body =
      i === n - 1
        ? "one = Constant <value_float = 1.0> ()\n b = Add (a, one)"
        : `b = local.F${i + 1} (a)`;
    fns.push(
      `< domain: "local", opset_import: ["" : 18, "local" : 1] >\nF${i} (a) => (b) {\n ${body}\n}`,
    );
  }
  return `< ir_version: 8, opset_import: ["" : 18, "local" : 1] >
g (float[2] x) => (float[2] y) {
  y = local.F0 (x)
}
${fns.join("\n")}`;
}

describe("inline-local-functions", () => {
  it("inlines nested calls callee-first, attribute references bound at each level", () => {
    const r = expectPass(
      inlineLocalFunctions(),
      `< ir_version: 9, opset_import: ["" : 18, "local" : 1] >
      g (float[2,3] x) => (float[2,3] y1, float[2,3] y2) {
        y1 = local.Outer <alpha: float = 3.0> (x)
        y2 = local.Outer (x)
      }
      < domain: "local", opset_import: ["" : 18, "local" : 1] >
      Outer <alpha: float = 2.0> (a) => (b) {
        s = local.Scale <factor: float = @alpha> (a)
        b = local.Scale <factor: float = 0.5> (s)
      }
      < domain: "local", opset_import: ["" : 18] >
      Scale <factor> (a) => (b) {
        f = Constant <value_float: float = @factor> ()
        b = Mul (a, f)
      }`,
      // The functions stay (remove-unused-functions drops them), Outer with Scale inlined.
      `< ir_version: 9, opset_import: ["" : 18, "local" : 1] >
      g (float[2,3] x) => (float[2,3] y1, float[2,3] y2) {
        [n1] a1 = Constant <value_float: float = 3.0> ()
        [n2] s1 = Mul (x, a1)
        [n3] b1 = Constant <value_float: float = 0.5> ()
        [n4] y1 = Mul (s1, b1)
        [n5] a2 = Constant <value_float: float = 2.0> ()
        [n6] s2 = Mul (x, a2)
        [n7] b2 = Constant <value_float: float = 0.5> ()
        [n8] y2 = Mul (s2, b2)
      }
      < domain: "local", opset_import: ["" : 18, "local" : 1] >
      Outer <alpha: float = 2.0> (a) => (b) {
        [n9] f1 = Constant <value_float: float = @alpha> ()
        [n10] s = Mul (a, f1)
        [n11] f2 = Constant <value_float: float = 0.5> ()
        [n12] b = Mul (s, f2)
      }
      < domain: "local", opset_import: ["" : 18] >
      Scale <factor> (a) => (b) {
        f = Constant <value_float: float = @factor> ()
        b = Mul (a, f)
      }`,
    );
    // Two calls of Outer, each with its two calls of Scale.
    expect(r.notes).toEqual([{ level: "info", message: "expanded 6 calls", calls: 6 }]);
  });

  it("leaves a call the selection keeps", () => {
    expectPass(
      inlineLocalFunctions({ keep: [{ domain: "local", op: "Twice" }] }),
      `< ir_version: 8, opset_import: ["" : 18, "local" : 1] >
      g (float[2] x) => (float[2] y) { t = local.Twice (x)  y = local.Neg1 (t) }
      < domain: "local", opset_import: ["" : 18] >
      Twice (a) => (b) { b = Add (a, a) }
      < domain: "local", opset_import: ["" : 18] >
      Neg1 (a) => (b) { b = Neg (a) }`,
      `< ir_version: 8, opset_import: ["" : 18, "local" : 1] >
      g (float[2] x) => (float[2] y) { t = local.Twice (x)  [n] y = Neg (t) }
      < domain: "local", opset_import: ["" : 18] >
      Twice (a) => (b) { b = Add (a, a) }
      < domain: "local", opset_import: ["" : 18] >
      Neg1 (a) => (b) { b = Neg (a) }`,
    );
  });

  it("refuses a cycle of calls in its precondition, naming it", () => {
    const m = parseModelText(`< ir_version: 8, opset_import: ["" : 18, "local" : 1] >
      g (float[2] x) => (float[2] y) { y = local.A (x) }
      < domain: "local", opset_import: ["" : 18, "local" : 1] >
      A (a) => (b) { b = local.B (a) }
      < domain: "local", opset_import: ["" : 18, "local" : 1] >
      B (a) => (b) { b = local.A (a) }`);
    const r = runPass(inlineLocalFunctions(), m, passContext());
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.stage).toBe("requires");
    expect(r.notes[0]!.message).toMatch(
      /local functions call each other in a cycle \('local\.A' -> 'local\.B' -> 'local\.A'\)/,
    );
  });

  it("counts the nodes each function and the graph would have once everything is inlined", () => {
    const m = parseModelText(chain(5));
    const table = modelFunctions(m);
    expect(table.order()!.map((f) => f.name)).toEqual(["F4", "F3", "F2", "F1", "F0"]);
    const sizes = table.inlinedSizes();
    expect(table.inlinedSize(m.graph, sizes)).toBe(2);
    expect(sizes.get(m.functions[4]!)).toBe(2);
    expect(sizes.get(m.functions[0]!)).toBe(2);
  });

  // Issue 16: a chain deeper than any round limit expands (no constant limits depth).
  for (const n of [70, 200])
    it(`expands a chain of ${n} local functions, each calling the next once`, () => {
      const before = parseModelText(chain(n));
      const r = runPass(expandPipeline(), before, passContext({ testMode: false }));
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      expect(opsOf(r.model)).toEqual(["Constant", "Add"]);
      expect(r.model.functions).toEqual([]);
      expect(r.notes[0]!.message).toBe(`expanded ${n} calls`);
      expectSameOutputs(before, r.model);
    });

  // Issue 28: nothing recurses along calls (the function table, the checker's typing of calls,
  // the names inlining gives), so a chain far deeper than the call stack expands.
  it("expands a chain of 100,000 local functions", () => {
    const before = parseModelText(chain(100_000));
    const r = runPass(expandPipeline(), before, passContext({ testMode: false }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(opsOf(r.model)).toEqual(["Constant", "Add"]);
    expect(r.model.functions).toEqual([]);
    expect(r.notes[0]!.message).toBe("expanded 100000 calls");
    const x = { dtype: DataType.FLOAT, shape: [2], data: new Float32Array([1, -2]) };
    expect(Array.from(run(r.model, { x }).y!.data as Float32Array)).toEqual([2, -1]);
  }, 60_000);

  it("gives a schema function op in a nested local function its input types (CastLike)", () => {
    const before = parseModelText(`< ir_version: 8, opset_import: ["" : 18, "local" : 1] >
      g (float[2] x, double[2] d) => (double[2] y) { y = local.Outer (x, d) }
      < domain: "local", opset_import: ["" : 18, "local" : 1] >
      Outer (a, like) => (b) { b = local.Inner (a, like) }
      < domain: "local", opset_import: ["" : 18] >
      Inner (a, like) => (b) { c = CastLike (a, like)  b = Add (c, like) }`);
    const r = runPass(expandPipeline(), before, passContext());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(opsOf(r.model)).toEqual(["Cast", "Add"]);
    expectSameOutputs(before, r.model);
  });
});
