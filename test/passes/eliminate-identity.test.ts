// eliminate-identity: Identity nodes removed, their readers reading the input; one that writes a
// graph output kept.

import { describe, expect, it } from "vitest";

import { eliminateIdentity, runPass } from "../../src/passes/index.js";
import { parseModelText } from "../../src/text/parse.js";

describe("eliminate-identity", () => {
  it("removes an Identity, and keeps one that writes a graph output", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 18]>
g (float[2] x) => (float[2] y) { t = Identity (x)
  u = Abs (t)
  y = Identity (u) }`);
    const r = runPass(eliminateIdentity(), m);
    expect(r.ok && r.model.graph.nodes.map((n) => `${n.opType}(${n.inputs})`)).toEqual([
      "Abs(x)",
      "Identity(u)",
    ]);
  });
});
