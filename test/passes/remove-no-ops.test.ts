// remove-no-ops where the dims are not all known (simplify without --dim): Reshape and Unsqueeze
// chains made one node, a Concat of one input and an Expand to its input's own dims removed; each
// gives onnxruntime's numbers bit for bit, and what would not be exact is left.

import { describe, expect, it } from "vitest";
import { simplify } from "../../src/app/transform.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { parseModelText } from "../../src/text/parse.js";
import { run } from "../../src/interp/executor.js";
import { random, runOrt } from "../helpers/ort.js";

/** simplify's result, after checking onnxruntime gives the same bits for it on `feeds`. */
async function simplified(m: Model, feeds: Record<string, RTensor>): Promise<Model> {
  const r = simplify(m);
  expect(r.ok).toBe(true);
  if (!r.ok) throw new Error("simplify failed");
  const [a, b] = [await runOrt(m, feeds), await runOrt(r.model, feeds)];
  for (const k of Object.keys(a)) {
    expect(b[k]!.shape, k).toEqual(a[k]!.shape);
    expect(compareTensors(b[k]!, a[k]!, { rtol: 0, atol: 0 }), k).toBeUndefined();
  }
  return r.model;
}
const ops = (m: Model) => m.graph.nodes.map((n) => n.opType);

describe("remove-no-ops with symbolic dims", () => {
  it("a Reshape of a Reshape chain reshapes the chain's input (no 0, or one 0 and no -1)", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[N,12] x) => (float[A,3,4] a, float[B,12] b, float[C,6] c)
  <int64[2] flat = {-1, 6}, int64[3] three = {-1, 3, 4}, int64[2] copy = {0, 12}, int64[2] both = {0, -1}>
{
  r1 = Reshape (x, flat)
  r2 = Reshape (r1, three)
  a = Reshape (r2, three)
  b = Reshape (r2, copy)
  c = Reshape (r2, both)
}`);
    const out = await simplified(m, { x: random(DataType.FLOAT, [5, 12], 3) });
    const g = out.graph;
    const from = (o: string) => g.nodes.find((n) => n.outputs[0] === o)!.inputs[0];
    expect([from("a"), from("b")]).toEqual(["x", "x"]);
    // [0, -1] copies r2's first dim: only its own input can give it
    expect(from("c")).toBe("r2");
    expect(ops(out).filter((o) => o === "Reshape")).toHaveLength(4);
  });
  it("an Unsqueeze chain is one Unsqueeze, the axes composed (input and attribute forms)", async () => {
    const m17 = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[N,3] x) => (float[1,N,1,1,3,1] y)
  <int64[1] one = {1}, int64[2] two = {0, -2}, int64[1] last = {-1}>
{
  u1 = Unsqueeze (x, one)
  u2 = Unsqueeze (u1, two)
  y = Unsqueeze (u2, last)
}`);
    const a = await simplified(m17, { x: random(DataType.FLOAT, [4, 3], 4) });
    expect(ops(a)).toEqual(["Unsqueeze"]);
    expect(
      a.graph.initializers.find((t) => t.name === a.graph.nodes[0]!.inputs[1])!.numbers(),
    ).toEqual([0, 2, 3, 5]);
    const m11 = parseModelText(`<ir_version: 7, opset_import: ["" : 11]>
g (float[N] x) => (float[1,N,1] y) {
  u1 = Unsqueeze <axes = [0]> (x)
  y = Unsqueeze <axes = [2]> (u1)
}`);
    const b = await simplified(m11, { x: random(DataType.FLOAT, [6], 5) });
    expect(ops(b)).toEqual(["Unsqueeze"]);
    expect(b.graph.nodes[0]!.attributes[0]!.value).toEqual([0n, 2n]);
  });
  it("a Concat of one input and an Expand to its input's own dims are removed", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[N,M] x) => (float[N,M] y, int64[2] z) <int64[2] ones = {1, 1}, int64[1] one = {1}> {
  s = Shape (x)
  e = Expand (x, s)
  f = Expand (e, ones)
  h = Expand (f, one)
  y = Relu (h)
  z = Concat <axis = 0> (s)
}`);
    const out = await simplified(m, { x: random(DataType.FLOAT, [3, 5], 6) });
    expect(ops(out).sort()).toEqual(["Relu", "Shape"]);
  });
  it("an Expand that broadcasts is kept", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[N,1] x) => (float[N,4] y) <int64[2] to = {1, 4}> { y = Expand (x, to) }`);
    const out = await simplified(m, { x: random(DataType.FLOAT, [3, 1], 7) });
    expect(ops(out)).toEqual(["Expand"]);
  });
  it("x · 1, x / 1, x − (+0), x + (−0), integer x ± 0: removed, the same bits on onnxruntime and the interpreter; x + (+0), a weight of ones and the rest kept", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[N,4] x, int32[N,4] i) => (float[N,4] a, float[N,4] b, float[N,4] c, float[N,4] d,
    float[N,4] e, int32[N,4] f, int32[N,4] h, float[N,4] kp, float[N,4] kn, float[N,4] kd,
    float[1,N,4] kb, float[N,4] ko, float[N,4] kw)
  <float one = {1}, float[1,1] ones = {1}, float pz = {0}, float nz = {-0.0}, int32 iz = {0},
   float[1,1,1] ones3 = {1}, float[4] mixed = {1, 1, 1, 2}, float[4] weight = {1, 1, 1, 1}>
{
  a = Mul (x, one)
  b = Mul (ones, x)
  c = Div (x, one)
  d = Sub (x, pz)
  e = Add (nz, x)
  f = Add (i, iz)
  h = Sub (i, iz)
  kp = Add (x, pz)
  kn = Sub (x, nz)
  kd = Div (one, x)
  kb = Mul (x, ones3)
  ko = Mul (x, mixed)
  kw = Mul (weight, x)
}`);
    // −0 and +0, NaN and the infinities among them: a removal that is not exact shows in the bits
    const x: RTensor = {
      dtype: DataType.FLOAT,
      shape: [3, 4],
      data: Float32Array.from([-0, 0, NaN, Infinity, -Infinity, 1.5, -2.25, 3e-39, 7, -0, 0.5, -1]),
    };
    const feeds = { x, i: random(DataType.INT32, [3, 4], 8, -50, 50) };
    const out = await simplified(m, feeds);
    const producer = (o: string) => out.graph.nodes.find((n) => n.outputs.includes(o));
    // removed: each output read straight from its input (the graph output renamed or an Identity)
    for (const o of ["a", "b", "c", "d", "e", "f", "h"])
      expect(producer(o)?.opType ?? "Identity", o).toBe("Identity");
    for (const [o, op] of [
      ["kp", "Add"],
      ["kn", "Sub"],
      ["kd", "Div"],
      ["kb", "Mul"],
      ["ko", "Mul"],
      // a weight of ones (a norm's scale): kept for onnxruntime's fusions
      ["kw", "Mul"],
    ] as const)
      expect(producer(o)?.opType, o).toBe(op);
    const bits = (t: RTensor) => Buffer.from((t.data as Float32Array).buffer).toString("hex");
    for (const [before, after] of [
      [await runOrt(m, feeds), await runOrt(out, feeds)],
      [run(m, feeds), run(out, feeds)],
    ] as Record<string, RTensor>[][])
      for (const k of Object.keys(before!)) expect(bits(after![k]!), k).toBe(bits(before![k]!));
  });
});
