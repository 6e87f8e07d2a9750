// Upsample and Resize: scales attribute -> input, Upsample -> Resize, coordinate modes.

import { describe, expect, it } from "vitest";
import { convertAndCompare, convertText, nodeLines } from "../../helpers/convert.js";

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
