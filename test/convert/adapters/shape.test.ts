// Shape-15 with start/end going below 15: the whole shape, then a Slice along axis 0 with the
// same start and end (Slice clamps negative and out-of-range bounds the way Shape-15 does).

import { describe, expect, it } from "vitest";
import { convertAndCompare, nodeLines } from "../../helpers/convert.js";

const model = (attrs: string) => `
  < ir_version: 8, opset_import: ["" : 15] >
  g (float[2,3,4,5] x) => (int64[] y) {
    y = Shape ${attrs} (x)
  }`;

describe("Shape start/end to opsets before 15", () => {
  const cases: [string, string][] = [
    ["start only", "<start: int = 1>"],
    ["end only, negative", "<end: int = -1>"],
    ["both, negative start", "<start: int = -3, end: int = 3>"],
    ["clamped out of range", "<start: int = -10, end: int = 10>"],
    ["empty range", "<start: int = 3, end: int = 1>"],
  ];
  for (const [what, attrs] of cases)
    it(what, async () => {
      // Below 10 the Slice takes attributes: the largest int64 ("to the end") must stay one.
      for (const target of [13, 11, 9]) {
        const out = await convertAndCompare({ text: model(attrs), target });
        expect(nodeLines(out).some((l) => l.startsWith("y = Slice "))).toBe(true);
        expect(out).not.toMatch(/\bstart:|\bend:/);
      }
    });

  it("start 0 and no end: just Shape", async () => {
    const out = await convertAndCompare({ text: model("<start: int = 0>"), target: 13 });
    expect(nodeLines(out)).toEqual(["y = Shape (x)"]);
  });
});
