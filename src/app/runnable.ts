// Whether a model can be run as written. The interpreter's kernels follow the latest op version
// and read attributes by name, so without this check an op missing from the imported opset, or an
// attribute of the wrong type, would run anyway (silently using a default). The command line's
// run and the page's Run both refuse such a model, with the same message.

import { checkModel } from "../check/index.js";
import { blockersMessage, RUN_BLOCKERS } from "../check/validate.js";
import { OnnxError } from "../errors.js";
import type { Model } from "../ir/types.js";

export { RUN_BLOCKERS } from "../check/validate.js";

/** Throws an E_MODEL error naming the first blocker (and how many more) when `model` cannot run. */
export function assertRunnable(model: Model, where: string): void {
  const blockers = checkModel(model).problems.filter((p) => RUN_BLOCKERS.has(p.code));
  if (blockers.length === 0) return;
  throw new OnnxError("E_MODEL", blockersMessage(blockers), where);
}
