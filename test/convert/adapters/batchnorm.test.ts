// BatchNormalization: is_test, spatial, the training outputs, training_mode.

import { describe, expect, it } from "vitest";
import { DataType, T, f32 } from "../../helpers/interp.js";
import { convertAndCompare, convertText, nodeLines } from "../../helpers/convert.js";

const head = (opset: number, ir = 7) => `<ir_version: ${ir}, opset_import: ["" : ${opset}]>`;

describe("BatchNormalization", () => {
  const bn6 = `${head(6, 3)}
g (float[2,3,2,2] x, float[3] s, float[3] b, float[3] m, float[3] v) => (float[2,3,2,2] y) {
  y = BatchNormalization<is_test = 1, epsilon = 0.001>(x, s, b, m, v)
}`;
  it("6 -> 15: is_test and spatial go, the inference node stays one node", async () => {
    const pos = { lo: 0.5, hi: 2 };
    const feeds = {
      x: T(
        DataType.FLOAT,
        [2, 3, 2, 2],
        Array.from({ length: 24 }, (_, i) => i / 7 - 1),
      ),
      s: f32([3], [1, 2, 0.5]),
      b: f32([3], [0, 1, -1]),
      m: f32([3], [0.1, 0.2, 0.3]),
      v: f32([3], [pos.lo, 1, pos.hi]),
    };
    // onnxruntime has no BatchNormalization-6 kernel.
    const t = await convertAndCompare({ text: bn6, target: 15, feeds, noOrtBefore: true });
    expect(nodeLines(t)).toEqual([
      "y = BatchNormalization <epsilon: float = 0.001> (x, s, b, m, v)",
    ]);
  });
  it("spatial=0 blocks 7 -> 9; training_mode=1 blocks 14 -> 9", () => {
    const bn7 = bn6.replace("is_test = 1", "spatial = 0").replace('"" : 6', '"" : 7');
    expect(() => convertText(bn7, 9)).toThrow(/spatial=0/);
    const bn14 = `${head(14)}
g (float[2,3] x, float[3] s, float[3] b, float[3] m, float[3] v) => (float[2,3] y) {
  y = BatchNormalization<training_mode = 1>(x, s, b, m, v)
}`;
    expect(() => convertText(bn14, 9)).toThrow(/training_mode=1/);
  });
});
