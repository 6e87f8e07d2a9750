// GridSample 16 <-> 20, DFT 17 <-> 20, Cast below 19 and 24, Scatter -> ScatterElements.

import { describe, expect, it } from "vitest";
import { DataType, T, f32 } from "../../helpers/interp.js";
import { convertAndCompare, convertText, nodeLines } from "../../helpers/convert.js";

const head = (opset: number, ir = 7) => `<ir_version: ${ir}, opset_import: ["" : ${opset}]>`;

describe("GridSample 16 <-> 20", () => {
  const m16 = (mode: string) => `${head(16, 8)}
g (float[1,1,3,3] x, float[1,2,2,2] grid) => (float[1,1,2,2] y) { y = GridSample<mode = "${mode}">(x, grid) }`;
  it("bilinear -> linear, bicubic -> cubic, and back", async () => {
    const grid = f32([1, 2, 2, 2], [-0.9, -0.5, 0.2, 0.7, 1.0, -1.0, 0.1, 0.3]);
    const x = f32([1, 1, 3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const [old, now] of [
      ["bilinear", "linear"],
      ["bicubic", "cubic"],
      ["nearest", "nearest"],
    ]) {
      const t20 = await convertAndCompare({ text: m16(old!), target: 20, feeds: { x, grid } });
      expect(nodeLines(t20)).toEqual([`y = GridSample <mode: string = "${now}"> (x, grid)`]);
      const t16 = await convertAndCompare({ text: t20, target: 16, feeds: { x, grid } });
      expect(nodeLines(t16)).toEqual([`y = GridSample <mode: string = "${old}"> (x, grid)`]);
    }
  });
  it("a 5-D input blocks the step down", () => {
    const m20 = `${head(20, 9)}
g (float[1,1,2,2,2] x, float[1,1,1,1,3] grid) => (float[1,1,1,1,1] y) { y = GridSample(x, grid) }`;
    expect(() => convertText(m20, 16)).toThrow(/5-D/);
  });
});

describe("DFT 17 <-> 20", () => {
  it("axis attribute -> input and back", async () => {
    const m17 = `${head(17, 8)}
g (float[2,4,1] x) => (float[2,4,2] y) { y = DFT<axis = 1>(x) }`;
    const t20 = await convertAndCompare({ text: m17, target: 20 });
    expect(nodeLines(t20)).toEqual([
      "y_axis = Constant <value: tensor = int64 {1}> ()",
      'y = DFT (x, "", y_axis)',
    ]);
    const t17 = await convertAndCompare({ text: t20, target: 17 });
    expect(nodeLines(t17)).toEqual(["y = DFT <axis: int = 1> (x)"]);
  });
  it("DFT-20's default axis (-2) becomes rank - 2", async () => {
    const m20 = `${head(20, 9)}
g (float[3,4,2] x) => (float[3,4,2] y) { y = DFT(x) }`;
    const t17 = await convertAndCompare({ text: m20, target: 17 });
    expect(nodeLines(t17)).toEqual(["y = DFT <axis: int = 1> (x)"]);
  });
});

describe("Cast and Scatter", () => {
  it("Cast saturate goes below 19, round_mode below 24", async () => {
    const m = `${head(24, 10)}
g (float[3] x) => (int32[3] y) { y = Cast<to = 6, saturate = 1, round_mode = "up">(x) }`;
    const t = await convertAndCompare({ text: m, target: 13 });
    expect(nodeLines(t)).toEqual(["y = Cast <to: int = 6> (x)"]);
  });
  it("Scatter-9 becomes ScatterElements-11", async () => {
    const m9 = `${head(9, 4)}
g (float[3,3] x, int64[1,2] i, float[1,2] u) => (float[3,3] y) { y = Scatter<axis = 1>(x, i, u) }`;
    const feeds = {
      x: f32([3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]),
      i: T(DataType.INT64, [1, 2], [2, 0]),
      u: f32([1, 2], [-1, -2]),
    };
    const t = await convertAndCompare({ text: m9, target: 13, feeds });
    expect(nodeLines(t)).toEqual(["y = ScatterElements <axis: int = 1> (x, i, u)"]);
  });
});

describe("Flatten 11 -> 9", () => {
  const m11 = (axis: number) => `${head(11, 7)}
g (float[2,3,4] x) => (float[?,?] y) { y = Flatten <axis = ${axis}> (x) }`;
  it("a negative axis is counted from the front; the numbers stay", async () => {
    for (const [axis, front] of [
      [-1, 2],
      [-3, 0],
      [2, 2],
    ] as const) {
      const t9 = await convertAndCompare({ text: m11(axis), target: 9 });
      expect(nodeLines(t9)).toEqual([`y = Flatten <axis: int = ${front}> (x)`]);
    }
  });
});
