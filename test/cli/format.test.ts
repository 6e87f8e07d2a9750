// How the CLI prints tensors.

import { describe, expect, it } from "vitest";
import { summarizeTensor } from "../../src/cli/format.js";
import { DataType, T } from "../helpers/interp.js";

describe("tensor display", () => {
  it("summarises a tensor with its leading values", () => {
    expect(
      summarizeTensor("y", T(DataType.INT64, [2, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 3),
    ).toBe("y: int64 [2,5] = 1, 2, 3, ... (10 values)");
  });
});
