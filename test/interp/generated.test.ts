// Generated models (scripts/generate/model.ts): the checker accepts them, and the interpreter and
// onnxruntime-node agree on them. `npm run differential` runs thousands; this is a fixed sample.

import { describe, expect, it } from "vitest";
import { checkModel } from "../../src/check/index.js";
import { deriveSeed } from "../../src/interp/random.js";
import { differentialCase, ortSide } from "../../scripts/generate/differential.js";
import { generateModel } from "../../scripts/generate/model.js";
import { NEWEST_OPSET } from "../helpers/registry.js";

describe("generated models", () => {
  it("are reproducible from the seed, and shorter step counts give prefixes", () => {
    const a = generateModel(42, { steps: 6 });
    const b = generateModel(42, { steps: 6 });
    const c = generateModel(42, { steps: 3 });
    expect(a.steps).toEqual(b.steps);
    expect(a.steps.slice(0, 3)).toEqual(c.steps);
  });

  it(`check clean across opsets 7-${NEWEST_OPSET}`, () => {
    const problems: string[] = [];
    for (let i = 0; i < 150; i++) {
      const g = generateModel(deriveSeed(7, i), { maxOpset: NEWEST_OPSET });
      const r = checkModel(g.model);
      if (!r.ok) problems.push(`seed ${g.seed}: ${r.problems[0]!.message}`);
    }
    expect(problems).toEqual([]);
  });

  it("give the same numbers in the interpreter and onnxruntime-node (120 models)", async () => {
    const bad: string[] = [];
    let agree = 0;
    for (let i = 0; i < 120; i++) {
      const r = await differentialCase(deriveSeed(20261202, i), ortSide, { maxOpset: 26 });
      if (r.outcome === "agree") agree++;
      else if (r.outcome !== "skipped") bad.push(`seed ${r.seed}: ${r.outcome}: ${r.detail}`);
    }
    expect(bad).toEqual([]);
    expect(agree).toBeGreaterThan(90);
  });
});
