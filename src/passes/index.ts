// Passes: the contract every model transform follows (pass.ts), the manager that runs them
// (manager.ts), and the passes that need no more than the IR and the checker, one a file.

export * from "./pass.js";
export { runPass, pipeline } from "./manager.js";
export { removeUnusedFunctions } from "./remove-unused-functions.js";
export { trimOpsetImports, trimOpsetImportsPass } from "./trim-opset-imports.js";
export { removeDeadValues } from "./remove-dead-values.js";
export { inferValueInfo } from "./infer-value-info.js";
export { nameNodes } from "./name-nodes.js";
export { foldConstants, DEFAULT_FOLD_LIMIT, type FoldOptions } from "./fold-constants.js";
export { fixDims } from "./fix-dims.js";
export { eliminateIdentity } from "./eliminate-identity.js";
export { foldOutputIdentity } from "./fold-output-identity.js";
export { simplifyPipeline, type SimplifyOptions } from "./simplify.js";
export { commonSubexpressions } from "./common-subexpressions.js";
export { liftConstants, constantTensor } from "./lift-constants.js";
export { fuseConvBatchNorm } from "./fuse-conv-batchnorm.js";
export { legalizeFloat64 } from "./legalize-float64.js";
export { legalizeInt64, type LegalizeInt64Options } from "./legalize-int64.js";
export { sortNodes } from "./sort-nodes.js";
export { flattenToReshape } from "./flatten-to-reshape.js";
