// The interpreter on the deployed corpus (test/data/deployed: models quantized, converted to
// float16 or fused by onnxruntime's own tools): every model runs, and its outputs match
// onnxruntime's by the corpus rule (scripts/corpus/deployed-judge.ts): within 1e-4 norm-wise of
// onnxruntime with or without its graph optimizations, or within the spread between the two;
// float16 models within 2^-10 of the float64 reference rounded to float16 at each op boundary.

import { describe, expect, it } from "vitest";
import { runValues } from "../../src/interp/executor.js";
import { deployedNames, judgeDeployed, loadDeployed } from "../../scripts/corpus/deployed-judge.js";

/**
 * Models whose kernels are approximate against onnxruntime, with the reason (docs/semantics.md,
 * "onnxruntime's operators"); they still run, and are held to the bound given.
 */
const APPROXIMATE: Record<string, { norm: number; why: string }> = {
  lstm_dynamic: {
    norm: 1e-3,
    why:
      "DynamicQuantizeLSTM matches onnxruntime to 6e-8, but its output is quantized again downstream " +
      "(DynamicQuantizeLinear): onnxruntime's float32 tanh/logistic differ from ours in the last bit, " +
      "which moves 26 of 1,280 values by one quantum there",
  },
};

describe("the interpreter on the deployed corpus", () => {
  const names = deployedNames();
  it("has the corpus", () => expect(names.length).toBeGreaterThanOrEqual(39));
  it.each(names)("%s", (name) => {
    const m = loadDeployed(name);
    const got = runValues(m.model, m.sets[0]!.inputs);
    const v = judgeDeployed(m, got);
    const approx = APPROXIMATE[name];
    if (approx) expect(v.worstNorm, approx.why).toBeLessThanOrEqual(approx.norm);
    else expect(v.ok, v.detail).toBe(true);
  });
});
