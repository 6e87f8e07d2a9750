// Inlining: a body bound to a call and renamed into the caller's scope (no schema knowledge).

export {
  inlineBody,
  callPrefix,
  bindFunctionAttributes,
  boundNodes,
  type BodyNodes,
} from "./inline.js";
export {
  specializeFunctions,
  SIGNATURE_LEVELS,
  type SignatureLevel,
  type Specialized,
  type SpecializeOptions,
} from "./specialize.js";
