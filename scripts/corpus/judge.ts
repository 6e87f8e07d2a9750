// The corpus of real models as test cases: an npm-shipped model with the inputs made for it and
// onnxruntime's outputs as the reference, or an exported backend-test folder; and each model
// transformed (converted to an opset, expanded) and judged against that reference. Shared by
// scripts/corpus.ts (`npm run corpus`) and the sample in npm test (test/corpus/).

import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { expand } from "../../src/app/transform.js";
import { DEFAULT_TOLERANCE, type Tolerance } from "../../src/interp/backend-test.js";
import type { RTensor } from "../../src/interp/types.js";
import { loadModel } from "../../src/io/files.js";
import { runOrt } from "../../test/helpers/ort.js";
import {
  judgeRuns,
  loadCorpusModel,
  type ConversionOutcome,
  type CorpusModel,
} from "../convert-corpus.js";
import { packagePath, type NpmModel } from "./npm-models.js";

/** The opsets every model is converted to. */
export const TARGETS = [11, 13, 17, 18, 21, 26];

/**
 * How a transformed model's outputs are judged against the original's on the same runtime: by
 * the norm-wise error of each output (a conversion may reorder arithmetic, which moves elements
 * near 0 by more than an element-wise rtol allows; see README, "Comparing outputs").
 */
export const CORPUS_TOLERANCE: Tolerance = { ...DEFAULT_TOLERANCE, normRtol: 1e-4 };

/** An npm-shipped model as a corpus model: its inputs, and onnxruntime's outputs for them. */
export async function npmCorpusModel(n: NpmModel): Promise<CorpusModel> {
  const dir = packagePath(n.file);
  const model = loadModel(dir);
  const inputs = await n.inputs();
  const outputs: Record<string, RTensor> = await runOrt(model, inputs);
  const opset =
    model.opsetImports.find((o) => o.domain === "" || o.domain === "ai.onnx")?.version ?? 0;
  return { dir, name: n.name, model, opset, sets: [{ inputs, outputs }] };
}

/** The exported backend-test folders under `root` (those export.py finished). */
export function exportedDirs(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .sort()
    .map((d) => join(root, d))
    .filter(
      (d) =>
        statSync(d).isDirectory() &&
        existsSync(join(d, "model.onnx")) &&
        existsSync(join(d, "test_data_set_0")) &&
        !existsSync(join(d, "FAILED")),
    );
}

export function exportedCorpusModel(dir: string): CorpusModel | undefined {
  return loadCorpusModel(dir);
}

/** The model expanded (every function op replaced by its body) and run; refused with the reason. */
export async function expandAndRun(
  m: CorpusModel,
  interpreter: boolean,
  tol: Tolerance = CORPUS_TOLERANCE,
  keep = false,
): Promise<Omit<ConversionOutcome, "target">> {
  let r;
  try {
    r = expand(m.model);
  } catch (e) {
    return { outcome: "error", reason: `expand: ${(e as Error).message.split("\n")[0]}` };
  }
  if (!r.ok) {
    const n = r.notes.find((x) => x.level === "error") ?? r.notes[0];
    return {
      outcome: "refused",
      reason: n ? `${n.where ? `${n.where}: ` : ""}${n.message}` : "refused",
    };
  }
  return judgeRuns(r.model, m, interpreter, tol, keep);
}
