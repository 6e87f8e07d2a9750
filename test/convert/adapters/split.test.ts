// Split 11 <-> 13 (split becomes an input) and 13 <-> 18 (num_outputs).

import { describe, expect, it } from "vitest";
import { convertAndCompare, convertText, nodeLines } from "../../helpers/convert.js";

const head = (opset: number) => `<ir_version: 7, opset_import: ["" : ${opset}]>`;

describe("Split", () => {
  it("11 -> 13 -> 18 -> 13 -> 11 with a split attribute", async () => {
    const m11 = `${head(11)}
g (float[2,6] x) => (float[2,1] a, float[2,5] b) { a, b = Split<axis = 1, split = [1, 5]>(x) }`;
    const t13 = await convertAndCompare({ text: m11, target: 13 });
    expect(nodeLines(t13)).toEqual([
      "a_split = Constant <value: tensor = int64[2] {1, 5}> ()",
      "a, b = Split <axis: int = 1> (x, a_split)",
    ]);
    const t18 = await convertAndCompare({ text: t13, target: 18 });
    expect(nodeLines(t18)).toEqual(nodeLines(t13));
    const t11 = await convertAndCompare({ text: t18, target: 11 });
    expect(nodeLines(t11)).toEqual(["a, b = Split <split: ints = [1, 5], axis: int = 1> (x)"]);
  });
  it("an even split without sizes gets num_outputs at 18, which goes again at 13", async () => {
    const m13 = `${head(13)}
g (float[6,2] x) => (float[2,2] a, float[2,2] b, float[2,2] c) { a, b, c = Split(x) }`;
    const t18 = await convertAndCompare({ text: m13, target: 18 });
    expect(nodeLines(t18)).toEqual(["a, b, c = Split <num_outputs: int = 3> (x)"]);
    const t11 = await convertAndCompare({ text: t18, target: 11 });
    expect(nodeLines(t11)).toEqual(["a, b, c = Split (x)"]);
  });
  it("an uneven num_outputs split becomes explicit sizes at 13", async () => {
    const m18 = `${head(18)}
g (float[7,2] x) => (float[3,2] a, float[3,2] b, float[1,2] c) { a, b, c = Split<num_outputs = 3>(x) }`;
    const t13 = await convertAndCompare({ text: m18, target: 13 });
    expect(nodeLines(t13)).toEqual([
      "a_split = Constant <value: tensor = int64[3] {3, 3, 1}> ()",
      "a, b, c = Split (x, a_split)",
    ]);
  });
  it("num_outputs along a dimension of unknown size blocks", () => {
    const m18 = `${head(18)}
g (float[N,2] x) => (float[?,2] a, float[?,2] b) { a, b = Split<num_outputs = 2>(x) }`;
    expect(() => convertText(m18, 13)).toThrow(/unknown size/);
  });
});
