// legalize-dynamic-quantize: DynamicQuantizeLinear, for a target without it, as ONNX's body with
// its QuantizeLinear written out (onnxruntime's scale of 1 for an all-zero input); the same bytes.

import { describe, expect, it } from "vitest";
import type { RTensor } from "../../src/interp/types.js";
import { DataType } from "../../src/ir/types.js";
import { run } from "../../src/interp/executor.js";
import { legalizeForTarget } from "../../src/passes/legalize.js";
import { parseModelText } from "../../src/text/parse.js";
import { same, without } from "../helpers/legalize.js";
import { random, runOrt } from "../helpers/ort.js";

describe("legalize-dynamic-quantize", () => {
  it("DynamicQuantizeLinear and MatMulInteger as float arithmetic; onnxruntime's bytes", async () => {
    const w = Array.from({ length: 128 }, (_, i) => ((i * 53) % 255) - 127);
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[3,8,32] x, float[2,32] u, float[4] o) => (uint8[3,8,32] q, float s, uint8 z, int32[3,8,4] y, int32[2,4] v, uint8[4] qo, float so, uint8 zo)
  <int8[32,4] w = {${w.join(", ")}}, int8[4] wz = {0, 3, -5, 127}, uint8 az = {7}>
{
  q, s, z = DynamicQuantizeLinear (x)
  y = MatMulInteger (q, w, z, wz)
  qu, su, zu = DynamicQuantizeLinear (u)
  v = MatMulInteger (qu, w, az)
  qo, so, zo = DynamicQuantizeLinear (o)
}`);
    const { ops } = await same(
      m,
      legalizeForTarget({
        has: without("DynamicQuantizeLinear", "MatMulInteger", "ReduceMin", "Min"),
      }),
      {
        x: random(DataType.FLOAT, [3, 8, 32], 11, -4, 9),
        u: random(DataType.FLOAT, [2, 32], 12, 0.5, 3),
        // all zeros: onnxruntime's scale is 1
        o: { dtype: DataType.FLOAT, shape: [4], data: new Float32Array(4) } as RTensor,
      },
    );
    for (const op of [
      "DynamicQuantizeLinear",
      "MatMulInteger",
      "ReduceMin",
      "Min",
      "QuantizeLinear",
    ])
      expect(ops).not.toContain(op);
  });

  it("for a target without Round or ReduceMax (NNAPI): the clamp first, each Round as Add and Sub of 1.5 · 2^23; the same bytes on onnxruntime and in the interpreter", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[3,8,32] x, float[6] t, float[4] o) => (uint8[3,8,32] q, float s, uint8 z, uint8[6] qt, float st, uint8 zt, uint8[4] qo, float so, uint8 zo)
{
  q, s, z = DynamicQuantizeLinear (x)
  qt, st, zt = DynamicQuantizeLinear (t)
  qo, so, zo = DynamicQuantizeLinear (o)
}`);
    const feeds = {
      x: random(DataType.FLOAT, [3, 8, 32], 11, -4, 9),
      // range 255 from 0: scale 1, zero point 0, ties rounded to even
      t: {
        dtype: DataType.FLOAT,
        shape: [6],
        data: Float32Array.of(0, 2.5, 3.5, 254.5, 255, 0.5),
      } as RTensor,
      o: { dtype: DataType.FLOAT, shape: [4], data: new Float32Array(4) } as RTensor,
    };
    const pass = legalizeForTarget({
      has: without("DynamicQuantizeLinear", "ReduceMin", "ReduceMax", "Round", "QuantizeLinear"),
    });
    const { ops, model } = await same(m, pass, feeds);
    for (const op of ["DynamicQuantizeLinear", "ReduceMin", "ReduceMax", "Round", "QuantizeLinear"])
      expect(ops).not.toContain(op);
    // the interpreter on the rewritten model: onnxruntime's bytes (its DynamicQuantizeLinear
    // follows ONNX's body, a scale of 0 for the all-zero input, where onnxruntime's is 1)
    const [a, b] = [await runOrt(m, feeds), run(model, feeds)];
    for (const k of Object.keys(a))
      expect(Array.from(b[k]!.data as ArrayLike<number>), k).toEqual(
        Array.from(a[k]!.data as ArrayLike<number>),
      );
    expect(Array.from(b.qt!.data as Uint8Array)).toEqual([0, 2, 4, 254, 255, 0]);
  });
});
