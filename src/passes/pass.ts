// The pass contract. A pass is a value: a name, an optional precondition (`requires`), a run that
// takes a model and gives back a result, and an optional postcondition (`ensures`). A pass never
// mutates the model it is given (it copies what it changes and shares the rest: the IR's
// copy-on-write style), so a caller can keep the input, compare, and run it again. What a pass
// has to say (what it did, what it could not do) travels in its result as notes, never on an
// exception. The manager (manager.ts) runs passes and pipelines of them.

import { OnnxError } from "../errors.js";
import type { Model } from "../ir/types.js";
import { SchemaRegistry } from "../schema/registry.js";

/** One thing a pass wants the user to know: what it did, or what it could not do and why. */
export interface Note {
  level: "info" | "warning" | "error";
  /** Where it concerns: "graph > node 'n3' (ReduceSum)", a function, a file. */
  where?: string;
  message: string;
  /** The key (functionKey) of the model-local function it concerns, for decisions (`where` is for reading). */
  function?: string;
  /** What a counting note counts ("expanded N calls": N), for decisions (the message is for reading). */
  calls?: number;
}

/** Which step of a pass failed: its precondition, its run, or its postcondition. */
export type PassStage = "requires" | "run" | "ensures";

export type PassResult =
  | { ok: true; model: Model; modified: boolean; notes: Note[] }
  | {
      ok: false;
      /** At least one error note. */
      notes: Note[];
      /** Set by the manager: the pass that failed (in a pipeline, the pipeline's step). */
      pass?: string;
      stage?: PassStage;
    };

export type PassSuccess = Extract<PassResult, { ok: true }>;
export type PassFailure = Extract<PassResult, { ok: false }>;

export interface PassContext<P = unknown> {
  registry: SchemaRegistry;
  /**
   * What the pass's precondition planned (a `requires` that returns a Requirement), given to its
   * run by the manager; absent when run is called without it (the pass then plans itself).
   */
  plan?: P;
  /** Called as work advances (done of total units, the pass says which). */
  progress?: (done: number, total: number) => void;
  /**
   * Test mode: the manager checks that no pass mutated its input (by its bytes before and
   * after). Default: on when running under vitest.
   */
  testMode?: boolean;
}

/**
 * A precondition that planned the run: its notes, and the plan the manager gives the run in its
 * context (`ctx.plan`), so that what the check worked out is not worked out again.
 */
export interface Requirement<P> {
  notes: Note[];
  plan?: P;
}

export interface Pass<P = unknown> {
  readonly name: string;
  /**
   * Error notes: the model is not one the pass can take; run is not called. A pass that plans
   * its run while checking returns the plan with its notes (Requirement).
   */
  requires?(model: Model, ctx: PassContext): Note[] | Requirement<P>;
  /** Error notes: the pass broke its own promise (a postcondition failure). */
  ensures?(before: Model, after: Model, ctx: PassContext): Note[];
  run(model: Model, ctx: PassContext<P>): PassResult;
}

/**
 * A pass that is a function of the model (a model back, the same object when nothing changed):
 * modified when it gave another model; no notes, no precondition.
 */
export function modelPass(name: string, f: (model: Model) => Model): Pass {
  return {
    name,
    run(model) {
      const out = f(model);
      return { ok: true, model: out, modified: out !== model, notes: [] };
    },
  };
}

/**
 * The result of a pass that counts what it changed: `model` as it was when the count is 0, else
 * `out` with one info note saying what (`say(count)`).
 */
export function countedResult(
  model: Model,
  out: Model,
  count: number,
  say: (count: number) => string,
): PassResult {
  if (!count) return { ok: true, model, modified: false, notes: [] };
  return { ok: true, model: out, modified: true, notes: [{ level: "info", message: say(count) }] };
}

/** `n` and a noun, plural unless n is 1: "1 node", "3 nodes". */
export const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`;

function underTest(): boolean {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  return Boolean(env?.VITEST);
}

/** A context with the default registry; fields given override. */
export function passContext(partial: Partial<PassContext> = {}): PassContext {
  return {
    registry: partial.registry ?? SchemaRegistry.default(),
    testMode: partial.testMode ?? underTest(),
    ...partial,
  };
}

export function errorNotes(notes: Note[]): Note[] {
  return notes.filter((n) => n.level === "error");
}

/** "where: message" (or the message alone). */
export function noteText(n: Note): string {
  return `${n.where ? `${n.where}: ` : ""}${n.message}`;
}

/**
 * A failure as one OnnxError, for callers that throw: the first error note named, with a count
 * of the others. `code`: E_MODEL for a failed precondition, else E_UNSUPPORTED, unless given.
 */
export function failureError(result: PassFailure, code?: OnnxError["code"]): OnnxError {
  const errors = errorNotes(result.notes);
  const first = errors[0] ?? { level: "error", message: "failed" };
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  const head = result.pass && result.stage !== "requires" ? `${result.pass}: ` : "";
  return new OnnxError(
    code ?? (result.stage === "requires" ? "E_MODEL" : "E_UNSUPPORTED"),
    `${head}${noteText(first)}${more}`,
  );
}

/** The model of a result, or the failure thrown as an OnnxError. */
export function modelOf(result: PassResult): Model {
  if (!result.ok) throw failureError(result);
  return result.model;
}
