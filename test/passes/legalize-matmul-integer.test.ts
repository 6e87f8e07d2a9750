// legalize-matmul-integer: MatMulInteger of 8-bit operands, for a target without it, as a float
// MatMul of the centred operands cast to int32 where float32 holds every sum exactly.

import { describe, expect, it } from "vitest";
import { DataType } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeForTarget } from "../../src/passes/legalize.js";
import { parseModelText } from "../../src/text/parse.js";
import { same, without } from "../helpers/legalize.js";
import { random } from "../helpers/ort.js";

describe("legalize-matmul-integer", () => {
  it("MatMulInteger of uint8 by constant int8 weights, zero points per tensor and per column, as a float MatMul cast to int32; onnxruntime's bytes", async () => {
    const w = Array.from({ length: 64 * 5 }, (_, i) => ((i * 71) % 255) - 127);
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (uint8[2,3,64] a) => (int32[2,3,5] y, int32[2,3,5] v)
  <int8[64,5] w = {${w.join(", ")}}, uint8 az = {131}, int8[5] wz = {0, -128, 127, 3, -9}>
{
  y = MatMulInteger (a, w, az, wz)
  v = MatMulInteger (a, w)
}`);
    const { ops } = await same(m, legalizeForTarget({ has: without("MatMulInteger") }), {
      a: random(DataType.UINT8, [2, 3, 64], 5, 0, 255),
    });
    expect(ops).not.toContain("MatMulInteger");
  });
  it("leaves a MatMulInteger whose sums float32 cannot hold exactly (K = 300)", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (uint8[2,300] a, uint8[300,3] b) => (int32[2,3] y) { y = MatMulInteger (a, b) }`);
    const r = runPass(legalizeForTarget({ has: without("MatMulInteger") }), m);
    expect(r.ok && r.model.graph.nodes.map((n) => n.opType)).toEqual(["MatMulInteger"]);
  });
});
