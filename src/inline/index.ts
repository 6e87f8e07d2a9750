// Inlining: a body bound to a call and renamed into the caller's scope (no schema knowledge).

export {
  inlineBody,
  callPrefix,
  bindFunctionAttributes,
  boundNodes,
  type BodyNodes,
} from "./inline.js";
