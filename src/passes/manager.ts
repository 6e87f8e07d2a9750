// The pass manager: runs one pass (precondition, run, postcondition) and pipelines of passes
// (each given the last one's model, stopping at the first failure, notes gathered). In test mode
// it also checks that no pass mutated the model it was given.

import { encodeModel } from "../io/codec.js";
import type { Model } from "../ir/types.js";
import {
  errorNotes,
  passContext,
  type Note,
  type Pass,
  type PassContext,
  type PassResult,
  type PassStage,
} from "./pass.js";

/** The model's bytes (test mode only: it costs an encoding). */
function fingerprint(model: Model): Uint8Array {
  return encodeModel(model);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function withoutPlan(ctx: PassContext): PassContext {
  if (ctx.plan === undefined) return ctx;
  const { plan: _, ...rest } = ctx;
  return rest;
}

function failed(notes: Note[], pass: string, stage: PassStage): PassResult {
  return { ok: false, notes, pass, stage };
}

/**
 * Runs a pass: `requires` (error notes: a failure, run not called), `run`, then `ensures` on the
 * input and the output (error notes: a failure). In test mode, a pass that changed its input
 * model is an Error (a bug, not a user's problem).
 */
export function runPass(pass: Pass, model: Model, ctx: PassContext = passContext()): PassResult {
  const before = ctx.testMode ? fingerprint(model) : undefined;
  const required = pass.requires?.(model, ctx) ?? [];
  const pre = Array.isArray(required) ? required : required.notes;
  if (errorNotes(pre).length) return failed(pre, pass.name, "requires");
  // A plan the precondition made goes to this run alone (not to the passes after it, nor, from
  // an enclosing pass's context, to this one).
  const plan = Array.isArray(required) ? undefined : required.plan;
  const r = pass.run(model, plan === undefined ? withoutPlan(ctx) : { ...ctx, plan });
  if (before !== undefined && !sameBytes(fingerprint(model), before))
    throw new Error(`pass '${pass.name}' mutated the model it was given`);
  if (!r.ok)
    return {
      ...r,
      notes: [...pre, ...r.notes],
      pass: r.pass ?? pass.name,
      stage: r.stage ?? "run",
    };
  const post = pass.ensures?.(model, r.model, ctx) ?? [];
  if (errorNotes(post).length) return failed([...pre, ...r.notes, ...post], pass.name, "ensures");
  return { ...r, notes: [...pre, ...r.notes, ...post] };
}

/**
 * Passes one after another, as one pass: each takes the model the last one gave; the first
 * failure ends it (its notes after those gathered so far, named by the pass that failed, inside
 * a step that is a pipeline itself);
 * modified when any step modified the model.
 */
export function pipeline(name: string, passes: Pass[]): Pass & { steps: readonly Pass[] } {
  return {
    name,
    steps: passes,
    run(model, ctx) {
      let current = model;
      let modified = false;
      const notes: Note[] = [];
      for (const p of passes) {
        const r = runPass(p, current, ctx);
        // One by one: a pass may give hundreds of thousands of notes, more than call arguments.
        for (const n of r.notes) notes.push(n);
        // Named by the pass that failed, however deep (a step may be a pipeline itself).
        if (!r.ok) return { ok: false, notes, pass: r.pass ?? p.name, stage: r.stage ?? "run" };
        current = r.model;
        modified ||= r.modified;
      }
      return { ok: true, model: current, modified, notes };
    },
  };
}
