// The checker and type/shape inference: checkModel reports every problem in one run;
// inferTypes gives the type of each value the walk could work out.

import type { Model } from "../ir/types.js";
import { analyze, type InferOptions } from "./infer.js";
import type { CheckReport } from "./report.js";

export { analyzeModel, minIrVersionForOpset, type Analysis } from "./analyze.js";
export { inferTypes, inferScopeTypes, withInferredValueInfo, type InferOptions } from "./infer.js";
export {
  formatProblem,
  type CheckReport,
  type OpRegistry,
  type Problem,
  type ProblemCode,
} from "./report.js";
export { broadcastShapes, describeType, mergeTypes, parseTypeString, typeString } from "./types.js";

export type CheckOptions = InferOptions;

/** Checks a model against the IR rules and the operator schemas; lists every problem found. */
export function checkModel(model: Model, opts: CheckOptions = {}): CheckReport {
  const { problems } = analyze(model, opts);
  return { ok: problems.length === 0, problems };
}
