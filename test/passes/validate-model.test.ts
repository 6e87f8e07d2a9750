// validate-model: the first step of the expand and convert pipelines. Its precondition refuses a
// model with a checker problem under which a rewrite would be wrong (check/validate.ts,
// REWRITE_BLOCKERS), naming the first; it changes nothing, and a model with other problems, or
// none, passes.

import { describe, expect, it } from "vitest";
import { runPass } from "../../src/passes/manager.js";
import { failureError, passContext } from "../../src/passes/pass.js";
import { validateModel } from "../../src/passes/validate-model.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectPass } from "../helpers/pass.js";

describe("validate-model", () => {
  it("passes a valid model through unchanged", () => {
    const same = `<ir_version: 8, opset_import: ["" : 18]>
      g (float[2,3] x) => (float[2] y) { t = Relu (x)  y = ReduceSum <keepdims: int = 0> (t) }`;
    const r = expectPass(validateModel(), same, same);
    expect(r.modified).toBe(false);
    expect(r.notes).toEqual([]);
  });

  it("refuses, in its precondition, an op the imported opset lacks (E_MODEL, one line)", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
      g (float[2] x) => (float[2] y) { y = Gelu (x) }`);
    const r = runPass(validateModel(), m, passContext());
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r).toMatchObject({ pass: "validate-model", stage: "requires" });
    const e = failureError(r);
    expect(e.code).toBe("E_MODEL");
    expect(e.message).toMatch(/Gelu/);
    expect(e.message).not.toMatch(/\n/);
  });

  it("refuses a value defined twice and a type error in a body; counts the others", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
      g (float[2] x, int64[2] i) => (float[2] y) { y = Relu (x)  y = Neg (x)  z = Add (x, i) }`);
    const r = runPass(validateModel(), m, passContext());
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.notes.filter((n) => n.level === "error")).toHaveLength(1);
    expect(r.notes[0]!.message).toMatch(/more/);
  });

  it("lets through what does not make a rewrite wrong (an unused graph input)", () => {
    const same = `<ir_version: 8, opset_import: ["" : 18]>
      g (float[2] x, float[2] unused) => (float[2] y) { y = Relu (x) }`;
    expect(expectPass(validateModel(), same, same).ok).toBe(true);
  });
});
