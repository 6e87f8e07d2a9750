// Whether a model can be run as written, and a run of one. The interpreter's kernels follow the
// latest op version and read attributes by name, so without this check an op missing from the
// imported opset, or an attribute of the wrong type, would run anyway (silently using a
// default). The command line's run and the page's Run both run models through runModels, so both
// refuse such a model with the same message.

import { checkModel } from "../check/index.js";
import { blockersMessage, RUN_BLOCKERS } from "../check/validate.js";
import { OnnxError } from "../errors.js";
import { MemoryBudget, withBudget } from "../interp/budget.js";
import { runValues, type RunOptions } from "../interp/executor.js";
import type { RValue } from "../interp/types.js";
import type { Model } from "../ir/types.js";

export { RUN_BLOCKERS } from "../check/validate.js";

/** Throws an E_MODEL error naming the first blocker (and how many more) when `model` cannot run. */
export function assertRunnable(model: Model, where: string): void {
  const blockers = checkModel(model).problems.filter((p) => RUN_BLOCKERS.has(p.code));
  if (blockers.length === 0) return;
  throw new OnnxError("E_MODEL", blockersMessage(blockers), where);
}

/**
 * Models run as `run` runs them: each refused first when it cannot run as written (all of them
 * before anything else), then the inputs bound (`bind`, once: input errors come after the
 * model's), then each model run in the interpreter on them. `name`: how errors and `progress`
 * name a model.
 */
export function runModels(
  models: { name: string; model: Model }[],
  bind: () => Record<string, RValue>,
  opts: RunOptions | ((index: number) => RunOptions) = {},
  progress: (text: string) => void = () => {},
): { inputs: Record<string, RValue>; outputs: Record<string, RValue>[] } {
  for (const m of models) assertRunnable(m.model, m.name);
  // Inputs (random ones, decoded files) are made under the run's memory budget: one that would
  // not fit is refused before it is made.
  const first = typeof opts === "function" ? opts(0) : opts;
  const inputs =
    first.maxMemory === undefined
      ? bind()
      : withBudget(new MemoryBudget(first.maxMemory, undefined, first.budgetName), bind);
  const outputs = models.map((m, i) => {
    progress(`running ${m.name}…`);
    return runValues(m.model, inputs, typeof opts === "function" ? opts(i) : opts);
  });
  return { inputs, outputs };
}
