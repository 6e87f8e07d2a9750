// The real-model exports with every module a model-local function (torch's legacy exporter,
// export_modules_as_functions; corpus/exported/*_functions_op17, made by scripts/corpus/export.py,
// skipped where absent): each converts to opset 11 and 13 — function ops the target lacks lowered
// inside the functions, functions copied per call signature where their calls differ — and gives
// onnxruntime-node's numbers for the model as exported, norm-wise within 1e-5.

import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { convertModel } from "../../src/app/transform.js";
import { floatErrors } from "../../src/interp/backend-test.js";
import type { RTensor } from "../../src/interp/types.js";
import { loadCorpusModel } from "../../scripts/convert-corpus.js";
import { runOrt } from "../helpers/ort.js";

const ROOT = resolve("corpus/exported");
const names = existsSync(ROOT)
  ? readdirSync(ROOT)
      .filter((d) => /_functions_op\d+$/.test(d) && existsSync(join(ROOT, d, "model.onnx")))
      .filter((d) => !existsSync(join(ROOT, d, "FAILED")))
      .sort()
  : [];
if (names.length === 0)
  console.warn(`skipped: the all-functions exports (needs ${ROOT}: scripts/corpus/export.py)`);

/** The worst norm-wise error of b's outputs against a's (floatErrors: same type and shape). */
function normWise(a: Record<string, RTensor>, b: Record<string, RTensor>): number {
  let worst = 0;
  for (const [k, x] of Object.entries(a)) {
    const e = floatErrors(b[k]!, x);
    expect(e, `output '${k}': a float tensor of the same type and shape`).toBeDefined();
    worst = Math.max(worst, e!.norm);
  }
  return worst;
}

describe.skipIf(names.length === 0)("all-functions exports convert down", () => {
  for (const name of names)
    it(`${name} to 11 and 13, onnxruntime's numbers`, { timeout: 300_000 }, async () => {
      const corpus = loadCorpusModel(join(ROOT, name))!;
      const feeds = corpus.sets[0]!.inputs as Record<string, RTensor>;
      const expected = await runOrt(corpus.model, feeds);
      for (const target of [13, 11]) {
        const r = convertModel(corpus.model, target);
        expect(r.plan.blocked.map((b) => `${b.where}: ${b.message}`)).toEqual([]);
        expect(r.model!.functions.length, "the functions stay functions").toBeGreaterThan(0);
        const got = await runOrt(r.model!, feeds);
        expect(normWise(expected, got), `${name} -> ${target}`).toBeLessThanOrEqual(1e-5);
      }
    });
});
