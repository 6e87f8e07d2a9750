// expand-schema-functions: schema function ops replaced by their bodies, the function ops a body
// holds expanded in the same pass (callee-first, typed by inferring the body).

import { describe, expect, it } from "vitest";
import { expandSchemaFunctions } from "../../src/expand/expand-schema-functions.js";
import { expectPass } from "../helpers/pass.js";

describe("expand-schema-functions", () => {
  it("expands Celu, and the Elu its body calls, in one pass", () => {
    const r = expectPass(
      expandSchemaFunctions(),
      `<ir_version: 8, opset_import: ["" : 18]>
      g (float[3] x) => (float[3] y) { y = Celu <alpha = 2.0> (x) }`,
      `<ir_version: 8, opset_import: ["" : 18]>
      g (float[3] x) => (float[3] y) {
        [n1] alpha = Constant <value_float: float = 2.0> ()
        [n2] div = Div (x, alpha)
        [n3] ealpha = Constant <value_float: float = 1.0> ()
        [n4] exp = Exp (div)
        [n5] one = Constant <value: tensor = float {1.0}> ()
        [n6] sub = Sub (exp, one)
        [n7] mul = Mul (ealpha, sub)
        [n8] zero = Constant <value: tensor = float {0.0}> ()
        [n9] less = Less (div, zero)
        [n10] elu = Where (less, mul, div)
        [n11] y = Mul (alpha, elu)
      }`,
    );
    expect(r.notes).toEqual([{ level: "info", message: "expanded 2 calls", calls: 2 }]);
  });

  it("leaves local functions and ops the selection keeps", () => {
    const same = `<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
      g (float[3] x) => (float[3] y) { t = Celu (x)  y = local.F (t) }
      < domain: "local", opset_import: ["" : 18] >
      F (a) => (b) { b = Neg (a) }`;
    const r = expectPass(expandSchemaFunctions({ keep: [{ domain: "", op: "Celu" }] }), same, same);
    expect(r.modified).toBe(false);
  });
});
