// Clip 6 <-> 11 and 1 <-> 6: bounds become inputs, absent bounds are written out.

import { describe, expect, it } from "vitest";
import { f32 } from "../../helpers/interp.js";
import { convertAndCompare, convertText, nodeLines } from "../../helpers/convert.js";

const head = (opset: number) => `<ir_version: 7, opset_import: ["" : ${opset}]>`;
const infs = { x: f32([2, 3], [-Infinity, -1e39, -2, 0.5, 7, Infinity]) };

describe("Clip 6 <-> 11", () => {
  it("absent min/max of Clip-6 are the float limits, written out (infinite inputs stay finite)", async () => {
    const m6 = `${head(6)}
g (float[2,3] x) => (float[2,3] y) { y = Clip<max = 5.0>(x) }`;
    const t = await convertAndCompare({ text: m6, target: 11, feeds: infs });
    expect(nodeLines(t)).toEqual([
      "y_min = Constant <value: tensor = float {-3.4028235e+38}> ()",
      "y_max = Constant <value: tensor = float {5.0}> ()",
      "y = Clip (x, y_min, y_max)",
    ]);
  });
  it("absent inputs of Clip-11 are no bound: +-inf attributes", async () => {
    const m11 = `${head(11)}
g (float[2,3] x) => (float[2,3] y) <float lo = {-1.0}> { y = Clip(x, lo) }`;
    // onnxruntime's Clip-11 bounds an absent max by the float limit, unlike the specification's
    // "no bound" (which the interpreter follows), so only the converted model runs on it.
    const t = await convertAndCompare({
      text: m11,
      target: 6,
      feeds: infs,
      noOrtBefore: true,
    });
    expect(nodeLines(t)).toEqual(["y = Clip <min: float = -1.0, max: float = inf> (x)"]);
  });
  it("a double input gets double bounds", async () => {
    const m6 = `${head(6)}
g (double[4] x) => (double[4] y) { y = Clip<min = -1.0, max = 1.0>(x) }`;
    // onnxruntime has no Clip-6 kernel for double.
    await convertAndCompare({ text: m6, target: 12, noOrtBefore: true });
  });
  it("Clip-1's absent bounds are none: +-inf at 6; Clip-6's are the float limits at 1", async () => {
    const m1 = `${head(1)}
g (float[2,3] x) => (float[2,3] y) { y = Clip<max = 5.0, consumed_inputs = [0]>(x) }`;
    const t6 = await convertAndCompare({
      text: m1,
      target: 6,
      feeds: infs,
      noOrtBefore: true,
      noOrtAfter: true,
    });
    expect(nodeLines(t6)).toEqual(["y = Clip <min: float = -inf, max: float = 5.0> (x)"]);
    const m6 = `${head(6)}
g (float[2,3] x) => (float[2,3] y) { y = Clip<min = 0.0>(x) }`;
    const t1 = await convertAndCompare({
      text: m6,
      target: 1,
      feeds: infs,
      noOrtBefore: true,
      noOrtAfter: true,
    });
    expect(nodeLines(t1)).toEqual(["y = Clip <min: float = 0.0, max: float = 3.4028235e+38> (x)"]);
  });
  it("bounds computed at run time block the step down", () => {
    const m11 = `${head(11)}
g (float[2] x, float lo) => (float[2] y) { y = Clip(x, lo) }`;
    expect(() => convertText(m11, 6)).toThrow(/'min' .*computed at run time/);
  });
});
