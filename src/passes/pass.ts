// The pass contract. A pass is a value: a name, an optional precondition, and a run that takes a
// model and gives back a model, whether anything changed, and notes for the user. A pass never
// mutates the model it is given (it copies what it changes and shares the rest: the IR's
// copy-on-write style), so a caller can keep the input, compare, and run it again.

import { OnnxError } from "../errors.js";
import type { Model } from "../ir/types.js";
import { SchemaRegistry } from "../schema/registry.js";

/** One thing a pass wants the user to know: what it did, or what it could not do and why. */
export interface Note {
  level: "info" | "warning" | "error";
  /** Where it concerns: "graph > node 'n3' (ReduceSum)", a function, a file. */
  where?: string;
  message: string;
}

export interface PassResult {
  model: Model;
  changed: boolean;
  report: Note[];
}

export interface PassContext {
  registry: SchemaRegistry;
  /** Called as work advances (done of total units, the pass says which). */
  progress?: (done: number, total: number) => void;
}

export interface Pass {
  readonly name: string;
  /** Throws OnnxError when the model does not meet the pass's precondition. */
  requires?(model: Model, ctx: PassContext): void;
  run(model: Model, ctx: PassContext): PassResult;
}

/** A context with the default registry; fields given override. */
export function passContext(partial: Partial<PassContext> = {}): PassContext {
  return { registry: partial.registry ?? SchemaRegistry.default(), ...partial };
}

/** Checks the precondition, then runs the pass. */
export function runPass(pass: Pass, model: Model, ctx: PassContext = passContext()): PassResult {
  pass.requires?.(model, ctx);
  return pass.run(model, ctx);
}

/** Passes run one after another; the result changed if any changed, with all their notes. */
export function sequence(name: string, ...passes: Pass[]): Pass {
  return {
    name,
    run(model, ctx) {
      let current = model;
      let changed = false;
      const report: Note[] = [];
      for (const p of passes) {
        const r = runPass(p, current, ctx);
        current = r.model;
        changed ||= r.changed;
        report.push(...r.report);
      }
      return { model: current, changed, report };
    },
  };
}

/** A pass that refuses: every error note of a report as one OnnxError (the first named, a count). */
export function failOnErrors(passName: string, report: Note[]): void {
  const errors = report.filter((n) => n.level === "error");
  if (errors.length === 0) return;
  const first = errors[0]!;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  const err = new OnnxError(
    "E_UNSUPPORTED",
    `${passName}: ${first.where ? `${first.where}: ` : ""}${first.message}${more}`,
  );
  throw Object.assign(err, { notes: errors });
}
