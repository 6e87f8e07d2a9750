// onnx-expand's public API. Each layer is also a subpath export (onnx-expand/ir, /text, ...).

export * from "./errors.js";
export * from "./ir/index.js";
export * from "./io/index.js";
export * from "./text/index.js";
export * as schema from "./schema/index.js";
export { SchemaRegistry, functionBody, diffVersions } from "./schema/index.js";
export * as check from "./check/index.js";
export { checkModel, inferTypes } from "./check/index.js";
export * as interp from "./interp/index.js";
export { run, runBackendTest } from "./interp/index.js";
export * as passes from "./passes/index.js";
export {
  runPass,
  pipeline,
  failureError,
  modelOf,
  type Note,
  type Pass,
  type PassContext,
  type PassResult,
} from "./passes/index.js";
export * as convert from "./convert/index.js";
// The converter as the app layer runs it: function ops the target lacks lowered on the way
// (unless `lower: false`), as the CLI and the page convert.
export { convertModel, convertPass, convertPipeline } from "./app/transform.js";
export * as expand from "./expand/index.js";
export { expandPipeline } from "./expand/index.js";
export * as diff from "./diff/index.js";
export { diffModels, formatDiff } from "./diff/index.js";
export type { GraphDiff, Hunk, ModelDiff, NodeChange, NodeRef, ValueChange } from "./diff/index.js";
export * as app from "./app/index.js";
export { passContext } from "./passes/index.js";
