// Attribute <-> input steps: Clip 6<->11, Pad 2<->11 (and 18->13, 19->18), Slice 1<->10, TopK 1<->10.

import { describe, expect, it } from "vitest";
import { f32, i64 } from "../helpers/interp.js";
import { convertAndCompare, convertText, nodeLines } from "../helpers/convert-check.js";

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

describe("Pad", () => {
  it("2 -> 11 -> 2 with a constant value", async () => {
    const m2 = `${head(2)}
g (float[2,3] x) => (float[3,6] y) { y = Pad<pads = [0, 1, 1, 2], value = 1.5>(x) }`;
    const t11 = await convertAndCompare({ text: m2, target: 11 });
    expect(nodeLines(t11)).toEqual([
      "y_pads = Constant <value: tensor = int64[4] {0, 1, 1, 2}> ()",
      "y_value = Constant <value: tensor = float {1.5}> ()",
      "y = Pad (x, y_pads, y_value)",
    ]);
    const t2 = await convertAndCompare({ text: t11, target: 2 });
    expect(nodeLines(t2)).toEqual(["y = Pad <pads: ints = [0, 1, 1, 2], value: float = 1.5> (x)"]);
  });
  it("reflect mode keeps its mode and has no value input", async () => {
    const m2 = `${head(2)}
g (float[3,4] x) => (float[3,8] y) { y = Pad<mode = "reflect", pads = [0, 2, 0, 2]>(x) }`;
    const t11 = await convertAndCompare({ text: m2, target: 11 });
    expect(nodeLines(t11)[1]).toBe('y = Pad <mode: string = "reflect"> (x, y_pads)');
  });
  it("18 -> 13: pads for some axes are spread over all axes", async () => {
    const m18 = `${head(18)}
g (float[2,3] x) => (float[2,6] y) <int64[2] p = {1, 2}, int64[1] ax = {-1}> { y = Pad(x, p, , ax) }`;
    const t13 = await convertAndCompare({ text: m18, target: 13 });
    expect(nodeLines(t13)).toEqual([
      "y_pads = Constant <value: tensor = int64[4] {0, 1, 0, 2}> ()",
      "y = Pad (x, y_pads)",
    ]);
  });
  it("18 -> 13: pads computed at run time are spread by a Gather (as in Attention-23's body)", async () => {
    const m18 = `${head(18)}
g (float[2,3,2] x, int64[4] p) => (float[?,?,?] y) <int64[2] ax = {-1, 0}, float v = {-9.0}> { y = Pad(x, p, v, ax) }`;
    const feeds = {
      x: f32([2, 3, 2], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
      p: i64([4], [1, 0, 2, 1]),
    };
    const t13 = await convertAndCompare({ text: m18, target: 13, feeds });
    expect(nodeLines(t13)).toEqual([
      "y_zero = Constant <value: tensor = int64[1] {0}> ()",
      "y_pads_0 = Concat <axis: int = 0> (p, y_zero)",
      "y_pads_from = Constant <value: tensor = int64[6] {1, 4, 0, 3, 4, 2}> ()",
      "y_pads = Gather <axis: int = 0> (y_pads_0, y_pads_from)",
      "y = Pad (x, y_pads, v)",
    ]);
  });
  it("19 -> 18: wrap mode blocks", () => {
    const m19 = `${head(19)}
g (float[2,3] x) => (float[2,5] y) <int64[4] p = {0, 1, 0, 1}> { y = Pad<mode = "wrap">(x, p) }`;
    expect(() => convertText(m19, 18)).toThrow(/wrap/);
  });
});

describe("Slice 1 <-> 10, TopK 1 <-> 10", () => {
  it("Slice attributes -> inputs and back", async () => {
    const m1 = `${head(1)}
g (float[4,5] x) => (float[2,4] y) { y = Slice<starts = [1, -4], ends = [3, 1000], axes = [0, 1]>(x) }`;
    const t10 = await convertAndCompare({ text: m1, target: 10 });
    expect(nodeLines(t10)).toEqual([
      "y_starts = Constant <value: tensor = int64[2] {1, -4}> ()",
      "y_ends = Constant <value: tensor = int64[2] {3, 1000}> ()",
      "y_axes = Constant <value: tensor = int64[2] {0, 1}> ()",
      "y = Slice (x, y_starts, y_ends, y_axes)",
    ]);
    const t1 = await convertAndCompare({ text: t10, target: 1 });
    expect(nodeLines(t1)).toEqual([
      "y = Slice <starts: ints = [1, -4], ends: ints = [3, 1000], axes: ints = [0, 1]> (x)",
    ]);
  });
  it("Slice steps other than 1 block the step down", () => {
    const m10 = `${head(10)}
g (float[4] x) => (float[2] y) <int64[1] s = {0}, int64[1] e = {4}, int64[1] a = {0}, int64[1] st = {2}> { y = Slice(x, s, e, a, st) }`;
    expect(() => convertText(m10, 9)).toThrow(/steps \[2\]/);
  });
  it("TopK k -> K input and back; largest=0 blocks below 11", async () => {
    const m1 = `${head(1)}
g (float[3,5] x) => (float[3,2] v, int64[3,2] i) { v, i = TopK<k = 2>(x) }`;
    const t11 = await convertAndCompare({ text: m1, target: 11 });
    expect(nodeLines(t11)).toEqual([
      "v_k = Constant <value: tensor = int64[1] {2}> ()",
      "v, i = TopK (x, v_k)",
    ]);
    const t1 = await convertAndCompare({ text: t11, target: 1 });
    expect(nodeLines(t1)).toEqual(["v, i = TopK <k: int = 2> (x)"]);
    const small = `${head(11)}
g (float[3,5] x) => (float[3,2] v, int64[3,2] i) <int64[1] k = {2}> { v, i = TopK<largest = 0>(x, k) }`;
    expect(() => convertText(small, 10)).toThrow(/largest/);
  });
  it("an integer TopK cannot go below 11 (every row's type check: TopK-10 takes floats only)", () => {
    const int32 = `${head(11)}
g (int32[3,5] x) => (int32[3,2] v, int64[3,2] i) <int64[1] k = {2}> { v, i = TopK(x, k) }`;
    expect(() => convertText(int32, 10)).toThrow(/int32, which TopK-10 does not accept/);
  });
});
