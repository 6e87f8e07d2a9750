// legalize-qlinearconv: QLinearConv, for a target without it, as a float32 Conv of the centred
// integers and onnxruntime's requantization; its bytes on onnxruntime.

import { describe, expect, it } from "vitest";
import { legalizeForTarget } from "../../src/passes/legalize.js";
import { parseModelText } from "../../src/text/parse.js";
import { random } from "../helpers/ort.js";
import { DataType } from "../../src/ir/types.js";
import { same, without } from "../helpers/legalize.js";

describe("legalize-qlinearconv", () => {
  it("QLinearConv as a float Conv of the centred integers, requantized; onnxruntime's bytes", async () => {
    const w1 = Array.from({ length: 3 * 2 * 9 }, (_, i) => ((i * 37) % 255) - 127);
    const w2 = Array.from({ length: 2 * 1 * 4 }, (_, i) => (i * 53) % 256);
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (uint8[1,2,6,6] x, int8[1,2,6,6] xi) => (uint8[1,3,3,3] y, uint8[1,2,5,5] z, int8[1,3,4,4] u)
  <float xs = {0.02}, uint8 xz = {128}, int8[3,2,3,3] w1 = {${w1.join(", ")}},
   float[3] ws = {0.003, 0.0071, 0.0005}, int8[3] wz = {0, 0, 0}, float ys = {0.05}, uint8 yz = {3},
   int32[3] b1 = {1000, -20000, 7}, uint8[2,1,2,2] w2 = {${w2.join(", ")}}, float ws2 = {0.01},
   uint8 wz2 = {120}, float ys2 = {0.1}, uint8 yz2 = {77}, int8 xiz = {-4}, int8 uz = {-3}>
{
  y = QLinearConv <pads = [1, 1, 1, 1], strides = [2, 2]> (x, xs, xz, w1, ws, wz, ys, yz, b1)
  z = QLinearConv <group = 2> (x, xs, xz, w2, ws2, wz2, ys2, yz2)
  u = QLinearConv (xi, xs, xiz, w1, ws, wz, ys, uz, b1)
}`);
    const feeds = {
      x: random(DataType.UINT8, [1, 2, 6, 6], 7, 0, 255),
      xi: random(DataType.INT8, [1, 2, 6, 6], 8, -128, 127),
    };
    const { ops } = await same(m, legalizeForTarget({ has: without("QLinearConv") }), feeds);
    expect(ops).not.toContain("QLinearConv");
    expect(ops.filter((o) => o === "Conv")).toHaveLength(3);
  });
});
