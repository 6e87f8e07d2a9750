// Pad 2 <-> 11 (pads and value become inputs), 18 -> 13 (axes spread), 19 -> 18 (wrap).

import { describe, expect, it } from "vitest";
import { convertAndCompare, convertText, nodeLines } from "../../helpers/convert.js";
import { f32, i64 } from "../../helpers/interp.js";

const head = (opset: number) => `<ir_version: 7, opset_import: ["" : ${opset}]>`;

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
