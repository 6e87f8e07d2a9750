// Checking a loaded model, the one way for the command line's `check` and the page (its problems
// panel and the types it shows): the checker's analysis (check/analyze.ts), every problem listed
// and the types it inferred, and the verdict.

import { analyzeModel, type Analysis } from "../check/analyze.js";
import type { OpRegistry } from "../check/report.js";
import type { Model } from "../ir/types.js";
import { SchemaRegistry } from "../schema/registry.js";

/** A model's analysis and its verdict: ok when the checker found no problem. */
export interface ModelCheck extends Analysis {
  ok: boolean;
}

/** The checker's verdict on a model (the problems, warnings and inferred types of analyzeModel). */
export function checkLoaded(
  model: Model,
  registry: OpRegistry = SchemaRegistry.default(),
): ModelCheck {
  const analysis = analyzeModel(model, { registry });
  return { ...analysis, ok: analysis.problems.length === 0 };
}
