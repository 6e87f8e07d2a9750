// A fixed-seed sample of the fuzz campaign's malformed-function generator
// (scripts/fuzz/functions.ts): expand and convert end cleanly, refuse every malformed function
// (exit 2), and what they write checks clean.

import { describe, expect, it } from "vitest";
import { checkModel } from "../../src/check/index.js";
import { seededRandom, deriveSeed } from "../../src/interp/random.js";
import { parseModelText } from "../../src/text/parse.js";
import { runCampaign } from "../../scripts/fuzz/campaign.js";
import { FUNCTION_DEFECTS, malformedFunctionModel } from "../../scripts/fuzz/functions.js";

describe("malformed-function generator", () => {
  it("each defect but the valid ones is one the checker reports", () => {
    const seen = new Set<string>();
    for (let i = 0; seen.size < FUNCTION_DEFECTS.length && i < 400; i++) {
      const g = malformedFunctionModel(seededRandom(deriveSeed(5, i)));
      seen.add(g.kind);
      const r = checkModel(parseModelText(g.text));
      const valid = ["valid", "shadows-operator", "shadows-input"].includes(g.kind);
      expect(r.ok, `${g.kind}:\n${g.text}`).toBe(valid);
      expect(r.warnings.length > 0).toBe(g.kind === "shadows-operator");
    }
    expect(seen.size).toBe(FUNCTION_DEFECTS.length);
  });

  for (const command of ["expand", "convert"] as const)
    it(`${command}: 24 generated models end cleanly`, async () => {
      const s = await runCampaign({
        command,
        count: 24,
        seed: 20261203,
        jobs: 2,
        generator: "functions",
      });
      expect(s.findings.map((f) => `${f.outcome} case ${f.index}: ${f.detail}`)).toEqual([]);
      expect(s.exitCodes["2"]).toBeGreaterThan(0);
    });
});
