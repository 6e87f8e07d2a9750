// trim-opset-imports: imports of domains no node uses dropped (ai.onnx kept).

import { describe, expect, it } from "vitest";
import { trimOpsetImportsPass } from "../../src/passes/trim-opset-imports.js";
import { expectPass } from "../helpers/pass.js";

describe("trim-opset-imports", () => {
  it("drops unused domains from the model and from a function's own imports", () => {
    expectPass(
      trimOpsetImportsPass(),
      `<ir_version: 8, opset_import: ["" : 18, "local" : 1, "com.unused" : 1]>
      g (float[2] x) => (float[2] y) { y = local.F (x) }
      < domain: "local", opset_import: ["" : 18, "com.other" : 1] >
      F (a) => (b) { b = Neg (a) }`,
      `<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
      g (float[2] x) => (float[2] y) { y = local.F (x) }
      < domain: "local", opset_import: ["" : 18] >
      F (a) => (b) { b = Neg (a) }`,
    );
  });

  it("keeps ai.onnx even when no node uses it", () => {
    const same = `<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
      g (float[2] x) => (float[2] y) { y = local.F (x) }
      < domain: "local", opset_import: ["" : 18] >
      F (a) => (b) { b = Neg (a) }`;
    expect(expectPass(trimOpsetImportsPass(), same, same).modified).toBe(false);
  });

  it("keeps in the model the domains functions use, also those they import themselves", () => {
    // onnxruntime refuses a function's node whose domain the model does not import.
    const same = `<ir_version: 8, opset_import: ["" : 18, "outer" : 1, "inner" : 1]>
      g (float[2] x) => (float[2] y) { y = outer.F (x) }
      < domain: "outer", opset_import: ["" : 18, "inner" : 1] >
      F (a) => (b) { b = inner.G (a) }
      < domain: "inner", opset_import: ["" : 18] >
      G (a) => (b) { b = Neg (a) }`;
    expect(expectPass(trimOpsetImportsPass(), same, same).modified).toBe(false);
  });
});
