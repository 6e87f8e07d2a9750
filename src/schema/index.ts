// The schema layer: operator versions from schemas/ (registry), their differences (diff), and
// their function bodies (body, builders).

export * from "./types.js";
export {
  SchemaRegistry,
  normaliseDomain,
  domainLabel,
  defaultSchemaDir,
  parseOperatorFile,
} from "./registry.js";
export {
  functionBody,
  hasFunctionBody,
  bindAttributes,
  type BodyContext,
  type FunctionBody,
} from "./body.js";
export { BODY_BUILDERS } from "./builders/index.js";
export {
  diffVersions,
  type SchemaDiff,
  type AttributeChange,
  type FormalChange,
  type FormalDiff,
  type TypeConstraintChange,
} from "./diff.js";
export {
  ONNX_RELEASES,
  MAX_IR_VERSION,
  MIN_IR_VERSION_FOR_FUNCTIONS,
  releaseOfOpset,
  releasedIrVersion,
  minIrVersionForOpset,
  maxOpsetForIrVersion,
  type OnnxRelease,
} from "./ir-versions.js";
export * as facts from "./facts.js";
