// Integer Max/Min/Clip below 12: carried in a wider type the older version takes.

import { describe, expect, it } from "vitest";
import { DataType, T } from "../../helpers/interp.js";
import { convertAndCompare, nodeLines } from "../../helpers/convert.js";
import { convertModel } from "../../../src/convert/index.js";
import { parseModelText } from "../../../src/text/index.js";

const head = (opset: number, ir = 7) => `<ir_version: ${ir}, opset_import: ["" : ${opset}]>`;

describe("integer Max/Min/Clip below 12", () => {
  it("int8 Max is carried in float and cast back", async () => {
    const m = `${head(13)}
g (int8[4] a, int8[4] b) => (int8[4] y) { y = Max(a, b) }`;
    const feeds = {
      a: T(DataType.INT8, [4], [-128, 5, 7, 127]),
      b: T(DataType.INT8, [4], [3, -4, 7, -128]),
    };
    const t = await convertAndCompare({ text: m, target: 11, feeds });
    expect(nodeLines(t)).toEqual([
      "a_float = Cast <to: int = 1> (a)",
      "b_float = Cast <to: int = 1> (b)",
      "y_float = Max (a_float, b_float)",
      "y = Cast <to: int = 3> (y_float)",
    ]);
  });
  it("int64 Min (not exact in double) is written with Less and Where", async () => {
    const m = `${head(13)}
g (int64[3] a, int64[3] b, int64[3] c) => (int64[3] y) { y = Min(a, b, c) }`;
    const big = 2n ** 62n + 1n;
    const feeds = {
      a: T(DataType.INT64, [3], [big, 1n, -5n]),
      b: T(DataType.INT64, [3], [big - 1n, 2n, -5n]),
      c: T(DataType.INT64, [3], [big + 1n, 0n, 7n]),
    };
    const t = await convertAndCompare({ text: m, target: 11, feeds });
    expect(nodeLines(t)).toEqual([
      "y_partial_less = Less (a, b)",
      "y_partial = Where (y_partial_less, a, b)",
      "y_less = Less (y_partial, c)",
      "y = Where (y_less, y_partial, c)",
    ]);
  });
  it("int64 Max going below 9 is refused at its first step, one node, not as the Where nodes it would write", () => {
    const inputs = Array.from({ length: 2000 }, (_, i) => `x${i}`);
    const m = `${head(13)}
g (${inputs.map((x) => `int64[3] ${x}`).join(", ")}) => (int64[3] y) { y = Max(${inputs.join(", ")}) }`;
    const r = convertModel(parseModelText(m), 7);
    expect(r.model).toBeUndefined();
    expect(r.plan.blocked.map((b) => b.message)).toEqual([
      "Max-8 lacks the element type of 'x0'; written with Greater/Less and Where instead, which do not exist before opset 9 (target 7)",
    ]);
    // At 9 the same node converts (Greater and Where take int64 there).
    expect(convertModel(parseModelText(m), 9).model).toBeDefined();
  });
  it("int8 Clip with bounds is carried in float", async () => {
    const m = `${head(13)}
g (int8[5] x) => (int8[5] y) <int8 lo = {-3}, int8 hi = {4}> { y = Clip(x, lo, hi) }`;
    const feeds = { x: T(DataType.INT8, [5], [-128, -3, 0, 5, 127]) };
    await convertAndCompare({ text: m, target: 11, feeds });
  });
});
