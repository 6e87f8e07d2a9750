// The converter's entry point: the model converted (driver.ts), function ops the target lacks
// lowered first (lowering.ts), and a refusal that says what to do next (next-step.ts).
//
// A conversion blocked inside model-local functions for want of their calls' types, taken again
// on copies of those functions per call signature (src/inline/specialize.ts). A function's body
// is typed by what all its calls agree on; where they differ (torch's Hardswish module called on
// float and on double, a block called on rank-3 and rank-4 inputs), a step that needs the type —
// CastLike's target when its function op is lowered, Softmax-13's axis going below 13, any
// adapter that needs an element type or a rank — cannot be taken in the shared body, and is in
// each copy. The signature is as coarse as lets the conversion through: element types first,
// then ranks, then dims; the first that converts is kept, and where none does (or nothing
// differs between the calls) the refusal is the one of the model as it is, naming its own nodes.

import type { Budget } from "../inline/bounds.js";
import { SIGNATURE_LEVELS, specializeFunctions } from "../inline/specialize.js";
import type { Model } from "../ir/types.js";
import { SchemaRegistry } from "../schema/registry.js";
import { placeOrigins } from "../inline/origin.js";
import { Converter, type ConversionResult, type ConvertOptions } from "./driver.js";
import { loweredNextStepHint } from "./next-step.js";
import { nodeIdOf, type StepRecord } from "./plan.js";

/** The expansion bound the options set (--max-nodes, --max-memory), for lowering and copies. */
function budget(opts: ConvertOptions): Budget {
  return {
    ...(opts.maxNodes !== undefined ? { maxNodes: opts.maxNodes } : {}),
    ...(opts.maxMemory !== undefined ? { maxMemory: opts.maxMemory } : {}),
  };
}

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
  for (const level of SIGNATURE_LEVELS) {
    const s = specializeFunctions(model, wanted, registry, { level, ...budget(opts) });
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

/** The node ids of records (nodeIdOf; a record without one matches none). */
function nodeIds(records: StepRecord[]): Set<string> {
  const ids = new Set<string>();
  for (const r of records) {
    const id = nodeIdOf(r);
    if (id !== undefined) ids.add(id);
  }
  return ids;
}

/**
 * Converts the model's ai.onnx opset (main graph, subgraphs, functions) to `target`, function
 * ops the target lacks lowered first by `opts.lower` when given; local functions as they are
 * (convertModel, above, tries again on copies per call signature where this is blocked).
 */
export function convertOnce(
  model: Model,
  target: number,
  opts: ConvertOptions = {},
): ConversionResult {
  const l = opts.lower?.(model, target, {
    registry: opts.registry ?? SchemaRegistry.default(),
    ...budget(opts),
    ...(opts.origin !== undefined ? { origin: opts.origin } : {}),
  });
  if (!l) return new Converter(model, target, opts).run();
  if (!l.ok) {
    // Planned as it is, the lowered nodes blocked with the reason they could not be lowered.
    const r = new Converter(model, target, opts).run();
    const lowered = nodeIds(l.lowered);
    const blocked = r.plan.blocked.filter((b) => !lowered.has(nodeIdOf(b) ?? ""));
    return { plan: { ...r.plan, blocked: [...l.lowered, ...blocked] } };
  }
  const loweredConverter = new Converter(l.model, target, opts);
  const r = loweredConverter.run();
  // Lowered, the model still cannot be converted: refused as it is refused without lowering
  // (the nodes it names are the model's own), each function op saying what blocked the lowered
  // model (a node of a body first), not to expand it first; where a value the body computes
  // is what blocks, the way is to expand, fix the dims and convert (next-step.ts).
  if (!r.model) {
    const converter = new Converter(model, target, opts);
    const plain = converter.run();
    const own = nodeIds(plain.plan.blocked);
    const why = r.plan.blocked.find((b) => !own.has(nodeIdOf(b) ?? "")) ?? r.plan.blocked[0];
    const lowered = nodeIds(l.lowered);
    // Blocked by a value a body computes: its own nodes' way (fix the dims) meets the body's
    // block too, so every hint says to expand first.
    const body =
      why?.next && !own.has(nodeIdOf(why) ?? "") ? loweredNextStepHint(model, target) : undefined;
    const whyText = why && (body ? `${loweredConverter.reasonOf(why)}; ${body}` : why.message);
    for (const b of plain.plan.blocked)
      if (why && lowered.has(nodeIdOf(b) ?? "")) {
        b.message = `${converter.reasonOf(b)}; lowered, the model is still blocked: ${why.where}: ${whyText}`;
        if (why.next) b.next = why.next;
      } else if (body && b.next) b.message = `${converter.reasonOf(b)}; ${body}`;
    return plain;
  }
  r.plan.lowered = l.lowered;
  if (r.model) r.model = placeOrigins(r.model);
  return r;
}
