// lower-older-versions: a selected op version that is not a function but whose later version is
// (ReduceLogSum-13, whose version 18 has a body) lowered through the opset converter: the node
// alone in a model is converted up to that version, the op expanded there, and the result
// converted back to the caller's opset (fit.ts, lowerByConversion). Older versions inside what
// comes back are lowered the same way; the schema function ops it holds are left for
// expand-schema-functions. Without the converter such nodes are left, with a warning.

import type { Pass } from "../passes/pass.js";
import type { ExpandOptions } from "./context.js";
import { OLDER, walkerPass } from "./engine.js";

export const lowerOlderVersions = (options: ExpandOptions = {}): Pass =>
  walkerPass("lower-older-versions", options, OLDER, OLDER);
