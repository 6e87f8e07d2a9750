// Upsample/Resize, Dropout, BatchNormalization, ArgMax/ArgMin select_last_index.

import { describe, expect, it } from "vitest";
import { DataType, T, f32 } from "../helpers/interp.js";
import { convertAndCompare, convertText, nodeLines } from "../helpers/convert.js";

const head = (opset: number, ir = 7) => `<ir_version: ${ir}, opset_import: ["" : ${opset}]>`;

describe("Upsample and Resize", () => {
  it("Upsample-7 (scales attribute) -> Upsample-9 -> Resize-10 -> Resize-11 with asymmetric/floor", async () => {
    const m7 = `${head(7, 3)}
g (float[1,1,2,3] x) => (float[1,1,4,6] y) { y = Upsample<scales = [1.0, 1.0, 2.0, 2.0]>(x) }`;
    const t9 = await convertAndCompare({ text: m7, target: 9, noOrtBefore: true });
    expect(nodeLines(t9)).toEqual([
      "y_scales = Constant <value: tensor = float[4] {1.0, 1.0, 2.0, 2.0}> ()",
      "y = Upsample (x, y_scales)",
    ]);
    const t10 = await convertAndCompare({ text: t9, target: 10 });
    expect(nodeLines(t10)[1]).toBe("y = Resize (x, y_scales)");
    const t11 = await convertAndCompare({ text: t10, target: 11 });
    expect(nodeLines(t11)).toEqual([
      "y_scales = Constant <value: tensor = float[4] {1.0, 1.0, 2.0, 2.0}> ()",
      "y_roi = Constant <value: tensor = float[0] {}> ()",
      'y = Resize <coordinate_transformation_mode: string = "asymmetric", nearest_mode: string = "floor"> (x, y_roi, y_scales)',
    ]);
    // And all the way back: 11 -> 10 keeps Resize, below 10 Resize does not exist.
    const back = await convertAndCompare({ text: t11, target: 10 });
    expect(nodeLines(back)[1]).toBe("y = Resize (x, y_scales)");
  });
  it("linear Upsample-9 to Resize-11 gives the same numbers", async () => {
    const m9 = `${head(9, 4)}
g (float[1,2,3,3] x) => (float[1,2,6,9] y) <float[4] s = {1.0, 1.0, 2.0, 3.0}> { y = Upsample<mode = "linear">(x, s) }`;
    await convertAndCompare({ text: m9, target: 13 });
  });
  it("Resize-11 down to 10 blocks other coordinate modes", () => {
    const m11 = `${head(11)}
g (float[1,1,2,2] x) => (float[1,1,4,4] y) <float[0] roi = {}, float[4] s = {1.0, 1.0, 2.0, 2.0}> { y = Resize<mode = "linear">(x, roi, s) }`;
    expect(() => convertText(m11, 10)).toThrow(/half_pixel/);
  });
  it("Resize-13 with omitted roi/scales gets empty constants at 11", async () => {
    const m13 = `${head(13)}
g (float[1,1,2,2] x) => (float[1,1,3,5] y) <int64[4] sz = {1, 1, 3, 5}> { y = Resize<mode = "nearest">(x, , , sz) }`;
    const t11 = await convertAndCompare({ text: m13, target: 11 });
    expect(nodeLines(t11)).toEqual([
      "y_roi = Constant <value: tensor = float[0] {}> ()",
      "y_scales = Constant <value: tensor = float[0] {}> ()",
      'y = Resize <mode: string = "nearest"> (x, y_roi, y_scales, sz)',
    ]);
  });
});

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

describe("ArgMax/ArgMin 12 -> 11", () => {
  for (const op of ["ArgMax", "ArgMin"])
    it(`${op} select_last_index=1 becomes the reversed input counted from the end`, async () => {
      const m13 = `${head(13)}
g (float[2,5] x) => (int64[2,1] y) { y = ${op}<axis = 1, select_last_index = 1>(x) }`;
      // Ties, so that first and last differ.
      const feeds = { x: f32([2, 5], [1, 3, 3, 0, 3, -1, -1, 2, 2, -1]) };
      const t11 = await convertAndCompare({ text: m13, target: 11, feeds });
      expect(nodeLines(t11)).toContain(`y_from_end = ${op} <axis: int = 1> (x_reversed)`);
      expect(nodeLines(t11).at(-1)).toBe("y = Sub (y_last, y_from_end)");
    });
  it("an axis of unknown size is measured at run time", async () => {
    const m13 = `${head(13)}
g (float[2,N] x) => (int64[2] y) { y = ArgMax<axis = -1, keepdims = 0, select_last_index = 1>(x) }`;
    const feeds = { x: f32([2, 4], [5, 5, 1, 5, 0, 2, 2, 1]) };
    const t11 = await convertAndCompare({ text: m13, target: 11, feeds });
    expect(nodeLines(t11)).toContain("x_shape = Shape (x)");
  });
});
