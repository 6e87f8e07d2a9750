// What a rewrite (expand, convert) needs of its input: a model whose nodes, functions and values
// mean one thing. A model with such a problem is refused with the checker's message, since a
// rewrite of it would be wrong, or invalid where the input ran (see docs/semantics.md).

import type { Model } from "../ir/types.js";
import { analysisOf, type InferOptions } from "./infer.js";
import { isShapeConflict } from "./types.js";
import { formatProblem, type Problem, type ProblemCode } from "./report.js";

/**
 * Checker findings that make a model unrunnable as written: the interpreter's kernels follow the
 * latest op version and read attributes by name, so an op missing from the imported opset, or an
 * attribute of the wrong type, would run anyway (silently using a default). `run` and the page's
 * Run refuse such a model (app/runnable.ts).
 */
export const RUN_BLOCKERS: ReadonlySet<ProblemCode> = new Set<ProblemCode>([
  "opset-import",
  "domain-not-imported",
  "unknown-op",
  "op-not-in-opset",
  "attribute-type",
  "duplicate-attribute",
  "duplicate-value",
  "input-count",
  "output-count",
  "ref-attribute",
  "function-cycle",
  "tensor-data",
  "kernel-attribute",
]);

/**
 * Checker findings that make a rewrite wrong: what the interpreter cannot run as written (see
 * RUN_BLOCKERS), and what a body put in for a call would get wrong (an output it never produces,
 * a type it contradicts, a value it reads from outside its own scope). An op of a domain the
 * registry does not know (com.microsoft) is not among them: the checker says nothing of it. Nor
 * are a bad opset import (the converter and the expander refuse an ai.onnx opset they do not know
 * themselves), a cycle of calls (the expander's precondition names it; a conversion of it is well
 * defined), a declared shape that inference contradicts while the element types agree (a
 * rewrite keeps the declaration as it was), and a type outside an op version's constraint where
 * the types agree with each other (old exporters wrote int64 Constant-1 nodes, which runtimes run
 * and which converting up makes valid: libonnx-testdata's PixelShuffle and repeat models).
 */
export const REWRITE_BLOCKERS: ReadonlySet<ProblemCode> = new Set<ProblemCode>([
  ...[...RUN_BLOCKERS].filter((c) => c !== "opset-import" && c !== "function-cycle"),
  "function",
  "output-not-produced",
  "undefined-value",
  "type-mismatch",
  "missing-input",
  "cycle",
]);

/** The problems of a model that block a rewrite (from the analysis the passes share). */
export function rewriteBlockers(model: Model, opts: InferOptions = {}): Problem[] {
  const { problems } = analysisOf(model, opts);
  // With an opset import out of range every op's resolution is moot: the converter refuses an
  // ai.onnx opset it does not know with its own message, and the expander's output is the input.
  if (problems.some((p) => p.code === "opset-import")) return [];
  return problems.filter(
    (p) =>
      REWRITE_BLOCKERS.has(p.code) && !(p.code === "type-mismatch" && isShapeConflict(p.message)),
  );
}

/** One line for a list of blockers: the first, and how many more. */
export function blockersMessage(blockers: readonly Problem[]): string {
  const n = blockers.length;
  const more = n > 1 ? ` (and ${n - 1} more; 'onnx-expand check' lists them)` : "";
  return `${formatProblem(blockers[0]!)}${more}`;
}
