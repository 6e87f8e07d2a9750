// common-subexpressions: the same op on the same inputs with the same attributes computed once.

import { describe, expect, it } from "vitest";

import { commonSubexpressions, runPass } from "../../src/passes/index.js";
import { parseModelText } from "../../src/text/parse.js";

describe("common-subexpressions", () => {
  it("merges repeated computations, never randomness, and keeps graph outputs' names", async () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 18]>
g (float[2] x) => (float[2] y, float[2] z, float[2] w) {
  a = Abs (x)
  b = Abs (x)
  r1 = RandomUniformLike (x)
  r2 = RandomUniformLike (x)
  s = Add (a, r1)
  t = Add (b, r2)
  y = Mul (s, t)
  z = Abs (x)
  w = Neg (b)
}`);
    const r = runPass(commonSubexpressions(), m);
    expect(
      r.ok && r.model.graph.nodes.map((n) => `${n.outputs[0]}=${n.opType}(${n.inputs})`),
    ).toEqual([
      "a=Abs(x)",
      "r1=RandomUniformLike(x)",
      "r2=RandomUniformLike(x)",
      "s=Add(a,r1)",
      "t=Add(a,r2)",
      "y=Mul(s,t)",
      "z=Abs(x)",
      "w=Neg(a)",
    ]);
  });
});
