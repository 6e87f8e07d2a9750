// legalize-reduce-sum: ReduceSum over static adjacent axes as a MatMul with ones, for a target
// without it (NNAPI). Exact sums (small integers as floats, ±inf, NaN) come out bit for bit as
// onnxruntime's ReduceSum gives them; sums that round differ by the summation order only, within
// the bound docs/semantics.md states ((n - 1)·u·Σ|x| each way), measured here.

import { describe, expect, it } from "vitest";
import { compareTensors } from "../../src/interp/backend-test.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeReduceSum } from "../../src/passes/legalize-reduce-sum.js";
import { parseModelText } from "../../src/text/parse.js";
import { random, runOrt } from "../helpers/ort.js";

const lacking = (op: string) => op !== "ReduceSum";

function lowered(m: Model): Model {
  const r = runPass(legalizeReduceSum({ has: lacking }), m);
  if (!r.ok) throw new Error(r.error.message);
  expect(r.modified).toBe(true);
  expect(r.model.graph.nodes.map((n) => n.opType)).not.toContain("ReduceSum");
  return r.model;
}

const m = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3,5,64] x) => (float[2,3,5,1] a, float[2,1,5,64] b, float[2,64] c, float[1,1,1,1] d, float[2,3] e, float[3,5,64] f, float[2,3,1,64] h)
  <int64[1] last = {-1}, int64[1] one = {1}, int64[2] mid = {1, 2}, int64[2] tail = {2, 3}, int64[1] first = {0}, int64[1] third = {2}>
{
  a = ReduceSum (x, last)
  b = ReduceSum (x, one)
  c = ReduceSum <keepdims = 0> (x, mid)
  d = ReduceSum (x)
  e = ReduceSum <keepdims = 0> (x, tail)
  f = ReduceSum <keepdims = 0> (x, first)
  h = ReduceSum (x, third)
}`);

describe("legalize-reduce-sum", () => {
  it("exact sums come out bit for bit: the last axis, a middle one, two, all, keepdims 0", async () => {
    const x = random(DataType.FLOAT, [2, 3, 5, 64], 3, -50, 50);
    const data = x.data as Float32Array;
    for (let i = 0; i < data.length; i++) data[i] = Math.round(data[i]!);
    data[7] = Infinity;
    data[200] = NaN;
    const out = lowered(m);
    const [a, b] = [await runOrt(m, { x }), await runOrt(out, { x })];
    for (const k of Object.keys(a)) {
      expect(b[k]!.shape, k).toEqual(a[k]!.shape);
      expect(compareTensors(b[k]!, a[k]!, { rtol: 0, atol: 0 }), k).toBeUndefined();
    }
    // the last axis, and one axis before the last, kept need no Reshape: one MatMul writes each
    for (const y of ["a", "h"])
      expect(out.graph.nodes.find((n) => n.outputs[0] === y)?.opType, y).toBe("MatMul");
  });

  it("sums that round: within (n - 1)·u·Σ|x| of onnxruntime's ReduceSum", async () => {
    const x = random(DataType.FLOAT, [2, 3, 5, 64], 4);
    const data = x.data as Float32Array;
    for (let i = 0; i < data.length; i++) data[i] = Math.exp(3 * data[i]!);
    const [a, b] = [await runOrt(m, { x }), await runOrt(lowered(m), { x })];
    // Σ|x| over each output's reduced elements is at most the output itself (all positive)
    for (const [k, n] of Object.entries({ a: 64, b: 3, c: 15, d: 1920, e: 320, f: 2, h: 5 })) {
      const [p, q] = [a[k]!.data as Float32Array, b[k]!.data as Float32Array];
      let worst = 0;
      for (let i = 0; i < p.length; i++) worst = Math.max(worst, Math.abs(p[i]! - q[i]!) / p[i]!);
      expect(worst, k).toBeLessThanOrEqual(2 * (n - 1) * 2 ** -24);
    }
  });

  // measured on the CPU provider of onnxruntime-node on x86-64, where both sum in float32
  it("float16: the same bits as onnxruntime's ReduceSum (both round the sum once)", async () => {
    const h = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float16[16,512] x) => (float16[16,1] a) <int64[1] last = {-1}> { a = ReduceSum (x, last) }`);
    const x = random(DataType.FLOAT16, [16, 512], 9, 0, 2 / 512);
    const [a, b] = [await runOrt(h, { x }), await runOrt(lowered(h), { x })];
    expect(compareTensors(b.a!, a.a!, { rtol: 0, atol: 0 })).toBeUndefined();
  });

  it("leaves axes apart, a dynamic shape, integers, and a target without MatMul", () => {
    const m2 = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3,4] x, float[N,4] y, int32[2,4] z) => (float[1,3,1] a, float[N,1] b, int32[2,1] c)
  <int64[2] apart = {0, 2}, int64[1] last = {-1}>
{
  a = ReduceSum (x, apart)
  b = ReduceSum (y, last)
  c = ReduceSum (z, last)
}`);
    const r = runPass(legalizeReduceSum({ has: lacking }), m2);
    expect(r.ok && r.modified).toBe(false);
    const r2 = runPass(legalizeReduceSum({ has: (op) => lacking(op) && op !== "MatMul" }), m);
    expect(r2.ok && r2.modified).toBe(false);
  });
});
