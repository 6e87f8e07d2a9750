// remove-unused-functions: local functions the graph does not reach removed.

import { describe, expect, it } from "vitest";
import { removeUnusedFunctions } from "../../src/passes/remove-unused-functions.js";
import { expectPass } from "../helpers/pass.js";

describe("remove-unused-functions", () => {
  it("keeps what the graph calls, directly or through a function, and drops the rest", () => {
    expectPass(
      removeUnusedFunctions(),
      `<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
      g (float[2] x) => (float[2] y) { y = local.A (x) }
      < domain: "local", opset_import: ["" : 18, "local" : 1] >
      A (a) => (b) { b = local.B (a) }
      < domain: "local", opset_import: ["" : 18] >
      B (a) => (b) { b = Neg (a) }
      < domain: "local", opset_import: ["" : 18] >
      Unused (a) => (b) { b = Abs (a) }`,
      `<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
      g (float[2] x) => (float[2] y) { y = local.A (x) }
      < domain: "local", opset_import: ["" : 18, "local" : 1] >
      A (a) => (b) { b = local.B (a) }
      < domain: "local", opset_import: ["" : 18] >
      B (a) => (b) { b = Neg (a) }`,
    );
  });

  it("changes nothing when every function is called", () => {
    const same = `<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
      g (float[2] x) => (float[2] y) { y = local.B (x) }
      < domain: "local", opset_import: ["" : 18] >
      B (a) => (b) { b = Neg (a) }`;
    expect(expectPass(removeUnusedFunctions(), same, same).modified).toBe(false);
  });
});
