// The node budget of a run: before anything runs, the nodes the run would execute are counted
// (each call of a local function as the nodes of its body, at any depth; the body of an If, a
// Loop or a Scan once), and a run over `maxNodes` is refused at once, as expansion refuses a model
// that would grow past the same bound. A function calling the one below it twice, 30 deep, is
// 2^30 calls: refused in milliseconds rather than run for hours. Callee-first over the function
// table, so a chain of any depth is counted without recursion.

import { OnnxError } from "../errors.js";
import type { FunctionTable } from "../ir/functions.js";
import type { Model } from "../ir/types.js";

/** The default of `maxNodes` (run --max-nodes): as expansion's, no corpus model comes near it. */
export const DEFAULT_MAX_RUN_NODES = 10_000_000;

/**
 * The nodes a run of the main graph executes, calls counted out (Infinity past doubles);
 * undefined when calls form a cycle (the run's own depth limit ends such a model).
 */
export function executedNodes(model: Model, functions: FunctionTable): number | undefined {
  // Most runs call no local function (a folded node, a plain model): a count of the graph's nodes.
  const called = functions.reachable(model.graph);
  if (called.size === 0) return functions.inlinedSize(model.graph, new Map());
  if (!functions.order()) return undefined;
  return functions.inlinedSize(
    model.graph,
    functions.inlinedSizes((f) => called.has(f)),
  );
}

/** Refuses a run that would execute more than `maxNodes` nodes, naming the count and the bound. */
export function assertNodeBudget(
  model: Model,
  functions: FunctionTable,
  maxNodes = DEFAULT_MAX_RUN_NODES,
): void {
  const n = executedNodes(model, functions);
  if (n === undefined || n <= maxNodes) return;
  const count = Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "more than 10^308";
  throw new OnnxError(
    "E_RUNTIME",
    `the run would execute ${count} nodes (calls of local functions counted out), over --max-nodes ${maxNodes.toLocaleString("en-US")}, which raises the limit`,
  );
}
