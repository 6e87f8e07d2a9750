// GroupNormalization 18 <-> 21: scale and bias per group and per channel.

import { describe, expect, it } from "vitest";
import { convertAndCompare, nodeLines } from "../../helpers/convert.js";

const head = (opset: number, ir = 7) => `<ir_version: ${ir}, opset_import: ["" : ${opset}]>`;

describe("GroupNormalization 18 <-> 21", () => {
  // The interpreter has no GroupNormalization kernel: onnxruntime-node is the reference.
  it("per-group scale/bias up and per-channel ones down agree with the original", async () => {
    const m18 = `${head(18, 8)}
g (float[2,4,3] x, float[2] s, float[2] b) => (float[2,4,3] y) { y = GroupNormalization<num_groups = 2, epsilon = 0.01>(x, s, b) }`;
    const t21 = await convertAndCompare({
      text: m18,
      target: 21,
      noInterpreter: true,
      tol: { rtol: 1e-4, atol: 1e-5 },
    });
    expect(nodeLines(t21).at(-1)).toBe("y = Reshape (y_shifted, y_shape)");
    const m21 = `${head(21, 10)}
g (float[2,4,3] x, float[4] s, float[4] b) => (float[2,4,3] y) { y = GroupNormalization<num_groups = 2, epsilon = 0.01>(x, s, b) }`;
    const t18 = await convertAndCompare({
      text: m21,
      target: 18,
      noInterpreter: true,
      tol: { rtol: 1e-4, atol: 1e-5 },
    });
    expect(nodeLines(t18).at(-1)).toBe("y = Add (y_scaled, y_bias)");
    expect(t18).not.toMatch(/GroupNormalization/);
  });
});
