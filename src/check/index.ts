// The checker and type/shape inference: checkModel reports every problem in one run;
// inferTypes gives the type of each value the walk could work out.

import { OnnxError } from "../errors.js";
import type { Model } from "../ir/types.js";
import { analyze, type InferOptions } from "./infer.js";
import { formatProblem, type CheckReport } from "./report.js";

export { analyzeModel, type Analysis } from "./analyze.js";
export { minIrVersionForOpset } from "../schema/ir-versions.js";
export { inferTypes, inferScopeTypes, withInferredValueInfo, type InferOptions } from "./infer.js";
export {
  formatProblem,
  type CheckReport,
  type CheckWarning,
  type OpRegistry,
  type Problem,
  type ProblemCode,
} from "./report.js";
export { modelFunctions, operatorAt } from "./functions.js";
export { memoryWarnings, type MemoryWarning } from "./memory.js";
export { broadcastShapes, describeType, mergeTypes, parseTypeString, typeString } from "./types.js";

export type CheckOptions = InferOptions;

/** Checks a model against the IR rules and the operator schemas; lists every problem found. */
export function checkModel(model: Model, opts: CheckOptions = {}): CheckReport {
  const { problems, warnings } = analyze(model, opts);
  return { ok: problems.length === 0, problems, warnings };
}

/**
 * Throws OnnxError E_CHECK when the model has problems: the message names the first one and
 * how many there are (`problems` on the error lists them all). For passes that require a valid model.
 */
export function assertModelValid(model: Model, opts: CheckOptions = {}): void {
  const { problems } = checkModel(model, opts);
  if (problems.length === 0) return;
  const more =
    problems.length > 1
      ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})`
      : "";
  const err = new OnnxError("E_CHECK", `${formatProblem(problems[0]!)}${more}`);
  throw Object.assign(err, { problems });
}
