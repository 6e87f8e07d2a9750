export * from "./types.js";
export {
  SchemaRegistry,
  normaliseDomain,
  domainLabel,
  defaultSchemaDir,
  parseOperatorFile,
} from "./registry.js";
export { functionBody, hasFunctionBody, type BodyContext, type FunctionBody } from "./body.js";
export { BODY_BUILDERS } from "./builders/index.js";
