// Einsum equations: the checker and the kernel refuse the same invalid equations (onnxruntime
// rejects them too); valid ones still run.

import { describe, expect, it } from "vitest";
import { checkModel } from "../../src/check/index.js";
import { einsumEquationError } from "../../src/check/einsum.js";
import { OnnxError } from "../../src/errors.js";
import { f32, oneNodeModel, runOne, vals } from "../helpers/interp.js";

const X = f32([2, 3], [1, 2, 3, 4, 5, 6]);

describe("Einsum equation rules", () => {
  it.each([
    ["ab->abc", [2], /output letter 'c' is in no input term/],
    ["ab->aa", [2], /output letter 'a' appears twice/],
    ["ab,bc->ac", [2], /2 input terms, the node 1 input/],
    ["abc->a", [2], /names 3 axes, but input 0 has rank 2/],
    ["a...b...->a", [2], /more than one ellipsis/],
    ["ab->...", [2], /the output has an ellipsis, but no input term has one/],
    ["a.b->a", [2], /'\.' outside an ellipsis/],
    ["a1->a", [2], /'1', which is not a letter/],
    ["ab->a->b", [2], /more than one '->'/],
    ["...abc->a", [2], /names 3 axes besides its ellipsis, but input 0 has rank 2/],
  ])("'%s' is refused", (eq, ranks, why) => {
    expect(einsumEquationError(eq, ranks.length, ranks)).toMatch(why);
  });

  it.each(["ab->ba", "ab", "ab->", "...b->b", "a...->...", "ij,jk->ik", " a b -> b a "])(
    "'%s' is accepted",
    (eq) => {
      const n = eq.includes(",") ? 2 : 1;
      expect(einsumEquationError(eq, n, n === 2 ? [2, 2] : [2])).toBeUndefined();
    },
  );

  it.each(["ab->abc", "ab->aa"])("the checker reports '%s' and the kernel refuses it", (eq) => {
    const m = oneNodeModel({ op: "Einsum", inputs: [X], attrs: { equation: eq }, opset: 13 });
    const report = checkModel(m);
    expect(report.problems.map((p) => p.code)).toContain("bad-attribute-value");
    expect(() => runOne({ op: "Einsum", inputs: [X], attrs: { equation: eq }, opset: 13 })).toThrow(
      OnnxError,
    );
  });

  it("valid equations still compute", () => {
    const [t] = runOne({ op: "Einsum", inputs: [X], attrs: { equation: "ab->ba" }, opset: 13 });
    expect(vals(t!)).toEqual([1, 4, 2, 5, 3, 6]);
    const [s] = runOne({ op: "Einsum", inputs: [X], attrs: { equation: "ab->" }, opset: 13 });
    expect(vals(s!)).toEqual([21]);
    const m = oneNodeModel({ op: "Einsum", inputs: [X], attrs: { equation: "ab->ba" }, opset: 13 });
    expect(checkModel(m).ok).toBe(true);
  });
});
