// The checker never throws on a malformed model: whatever the inputs, attributes and types of a
// node, the result is a list of one-line problems. Deterministic pseudo-random models per op.

import { describe, expect, it } from "vitest";
import { checkModel, type Problem } from "../../src/check/index.js";
import { RULES } from "../../src/check/rules/index.js";
import { malformedVariants, prng } from "../helpers/hostile.js";

describe("malformed nodes", () => {
  const variant = malformedVariants(prng(20261202));
  const codes = new Set<string>();

  it.each([...RULES.keys()])("%s: 120 random variants check without throwing", (op) => {
    for (let it = 0; it < 120; it++) {
      const m = variant(op);
      let problems: Problem[] = [];
      expect(() => (problems = checkModel(m).problems)).not.toThrow();
      for (const p of problems) {
        codes.add(p.code);
        expect(p.message.length).toBeGreaterThan(0);
        expect(`${p.where}${p.message}`).not.toContain("\n");
      }
    }
  });

  it("the variants exercise many kinds of problem", () => {
    expect(codes.size).toBeGreaterThanOrEqual(10);
  });
});
