// infer-value-info: inferred types written to value_info (what check --write-value-info writes).

import { describe, expect, it } from "vitest";
import { inferValueInfo } from "../../src/passes/infer-value-info.js";
import { expectPass } from "../helpers/pass.js";

describe("infer-value-info", () => {
  it("lists each node output that is not a graph output, with its type", () => {
    expectPass(
      inferValueInfo(),
      `<ir_version: 8, opset_import: ["" : 18]>
      g (float[2,3] x) => (float[2,3] y) { t = Neg (x)  y = Abs (t) }`,
      `<ir_version: 8, opset_import: ["" : 18]>
      g (float[2,3] x) => (float[2,3] y) <float[2,3] t> { t = Neg (x)  y = Abs (t) }`,
    );
  });

  it("changes nothing when value_info already says it", () => {
    const same = `<ir_version: 8, opset_import: ["" : 18]>
      g (float[2,3] x) => (float[2,3] y) <float[2,3] t> { t = Neg (x)  y = Abs (t) }`;
    expect(expectPass(inferValueInfo(), same, same).modified).toBe(false);
  });
});
