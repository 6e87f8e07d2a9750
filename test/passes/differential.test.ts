// Generated models (scripts/generate/) before and after each pass: converting up, down, and up then
// back down, and expanding, must keep the interpreter's numbers, give a model that passes check,
// and leave no function op after expand; a conversion may refuse, with its reason. A fixed sample;
// `npm run differential -- --mode <mode>` runs thousands.

import { describe, expect, it } from "vitest";
import { deriveSeed } from "../../src/interp/random.js";
import {
  convertDownSide,
  convertRoundTripSide,
  convertUpSide,
  differentialCase,
  expandSide,
  type Other,
} from "../../scripts/generate/differential.js";
import { NEWEST_OPSET } from "../helpers/registry.js";

const MODES: [string, Other, number][] = [
  ["convert up", convertUpSide, NEWEST_OPSET - 1],
  ["convert down", convertDownSide, NEWEST_OPSET],
  ["convert up then down", convertRoundTripSide, NEWEST_OPSET - 1],
  ["expand", expandSide, NEWEST_OPSET],
];

describe("generated models keep their numbers", () => {
  for (const [name, other, maxOpset] of MODES)
    it(`${name} (60 models)`, async () => {
      const bad: string[] = [];
      const outcomes: Record<string, number> = {};
      for (let i = 0; i < 60; i++) {
        const r = await differentialCase(deriveSeed(1202, i), other, { maxOpset });
        outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
        if (r.outcome !== "agree" && r.outcome !== "refused")
          bad.push(`seed ${r.seed}: ${r.outcome}: ${r.detail}`);
      }
      expect(bad).toEqual([]);
      expect(outcomes.agree ?? 0).toBeGreaterThan(40);
    });
});
