// refresh-output-types: after fixed dims and folding, the outputs' symbolic dims take the numbers
// inference gives (a KV cache's `past_sequence + sequence`); declared numbers are kept.

import { describe, expect, it } from "vitest";
import { simplify } from "../../src/app/transform.js";
import { runPass } from "../../src/passes/index.js";
import { refreshOutputTypes } from "../../src/passes/refresh-output-types.js";
import { parseModelText } from "../../src/text/parse.js";

describe("refresh-output-types", () => {
  const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[B,P,4] past, float[B,S,4] x) => (float[B,"P + S",4] present, float[?,?] flat) {
  present = Concat <axis = 1> (past, x)
  flat = Flatten (present)
}`);
  it("gives the outputs the static dims inference finds once the dims are fixed", () => {
    const r = simplify(m, {
      dims: new Map([
        ["B", 1],
        ["P", 3],
        ["S", 2],
      ]),
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const shapes = r.model.graph.outputs.map((v) =>
      v.type?.kind === "tensor" ? v.type.shape : undefined,
    );
    expect(shapes).toEqual([
      [1, 5, 4],
      [1, 20],
    ]);
  });
  it("changes nothing where inference knows no more", () => {
    const r = runPass(refreshOutputTypes(), m);
    expect(r.ok && r.modified).toBe(false);
  });
});
