// legalize-float64: float64 computation made float32 for a backend without float64, the model's
// interface kept (a float64 input cast on entry, a float64 output cast back), the numbers within
// float32's rounding on onnxruntime; a value beyond float32's range refused, naming the tensor;
// `lower --target tensorrt` (no float64 in TensorRT) runs it.

import { describe, expect, it } from "vitest";

import { lower } from "../../src/app/transform.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import { DataType } from "../../src/ir/types.js";
import { legalizeFloat64, runPass } from "../../src/passes/index.js";
import { loadProfile } from "../../src/targets/load.js";
import { parseModelText } from "../../src/text/parse.js";
import { random, runOrt } from "../helpers/ort.js";

const MODEL = (w: string) => `<ir_version: 8, opset_import: ["" : 17]>
g (double[2,3] x, float[3] f) => (double[2,3] y, float[2,3] z) <double[3] w = {${w}}> {
  a = Mul (x, w)
  fd = Cast <to = 11> (f)
  y = Add (a, fd)
  z = Cast <to = 1> (y)
}`;

describe("legalize-float64", () => {
  it("computes in float32 inside, keeps the float64 interface, same numbers within rounding", async () => {
    const m = parseModelText(MODEL("0.5, -1.25, 3"));
    const r = runPass(legalizeFloat64(), m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const g = r.model.graph;
    expect(g.initializers.map((t) => t.dataType)).toEqual([DataType.FLOAT]);
    expect(g.inputs.map((v) => v.type)).toEqual(m.graph.inputs.map((v) => v.type));
    expect(g.outputs.map((v) => v.name)).toEqual(["y", "z"]);
    const casts = g.nodes
      .filter((n) => n.opType === "Cast")
      .map((n) => Number(n.attributes[0]!.value));
    // x enters as float32, fd is made float32, y leaves as float64, z is float32 as before.
    expect(casts.sort()).toEqual([1, 1, 1, 11]);
    const x = random(DataType.DOUBLE, [2, 3], 1);
    const f = random(DataType.FLOAT, [3], 2);
    const [a, b] = [await runOrt(m, { x, f }), await runOrt(r.model, { x, f })];
    for (const k of ["y", "z"])
      expect(compareTensors(b[k]!, a[k]!, { rtol: 1e-6, atol: 1e-6 }), k).toBeUndefined();
  });

  it("refuses a value beyond float32's range, naming the tensor", () => {
    const r = runPass(legalizeFloat64(), parseModelText(MODEL("0.5, 1e300, 3")));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.notes[0]!.where).toBe("initializer 'w'");
    expect(!r.ok && r.notes[0]!.message).toMatch(/beyond float32's range/);
  });

  it("lower --target tensorrt makes the model float32 inside", () => {
    const m = parseModelText(MODEL("0.5, -1.25, 3"));
    const r = lower(m, { profile: loadProfile("tensorrt") });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const doubles = r.report.nodes.filter((n) => n.reasons.some((s) => /double/.test(s)));
    // Only the boundary casts touch float64 now.
    expect(doubles.map((n) => n.op)).toEqual(["Cast", "Cast"]);
    expect(r.notes.map((n) => n.message).join("\n")).toMatch(/float64 made float32/);
  });
});
