// fix-dims: symbolic dims of the graph's inputs and outputs set by name or by input[axis].

import { describe, expect, it } from "vitest";
import { compareTensors } from "../../src/interp/backend-test.js";
import { run } from "../../src/interp/executor.js";
import { fixDims, runPass } from "../../src/passes/index.js";
import { parseModelText } from "../../src/text/parse.js";
import { parseDims } from "../../src/app/dims.js";

describe("fix-dims", () => {
  const m = parseModelText(`<ir_version: 9, opset_import: ["" : 18]>
g (float[batch, ?] x) => (float[batch, ?] y) { y = Relu (x) }`);

  it("sets a named dim in inputs and outputs, and an unnamed one by input[axis]", () => {
    const r = runPass(fixDims(parseDims("batch=2,x[1]=5")), m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const shape = (v: { type?: unknown }) => (v.type as { shape: unknown[] }).shape;
    expect(shape(r.model.graph.inputs[0]!)).toEqual([2, 5]);
    expect(shape(r.model.graph.outputs[0]!)).toEqual([2, null]);
    const x = { x: { dtype: 1, shape: [2, 5], data: new Float32Array(10).fill(-1) } };
    expect(
      compareTensors(run(r.model, x as never).y!, run(m, x as never).y!, { rtol: 0, atol: 0 }),
    ).toBeUndefined();
  });

  it("a dim the model does not have is refused by name; no dims change nothing", () => {
    expect(() => runPass(fixDims(parseDims("sequence=3")), m)).toThrow(
      /dim 'sequence' is not a symbolic dim/,
    );
    const r = runPass(fixDims(new Map()), m);
    expect(r.ok && r.modified).toBe(false);
  });
});
