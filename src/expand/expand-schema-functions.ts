// expand-schema-functions: every selected call of a schema function op (an operator version with
// a body, hasFunctionBody) replaced by the op's body for the call's input types and attributes,
// in the main graph, its If/Loop/Scan bodies and the local functions. The calls a body holds
// (Celu's body calls Elu; a lowered op's body) are replaced before the walk goes on, typed by
// inferring the body (engine.ts): callee-first, to any depth. A body written for a newer opset
// than the caller's is converted down when an op it uses means something else there (fit.ts).

import type { Pass } from "../passes/pass.js";
import type { ExpandOptions } from "./context.js";
import { ALL_KINDS, SCHEMA, walkerPass } from "./engine.js";

export const expandSchemaFunctions = (options: ExpandOptions = {}): Pass =>
  walkerPass("expand-schema-functions", options, SCHEMA, ALL_KINDS);
