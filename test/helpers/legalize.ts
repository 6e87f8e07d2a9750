// Helpers of the legalization tests: a profile lacking some ops, a pass run checked bit for bit
// on onnxruntime, and the quantized model the Quantize/DequantizeLinear and Round rewrites share.

import { expect } from "vitest";
import type { RTensor } from "../../src/interp/types.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import type { Pass } from "../../src/passes/pass.js";
import { parseModelText } from "../../src/text/parse.js";
import { runOrt } from "./ort.js";

export const without =
  (...lacking: string[]) =>
  (op: string) =>
    !lacking.includes(op);

/** Runs the pass; the ops left; the outputs equal on onnxruntime, bit for bit. */
export async function same(
  m: Model,
  pass: Pass,
  feeds: Record<string, RTensor>,
): Promise<{ ops: string[]; model: Model }> {
  const r = runPass(pass, m);
  expect(r.ok).toBe(true);
  if (!r.ok) throw new Error("failed");
  const [a, b] = [await runOrt(m, feeds), await runOrt(r.model, feeds)];
  for (const k of Object.keys(a)) {
    expect(b[k]!.shape, k).toEqual(a[k]!.shape);
    expect(compareTensors(b[k]!, a[k]!, { rtol: 0, atol: 0 }), k).toBeUndefined();
  }
  return { ops: r.model.graph.nodes.map((n) => n.opType), model: r.model };
}

// Ties (x / scale = k + 0.5), saturation both ways, -0.3 (Round gives -0), per tensor and per
// axis, 8- and 16-bit, zero points of 0, absent, and others.
export const QDQ = parseModelText(`<ir_version: 10, opset_import: ["" : 21]>
g (float[14] x, float[2,7] v) => (uint8[14] a, int8[14] b, int16[14] c, uint16[2,7] d, uint8[14] e, float[2,3] f, float[14] h)
  <float s1 = {1}, uint8 z1 = {3}, int8 z2 = {-5}, float s3 = {0.25}, int16 z3 = {7},
   float[2] s4 = {0.5, 2}, uint16[2] z4 = {100, 65000}, int8[2,3] w = {-128, 0, 127, 5, -7, 9},
   float[2] s5 = {0.1, 0.3}, int8[2] z5 = {1, -2}, uint8 zz = {0}>
{
  a = QuantizeLinear (x, s1, z1)
  b = QuantizeLinear (x, s1, z2)
  c = QuantizeLinear (x, s3, z3)
  d = QuantizeLinear <axis: int = 0> (v, s4, z4)
  e = QuantizeLinear (x, s1, zz)
  f = DequantizeLinear <axis: int = 0> (w, s5, z5)
  h = DequantizeLinear (a, s1, z1)
}`);
const xs = [0.5, 1.5, 2.5, -0.5, -2.5, -0.3, 254.5, 255.5, 1e9, -1e9, 3e38, -3e38, 0.49999997, 7];
export const qdqFeeds = {
  x: { dtype: DataType.FLOAT, shape: [14], data: new Float32Array(xs) } as RTensor,
  v: {
    dtype: DataType.FLOAT,
    shape: [2, 7],
    data: new Float32Array([...xs.slice(0, 7), ...xs.slice(7).map((t) => t * 3)]),
  } as RTensor,
};
