// Slice 1 <-> 10 and TopK 1 <-> 10: attributes become inputs and back.

import { describe, expect, it } from "vitest";
import { convertAndCompare, convertText, nodeLines } from "../../helpers/convert.js";

const head = (opset: number) => `<ir_version: 7, opset_import: ["" : ${opset}]>`;

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
