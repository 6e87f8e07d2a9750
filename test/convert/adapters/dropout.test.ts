// Dropout: is_test 6 <-> 7, ratio 10 <-> 12, training_mode.

import { describe, expect, it } from "vitest";
import { convertAndCompare, convertText, nodeLines } from "../../helpers/convert.js";

const head = (opset: number, ir = 7) => `<ir_version: ${ir}, opset_import: ["" : ${opset}]>`;

describe("Dropout", () => {
  it("12 -> 10 in inference: the mask becomes all true (Dropout-10 leaves it undefined)", async () => {
    const m13 = `${head(13)}
g (float[3,4] x) => (float[3,4] y, bool[3,4] z) <float r = {0.3}> { y, z = Dropout(x, r) }`;
    const t11 = await convertAndCompare({ text: m13, target: 11 });
    expect(nodeLines(t11)).toEqual([
      "y = Dropout <ratio: float = 0.3> (x)",
      "z_shape = Shape (x)",
      "z = ConstantOfShape <value: tensor = bool[1] {1}> (z_shape)",
    ]);
  });
  it("training_mode true blocks the step down", () => {
    const m13 = `${head(13)}
g (float[3,4] x) => (float[3,4] y) <float r = {0.3}, bool t = {1}> { y = Dropout(x, r, t) }`;
    expect(() => convertText(m13, 11)).toThrow(/training_mode is true/);
  });
  it("10 -> 12: the ratio attribute becomes an input", async () => {
    const m10 = `${head(10, 5)}
g (float[3,4] x) => (float[3,4] y) { y = Dropout<ratio = 0.2>(x) }`;
    const t12 = await convertAndCompare({ text: m10, target: 12 });
    expect(nodeLines(t12)).toEqual([
      "y_ratio = Constant <value: tensor = float {0.2}> ()",
      "y = Dropout (x, y_ratio)",
    ]);
  });
  it("6 -> 7 drops is_test", async () => {
    const m6 = `${head(6, 3)}
g (float[3,4] x) => (float[3,4] y) { y = Dropout<is_test = 1>(x) }`;
    // onnxruntime has no Dropout-6 kernel: the model before runs in the interpreter only.
    const t7 = await convertAndCompare({ text: m6, target: 7, noOrtBefore: true });
    expect(nodeLines(t7)).toEqual(["y = Dropout (x)"]);
  });
});
