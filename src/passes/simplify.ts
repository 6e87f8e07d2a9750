// The simplification pipeline (`onnx-expand simplify`, and a step of lowering for a target). Its
// list of passes is written here only: `simplify --help` and docs/architecture.md print it from
// `simplifyPipeline().steps` (test/passes/pipelines.test.ts holds the docs to it).

import { modelTensorDataProblem } from "../ir/tensor-data.js";
import { commonSubexpressions } from "./common-subexpressions.js";
import { eliminateIdentity } from "./eliminate-identity.js";
import { fixDims } from "./fix-dims.js";
import { foldConstants } from "./fold-constants.js";
import { fuseConvBatchNorm } from "./fuse-conv-batchnorm.js";
import { liftConstants } from "./lift-constants.js";
import { pipeline } from "./manager.js";
import type { Pass } from "./pass.js";
import { removeDeadValues } from "./remove-dead-values.js";
import { removeNoOps } from "./remove-no-ops.js";
import { refreshOutputTypes } from "./refresh-output-types.js";
import { sortNodes } from "./sort-nodes.js";

export interface SimplifyOptions {
  dims?: ReadonlyMap<string, number>;
  /** Largest folded tensor in bytes (default 1 MiB). */
  foldLimit?: number;
  /** Most bytes the folded constants may take (--max-memory; default: no limit). */
  maxMemory?: number;
}

export function simplifyPipeline(options: SimplifyOptions = {}): Pass & { steps: readonly Pass[] } {
  const passes = pipeline("simplify", [
    sortNodes(),
    fixDims(options.dims ?? new Map()),
    foldConstants({ limit: options.foldLimit, maxMemory: options.maxMemory }),
    removeNoOps(),
    eliminateIdentity(),
    commonSubexpressions(),
    // merged nodes can make more constants (two Shapes of one value, one Gather of them)
    foldConstants({ limit: options.foldLimit, maxMemory: options.maxMemory }),
    fuseConvBatchNorm(),
    liftConstants(),
    removeDeadValues(),
    refreshOutputTypes(),
  ]);
  // A tensor whose data does not fit its type and shape would be folded, or kept, as if it did.
  return {
    ...passes,
    requires(model) {
      const bad = modelTensorDataProblem(model);
      return bad ? [{ level: "error", message: bad }] : [];
    },
  };
}
