// The expander: function ops (schema functions and model-local functions) inlined down to the
// ops a backend has. (The structural diff of two models is its own layer: onnx-expand/diff.)

export {
  expandPass,
  expandModel,
  bindFunctionAttributes,
  type ExpandOptions,
  type OpsetConverter,
} from "./expand.js";
export {
  inlineBody,
  inlineCall,
  callPrefix,
  type BodyNodes,
  type InlineOptions,
  type InlineResult,
} from "./inline.js";
export {
  OpSet,
  opName,
  parseOpList,
  parseOpSelector,
  parseTargetOps,
  type OpSelector,
} from "./select.js";
