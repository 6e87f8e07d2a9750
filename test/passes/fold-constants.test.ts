// fold-constants: nodes on constants run once by the interpreter into initializers; Shape chains
// fold where shapes are known; never randomness; a byte cap per tensor.

import { describe, expect, it } from "vitest";
import { compareTensors } from "../../src/interp/backend-test.js";
import { run } from "../../src/interp/executor.js";
import { foldConstants, runPass } from "../../src/passes/index.js";
import { parseModelText } from "../../src/text/parse.js";

const SHAPE_CHAIN = `<ir_version: 9, opset_import: ["" : 18]>
g (float[2,3,4] x) => (float[6,4] y, float[2,3,4] r) {
  s = Shape (x)
  zero = Constant <value: tensor = int64[1] {0}> ()
  i0 = Constant <value: tensor = int64 {0}> ()
  i1 = Constant <value: tensor = int64 {1}> ()
  a = Gather <axis: int = 0> (s, i0)
  b = Gather <axis: int = 0> (s, i1)
  ab = Mul (a, b)
  ab1 = Unsqueeze (ab, zero)
  m1 = Constant <value: tensor = int64[1] {-1}> ()
  shape = Concat <axis: int = 0> (ab1, m1)
  t = Identity (x)
  y = Reshape (t, shape)
  r = RandomNormalLike (x)
}`;

describe("fold-constants", () => {
  it("folds a Shape → Gather → Concat chain into the Reshape's constant shape", () => {
    const m = parseModelText(SHAPE_CHAIN);
    const r = runPass(foldConstants(), m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const ops = r.model.graph.nodes.map((n) => n.opType);
    expect(ops).toEqual(["Identity", "Reshape", "RandomNormalLike"]);
    const shape = r.model.graph.initializers.find((t) => t.name === "shape")!;
    expect(shape.numbers()).toEqual([6, -1]);
    const x = {
      x: { dtype: 1, shape: [2, 3, 4], data: Float32Array.from({ length: 24 }, (_, i) => i) },
    };
    const before = run(m, x as never);
    const after = run(r.model, x as never);
    expect(compareTensors(after.y!, before.y!, { rtol: 0, atol: 0 })).toBeUndefined();
  });

  it("folds again what a fold made known: Shape of a Pad whose pads were computed", () => {
    // Inference sees Pad's shape only once its pads are constant, which the first round makes.
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 18]>
g (float[2,3] x) => (float[?,?] y, float[?,?] p) <int64[4] a = {0, -1, -1, 0}> {
  pads = Abs (a)
  p = Pad (x, pads)
  s = Shape (p)
  y = ConstantOfShape <value: tensor = float[1] {7}> (s)
}`);
    const r = runPass(foldConstants(), m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.model.graph.nodes.map((n) => n.opType)).toEqual(["Pad", "ConstantOfShape"]);
    const x = { dtype: 1, shape: [2, 3], data: Float32Array.from([1, 2, 3, 4, 5, 6]) };
    const [before, after] = [run(m, { x }), run(r.model, { x })];
    for (const k of ["y", "p"]) expect(compareTensors(after[k]!, before[k]!), k).toBeUndefined();
  });

  it("says once what it could not fold, however many rounds it takes", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 18]>
g (float[2,3] x) => (float[?,?] y, float[?] bad) <int64[4] a = {0, -1, -1, 0}, float[6] c = {1, 2, 3, 4, 5, 6}, int64[1] four = {4}> {
  pads = Abs (a)
  p = Pad (x, pads)
  s = Shape (p)
  y = ConstantOfShape <value: tensor = float[1] {7}> (s)
  bad = Reshape (c, four)
}`);
    const r = runPass(foldConstants(), m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    // Two rounds folded (Abs, then Shape); the Reshape that cannot run is named once.
    expect(r.model.graph.nodes.map((n) => n.opType)).toEqual(["ConstantOfShape", "Reshape"]);
    expect(r.notes.filter((n) => /not folded/.test(n.message))).toHaveLength(1);
  });

  it("keeps a quantized model's QDQ pairs: a weight's DequantizeLinear is not folded", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 21]>
g (float[1,2] x) => (float[1,2] y) <int8[2,2] wq = {10, -20, 30, 40}, float s = {0.05}, int8 z = {0}> {
  w = DequantizeLinear (wq, s, z)
  xq = QuantizeLinear (x, s, z)
  xd = DequantizeLinear (xq, s, z)
  y = MatMul (xd, w)
}`);
    const r = runPass(foldConstants(), m);
    expect(r.ok && r.modified).toBe(false);
  });

  it("never folds randomness, and keeps a result over the byte cap", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 18]>
g (float[2] x) => (float[2] y, float[1000] z) {
  n = Constant <value: tensor = int64[1] {1000}> ()
  big = ConstantOfShape <value: tensor = float[1] {1}> (n)
  z = Identity (big)
  y = RandomUniformLike (x)
}`);
    const r = runPass(foldConstants({ limit: 100 }), m);
    expect(r.ok && r.modified).toBe(false);
    const r2 = runPass(foldConstants(), m);
    // under the default cap it folds into an initializer, and its Constant input goes too
    expect(r2.ok && r2.model.graph.nodes.map((n) => n.opType)).toEqual([
      "Identity",
      "RandomUniformLike",
    ]);
  });
});
