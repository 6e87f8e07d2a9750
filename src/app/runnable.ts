// Whether a model can be run as written. The interpreter's kernels follow the latest op version
// and read attributes by name, so without this check an op missing from the imported opset, or an
// attribute of the wrong type, would run anyway (silently using a default). The command line's
// run and the page's Run both refuse such a model, with the same message.

import { checkModel, formatProblem, type ProblemCode } from "../check/index.js";
import { OnnxError } from "../errors.js";
import type { Model } from "../ir/types.js";

/** Checker findings that make a model unrunnable as written. */
export const RUN_BLOCKERS: ReadonlySet<ProblemCode> = new Set<ProblemCode>([
  "opset-import",
  "domain-not-imported",
  "unknown-op",
  "op-not-in-opset",
  "attribute-type",
  "duplicate-attribute",
  "duplicate-value",
  "input-count",
  "output-count",
  "ref-attribute",
  "function-cycle",
]);

/** Throws an E_MODEL error naming the first blocker (and how many more) when `model` cannot run. */
export function assertRunnable(model: Model, where: string): void {
  const blockers = checkModel(model).problems.filter((p) => RUN_BLOCKERS.has(p.code));
  if (blockers.length === 0) return;
  const more =
    blockers.length > 1 ? ` (and ${blockers.length - 1} more; 'onnx-expand check' lists them)` : "";
  throw new OnnxError("E_MODEL", `${formatProblem(blockers[0]!)}${more}`, where);
}
