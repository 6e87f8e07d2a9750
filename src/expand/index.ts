// The expander: function ops (schema functions and model-local functions) inlined down to the
// ops a backend has, as passes (one a file) and the pipeline the `expand` command runs. (The
// structural diff of two models is its own layer: onnx-expand/diff.)

export { expandPipeline, placeOriginsPass, targetCheck } from "./pipeline.js";
export { inlineLocalFunctions, inlinePlan, type InlinePlan } from "./inline-local-functions.js";
export { expandSchemaFunctions } from "./expand-schema-functions.js";
export { lowerOlderVersions } from "./lower-older-versions.js";
export { lowerMissing, missingFunctionOps } from "./lower-missing.js";
export {
  convertOpset,
  type Blocked,
  type Converted,
  type ExpandOptions,
  type OpsetConverter,
} from "./context.js";
export {
  inlineBody,
  inlineCall,
  callInputTypes,
  callPrefix,
  type BodyNodes,
  type InlineOptions,
  type InlineResult,
} from "./inline.js";
export { bindFunctionAttributes } from "../inline/inline.js";
export {
  OpSet,
  opName,
  parseOpList,
  parseOpSelector,
  parseTargetOps,
  type OpSelector,
} from "./select.js";
