// The deployed corpus end to end (test/data/deployed: models quantized, converted to float16 or
// fused by onnxruntime's own tools; scripts/corpus/deployed-transforms.ts): `check` clean, `expand`
// to ai.onnx only, `convert` to 11/13/17/21, each result run on onnxruntime-node (the interpreter
// where onnxruntime cannot run the original) and judged against onnxruntime's outputs on the
// original (float16 models: against the float16 reference). Nothing may be wrong; what is refused
// or approximate must be one of the documented cases below (docs/semantics.md).

import { describe, expect, it } from "vitest";
import { deployedNames, loadDeployed } from "../../scripts/corpus/deployed-judge.js";
import {
  checkStep,
  convertStep,
  expandStep,
  ortRunsOriginal,
  type StepResult,
} from "../../scripts/corpus/deployed-transforms.js";

/** Documented outcomes other than pass, by model and step. */
const EXPECTED: Record<
  string,
  Record<string, { outcome: StepResult["outcome"]; detail: RegExp }>
> = {
  ort_mul_1: { check: { outcome: "reported", detail: /initializer 'W' is not a graph input/ } },
};

describe("the deployed corpus through check, expand and convert", () => {
  const names = deployedNames();
  it.each(names)("%s", async (name) => {
    const m = loadDeployed(name);
    const onOrt = await ortRunsOriginal(m);
    const steps: Record<string, StepResult> = {
      check: checkStep(m),
      expand: await expandStep(m, onOrt),
    };
    for (const t of [11, 13, 17, 21]) steps[`convert ${t}`] = await convertStep(m, t, onOrt);
    for (const [step, r] of Object.entries(steps)) {
      const want = EXPECTED[name]?.[step];
      if (want) {
        expect(r.outcome, `${step}: ${r.detail}`).toBe(want.outcome);
        expect(r.detail).toMatch(want.detail);
      } else expect(`${step}: ${r.outcome}: ${r.detail}`).toMatch(new RegExp(`^${step}: pass: `));
    }
  });
});
