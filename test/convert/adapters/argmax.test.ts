// ArgMax/ArgMin 12 -> 11: select_last_index.

import { describe, expect, it } from "vitest";
import { f32 } from "../../helpers/interp.js";
import { convertAndCompare, nodeLines } from "../../helpers/convert.js";

const head = (opset: number, ir = 7) => `<ir_version: ${ir}, opset_import: ["" : ${opset}]>`;

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
