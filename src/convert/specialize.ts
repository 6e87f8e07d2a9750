// A conversion blocked inside model-local functions for want of their calls' types, taken again
// on copies of those functions per call signature (src/inline/specialize.ts). A function's body
// is typed by what all its calls agree on; where they differ (torch's Hardswish module called on
// float and on double, a block called on rank-3 and rank-4 inputs), a step that needs the type —
// CastLike's target when its function op is lowered, Softmax-13's axis going below 13, any
// adapter that needs an element type or a rank — cannot be taken in the shared body, and is in
// each copy. The signature is as coarse as lets the conversion through: element types first,
// then ranks, then dims; the first that converts is kept, and where none does (or nothing
// differs between the calls) the refusal is the one of the model as it is, naming its own nodes.

import { SIGNATURE_LEVELS, specializeFunctions } from "../inline/specialize.js";
import type { Model } from "../ir/types.js";
import { SchemaRegistry } from "../schema/registry.js";
import { convertOnce, type ConversionResult, type ConvertOptions } from "./driver.js";

/** The keys of the local functions holding a blocked node (or a node lowering could not lower). */
function blockedFunctions(r: ConversionResult): Set<string> {
  const keys = new Set<string>();
  for (const b of r.plan.blocked) if (b.function !== undefined) keys.add(b.function);
  return keys;
}

/**
 * Converts the model's ai.onnx opset (main graph, subgraphs, functions) to `target` (driver.ts,
 * function ops the target lacks lowered by `opts.lower`); where that is blocked inside local
 * functions whose calls differ, converts copies of them per call signature instead.
 */
export function convertModel(
  model: Model,
  target: number,
  opts: ConvertOptions = {},
): ConversionResult {
  const first = convertOnce(model, target, opts);
  if (first.model) return first;
  const wanted = blockedFunctions(first);
  if (wanted.size === 0) return first;
  const registry = opts.registry ?? SchemaRegistry.default();
  const bound = {
    ...(opts.maxNodes !== undefined ? { maxNodes: opts.maxNodes } : {}),
    ...(opts.maxMemory !== undefined ? { maxMemory: opts.maxMemory } : {}),
  };
  for (const level of SIGNATURE_LEVELS) {
    const s = specializeFunctions(model, wanted, registry, { level, ...bound });
    // Over the bound, copies at a finer level would be more still.
    if (!s.ok) break;
    if (s.copies.length === 0) continue;
    const r = convertOnce(s.model, target, { ...opts, registry });
    if (r.model) {
      r.plan.specialized = { copies: s.copies, by: level };
      return r;
    }
  }
  return first;
}
