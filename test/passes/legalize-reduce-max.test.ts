// legalize-reduce-max: ReduceMax and ReduceMin over static axes as a tree of Max/Min over Slices,
// for a target without them (NNAPI): the same bits as onnxruntime's ReduceMax for inputs free of
// NaN (odd and even lengths, several axes, keepdims 0, the axes as an attribute and as an input,
// -inf entries); a NaN propagates (onnxruntime's Max, the interpreter's ReduceMax) where
// onnxruntime's ReduceMax skips it.

import { describe, expect, it } from "vitest";
import { compareTensors } from "../../src/interp/backend-test.js";
import { run } from "../../src/interp/executor.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeReduceMax } from "../../src/passes/legalize-reduce-max.js";
import { parseModelText } from "../../src/text/parse.js";
import { random, runOrt } from "../helpers/ort.js";

const lacking = (op: string) => !["ReduceMax", "ReduceMin"].includes(op);

async function sameBits(m: Model, feeds: Record<string, RTensor>): Promise<Model> {
  const r = runPass(legalizeReduceMax({ has: lacking }), m);
  if (!r.ok) throw new Error(r.error.message);
  expect(r.modified).toBe(true);
  const ops = r.model.graph.nodes.map((n) => n.opType);
  expect(ops).not.toContain("ReduceMax");
  expect(ops).not.toContain("ReduceMin");
  const [a, b] = [await runOrt(m, feeds), await runOrt(r.model, feeds)];
  for (const k of Object.keys(a)) {
    expect(b[k]!.shape, k).toEqual(a[k]!.shape);
    expect(compareTensors(b[k]!, a[k]!, { rtol: 0, atol: 0 }), k).toBeUndefined();
  }
  return r.model;
}

describe("legalize-reduce-max", () => {
  it("axes as an input (opset 18): last axis of 64, an odd axis, two axes, keepdims 0, ReduceMin", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
g (float[2,3,7,64] x) => (float[2,3,7,1] a, float[2,1,7,64] b, float[2,7] c, float[1,1,1,1] d, float[2,3,64] e)
  <int64[1] last = {-1}, int64[1] one = {1}, int64[2] two = {1, 3}, int64[1] odd = {2}>
{
  a = ReduceMax (x, last)
  b = ReduceMax (x, one)
  c = ReduceMax <keepdims = 0> (x, two)
  d = ReduceMin (x)
  e = ReduceMin <keepdims = 0> (x, odd)
}`);
    const x = random(DataType.FLOAT, [2, 3, 7, 64], 5);
    const data = x.data as Float32Array;
    for (let i = 0; i < data.length; i += 11) data[i] = -Infinity;
    data[5] = Infinity;
    const out = await sameBits(m, { x });
    // a tree of ⌈log2 n⌉ levels an axis, three nodes a level
    const count = (op: string) => out.graph.nodes.filter((n) => n.opType === op).length;
    expect(count("Max")).toBe(6 + 2 + (2 + 6));
    expect(count("Min")).toBe(1 + 2 + 3 + 6 + 3);
  });

  it("axes as an attribute (opset 13), and every axis when none are given", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[5,9] x) => (float[5,1] a, float a0)
{
  a = ReduceMax <axes = [-1]> (x)
  a0 = ReduceMax <keepdims = 0> (x)
}`);
    await sameBits(m, { x: random(DataType.FLOAT, [5, 9], 6) });
  });

  it("a NaN propagates, as onnxruntime's Max and the interpreter's ReduceMax do; onnxruntime's ReduceMax skips it", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
g (float[1,5] x) => (float[1,1] y) <int64[1] last = {-1}> { y = ReduceMax (x, last) }`);
    const r = runPass(legalizeReduceMax({ has: lacking }), m);
    if (!r.ok) throw new Error("failed");
    const x = { dtype: DataType.FLOAT, shape: [1, 5], data: Float32Array.of(1, NaN, 3, 2, 0) };
    const ours = run(m, { x }).y!.data as Float32Array;
    const lowered = (await runOrt(r.model, { x })).y!.data as Float32Array;
    const ort = (await runOrt(m, { x })).y!.data as Float32Array;
    expect(Number.isNaN(ours[0]!)).toBe(true);
    expect(Number.isNaN(lowered[0]!)).toBe(true);
    expect(ort[0]).toBe(3);
  });

  it("leaves a dynamic axis, an empty axis, and a target without Max", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
g (float[N,4] x, float[3,0] z) => (float[N,1] a, float[3,1] b) <int64[1] last = {-1}>
{
  a = ReduceMax (x, last)
  b = ReduceMax (z, last)
}`);
    const r = runPass(legalizeReduceMax({ has: lacking }), m);
    expect(r.ok && r.modified).toBe(false);
    const m2 = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
g (float[2,4] x) => (float[2,1] a) <int64[1] last = {-1}> { a = ReduceMax (x, last) }`);
    const r2 = runPass(legalizeReduceMax({ has: (op) => lacking(op) && op !== "Max" }), m2);
    expect(r2.ok && r2.modified).toBe(false);
  });
});
