// The hostile-input families of the fuzz campaign (scripts/fuzz/hostile.ts): each case is the
// same for the same seed, and a short campaign of each ends with no crash and no hang (the full
// campaigns, 1,000 cases a family, are `npm run fuzz -- --command check --generator <family>`).

import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCampaign } from "../../scripts/fuzz/campaign.js";
import { HOSTILE_FAMILIES, hostileCase } from "../../scripts/fuzz/hostile.js";
import { seededRandom } from "../../src/interp/random.js";

describe("hostile fuzz families", () => {
  it("a case depends only on its seed", () => {
    for (const family of HOSTILE_FAMILIES) {
      const a = mkdtempSync(join(tmpdir(), "onnx-expand-families-"));
      const b = mkdtempSync(join(tmpdir(), "onnx-expand-families-"));
      const ca = hostileCase(family, seededRandom(7), a);
      const cb = hostileCase(family, seededRandom(7), b);
      expect(ca.kind).toBe(cb.kind);
      expect(ca.args.map((x) => x.replace(a, ""))).toEqual(cb.args.map((x) => x.replace(b, "")));
      expect(readFileSync(ca.file)).toEqual(readFileSync(cb.file));
    }
  });

  for (const family of HOSTILE_FAMILIES)
    it(`${family}: 12 cases, no crash, no hang`, async () => {
      const s = await runCampaign({
        command: "check",
        generator: family,
        count: 12,
        seed: 3,
        jobs: 1,
        keepDir: mkdtempSync(join(tmpdir(), "onnx-expand-families-kept-")),
      });
      expect(s.inputs).toBe(12);
      expect(s.findings.map((f) => `${f.mutation}: ${f.detail}`)).toEqual([]);
    }, 240_000);
});
