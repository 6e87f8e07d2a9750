// The expander: function ops (schema functions and model-local functions) inlined down to the
// ops a backend has; and a structural diff of two models, to see what a lowering changed.

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
export {
  diffGraphs,
  diffModels,
  formatDiff,
  type GraphDiff,
  type Hunk,
  type ModelDiff,
  type NodeChange,
  type NodeRef,
} from "./diff.js";
