// A wider corpus: the ONNX backend test data Debian ships (libonnx-testdata; skipped where it is
// not installed). Every model checks clean except the few that really break the spec.

import { existsSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkModel, formatProblem } from "../../src/check/index.js";
import { loadModel } from "../../src/io/files.js";
import { LIBONNX_TESTDATA, libonnxPresent } from "../helpers/data.js";

const ROOT = `${LIBONNX_TESTDATA}/`;
const present = libonnxPresent("check on the libonnx-testdata corpus");

/**
 * Models whose problems are real: int64 Constants at opset 6 (Constant-1 allows floats only). (Four
 * models with IR 5 at opset 11 get a warning: ONNX's checker and onnxruntime accept them.)
 */
const KNOWN: Record<string, string[]> = {
  "pytorch-converted/test_PixelShuffle": ["type-not-allowed", "type-not-allowed"],
  "pytorch-operator/test_operator_repeat": ["type-not-allowed"],
  "pytorch-operator/test_operator_repeat_dim_overflow": ["type-not-allowed", "type-not-allowed"],
};

describe.skipIf(!present)("libonnx-testdata corpus", () => {
  it("every model checks clean, except the known spec violations, which are found", () => {
    const found: Record<string, string[]> = {};
    let count = 0;
    for (const sub of readdirSync(ROOT).sort()) {
      for (const d of readdirSync(ROOT + sub).sort()) {
        const file = `${ROOT}${sub}/${d}/model.onnx`;
        if (!existsSync(file)) continue;
        count++;
        const r = checkModel(loadModel(file));
        if (!r.ok) found[`${sub}/${d}`] = r.problems.map((p) => p.code);
        for (const p of r.problems) expect(formatProblem(p)).not.toContain("\n");
      }
    }
    expect(count).toBeGreaterThan(1000);
    expect(found).toEqual(KNOWN);
  });
});
