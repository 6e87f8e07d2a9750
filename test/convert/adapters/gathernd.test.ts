// GatherND 12 -> 11: batch_dims written into the indices.

import { describe, expect, it } from "vitest";
import { DataType, T, f32 } from "../../helpers/interp.js";
import { convertAndCompare, nodeLines } from "../../helpers/convert.js";

const head = (opset: number, ir = 7) => `<ir_version: ${ir}, opset_import: ["" : ${opset}]>`;

describe("GatherND 12 -> 11", () => {
  it("batch_dims=1 becomes indices prefixed with their batch coordinate", async () => {
    const m13 = `${head(13)}
g (float[2,3,2] x, int64[2,2,1] i) => (float[2,2,2] y) { y = GatherND<batch_dims = 1>(x, i) }`;
    const feeds = {
      x: f32([2, 3, 2], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
      i: T(DataType.INT64, [2, 2, 1], [2, 0, 1, 1]),
    };
    const t11 = await convertAndCompare({ text: m13, target: 11, feeds });
    expect(nodeLines(t11).at(-1)).toBe("y = GatherND (x, y_indices_full)");
  });
  it("batch_dims=2 prefixes two coordinates", async () => {
    const m13 = `${head(13)}
g (float[2,2,3] x, int64[2,2,1] i) => (float[2,2] y) { y = GatherND<batch_dims = 2>(x, i) }`;
    const feeds = {
      x: f32([2, 2, 3], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
      i: T(DataType.INT64, [2, 2, 1], [2, 0, 1, 1]),
    };
    await convertAndCompare({ text: m13, target: 11, feeds });
  });
});
