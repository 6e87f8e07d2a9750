// A model-local function's body typed by its calls (src/check/instantiate.ts): the types all
// instantiations agree on; calls that differ only in a tensor's shape keep its element type and
// the dims they share; calls that differ in element type leave the value untyped.

import { describe, expect, it } from "vitest";
import { describeType, inferScopeTypes } from "../../src/check/index.js";
import type { Model } from "../../src/ir/types.js";
import { parseModelText } from "../../src/text/index.js";

const model = (a: string, b: string) =>
  parseModelText(`< ir_version: 8, opset_import: ["" : 15, "local" : 1] >
    g (${a} x, ${b} d) => (${a} y, ${b} z) {
      y = local.Scale (x)
      z = local.Scale (d)
    }
    < domain: "local", opset_import: ["" : 15] >
    Scale (a) => (b) {
      n = Neg (a)
      b = Abs (n)
    }`);

/** The body's type of `n` as the checker records it, or "none". */
function bodyType(m: Model): string {
  const t = inferScopeTypes(m).get(m.functions[0]!)?.get("n");
  return t ? describeType(t) : "none";
}

describe("a function's body typed by its calls", () => {
  it("calls that agree give their type", () => {
    expect(bodyType(model("float[2,3]", "float[2,3]"))).toBe("float[2,3]");
  });

  it("calls that differ in shape keep the element type and the dims they share", () => {
    expect(bodyType(model("float[2,3]", "float[4,3]"))).toBe("float[?,3]");
    expect(bodyType(model("float[2,3]", "float[2,3,1]"))).toBe("float");
  });

  it("calls that differ in element type leave the value untyped", () => {
    expect(bodyType(model("float[2,3]", "double[2,3]"))).toBe("none");
  });
});
