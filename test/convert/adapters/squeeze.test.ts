// Squeeze/Unsqueeze 11 <-> 13: the axes attribute becomes an input and back.

import { describe, expect, it } from "vitest";
import { convertAndCompare, convertText, nodeLines } from "../../helpers/convert.js";

const head = (opset: number) => `<ir_version: 7, opset_import: ["" : ${opset}]>`;

describe("Squeeze/Unsqueeze 11 <-> 13", () => {
  it("Unsqueeze axes attribute -> constant input and back", async () => {
    const m11 = `${head(11)}
g (float[2,3] x) => (float[1,2,3,1] y) { y = Unsqueeze<axes = [0, -1]>(x) }`;
    const t13 = await convertAndCompare({ text: m11, target: 13 });
    expect(nodeLines(t13)).toEqual([
      "y_axes = Constant <value: tensor = int64[2] {0, -1}> ()",
      "y = Unsqueeze (x, y_axes)",
    ]);
    const t11 = await convertAndCompare({ text: t13, target: 11 });
    expect(nodeLines(t11)).toEqual(["y = Unsqueeze <axes: ints = [0, -1]> (x)"]);
  });
  it("Squeeze without axes stays without", async () => {
    const m11 = `${head(11)}
g (float[1,3,1] x) => (float[3] y) { y = Squeeze(x) }`;
    const t13 = await convertAndCompare({ text: m11, target: 13 });
    expect(nodeLines(t13)).toEqual(["y = Squeeze (x)"]);
    expect(nodeLines(await convertAndCompare({ text: t13, target: 11 }))).toEqual([
      "y = Squeeze (x)",
    ]);
  });
  it("Squeeze axes from an initializer become the attribute", async () => {
    const m13 = `${head(13)}
g (float[1,3,1] x) => (float[1,3] y) <int64[1] ax = {2}> { y = Squeeze(x, ax) }`;
    const t11 = await convertAndCompare({ text: m13, target: 11 });
    expect(nodeLines(t11)).toEqual(["y = Squeeze <axes: ints = [2]> (x)"]);
  });
  it("axes computed at run time block the step down", () => {
    const m13 = `${head(13)}
g (float[1,3,1] x, int64[1] ax) => (float[1,3] y) { y = Squeeze(x, ax) }`;
    expect(() => convertText(m13, 11)).toThrow(/computed at run time/);
  });
});
