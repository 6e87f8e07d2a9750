// Function ops that do not exist at the target opset, lowered on the way: before converting, each
// such node (an operator version with a function body, whose op the target opset lacks) is
// replaced by its body, and the result converted. The lowering itself is the expander's
// (src/expand/lower-missing.ts, lowerMissing: the expander sits above the converter, which it
// uses to fit bodies), so it is passed in (ConvertOptions.lower): the app layer does, for the CLI,
// the page and the library's entry point (src/index.ts), unless told not to (--no-lower); without
// it such nodes are refused. When the lowered model still cannot be converted (a body's op
// blocked at the target), the model is refused as it is without lowering, naming its own nodes.

import type { Model } from "../ir/types.js";
import type { Note } from "../passes/pass.js";
import type { SchemaRegistry } from "../schema/registry.js";
import type { StepRecord } from "./plan.js";

export interface LowerRequest {
  registry: SchemaRegistry;
  /** The expansion's bound (src/expand/bounds.ts). */
  maxNodes?: number;
  maxMemory?: number;
  /** Record where each node put in came from (default true). */
  origin?: boolean;
}

/**
 * What lowering did: the nodes it lowered (one record each) and the model; or, when it failed,
 * a record for each node it could not lower (saying why, as the plan's blocked records do).
 */
export type Lowered =
  | { ok: true; model: Model; lowered: StepRecord[]; notes: Note[] }
  | { ok: false; lowered: StepRecord[]; reason: string };

/** Lowers the function ops of `model` the target opset lacks; undefined when there are none. */
export type Lowering = (model: Model, target: number, request: LowerRequest) => Lowered | undefined;
