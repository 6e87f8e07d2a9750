// The bound on expansion: before a pass inlines anything, it counts the nodes the result will
// have (inline-local-functions: a walk of the call graph; the schema passes: each call's body as
// instantiated for its key, engine.ts) and refuses, with one note naming the biggest contributor,
// when the count is over `maxNodes` or when its estimated heap size is over the byte budget (the
// smaller of `maxMemory` and a share of V8's heap limit, where IR nodes live). A doubling bomb
// (f_k calling f_{k-1} twice) is refused at once instead of growing until the heap is gone.

import { heapStatistics } from "../interp/heap.node.js";
import type { Note } from "../passes/pass.js";

/** The bound's settings (--max-nodes, --max-memory): the expander's and the converter's options carry them. */
export interface Budget {
  maxNodes?: number;
  maxMemory?: number;
}

/** The default of `maxNodes` (--max-nodes). */
export const DEFAULT_MAX_NODES = 10_000_000;

/**
 * Heap bytes one counted node of an expansion takes at its peak. Measured with Node 20 by
 * process.memoryUsage().heapUsed (node --expose-gc; two forced collections before the run, none
 * during it): on the bench chain (bench/chains.ts, expandChain(90000): 180,000 nodes once
 * expanded) expandPipeline holds 256 bytes a result node once collected and reaches 423 before
 * collection; on a doubling bomb (scripts/fuzz/bombs.ts, depth 18, 786,430 counted nodes) it
 * reaches 851 bytes a counted node, and at depth 20 the process's resident memory is 2.5 GB for
 * 3.1 million counted nodes. The estimate is that of the bomb's peak, so that a run within budget
 * cannot reach V8's heap limit; the other half of the heap (HEAP_SHARE) is left for the model
 * read, type inference and the encoding of the output.
 */
export const BYTES_PER_NODE = 800;

/** The share of V8's heap limit an expansion's result may take. */
export const HEAP_SHARE = 0.5;

/** What a count is over: the limit and what raises it. */
export interface NodeBudget {
  maxNodes: number;
  maxBytes: number;
  /** Where maxBytes comes from: --max-memory, or the share of the heap limit. */
  bytesFrom: "max-memory" | "heap";
}

export function nodeBudget(options: Budget): NodeBudget {
  const maxNodes = options.maxNodes ?? DEFAULT_MAX_NODES;
  const heap = Math.floor(heapStatistics().limit * HEAP_SHARE);
  if (options.maxMemory !== undefined && options.maxMemory < heap)
    return { maxNodes, maxBytes: options.maxMemory, bytesFrom: "max-memory" };
  return { maxNodes, maxBytes: heap, bytesFrom: "heap" };
}

/** A count for messages: 1,048,576 (beyond doubles: "more than 10^308"). */
export function formatCount(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "more than 10^308";
}

/** Bytes for messages, in GiB (or MiB below one GiB). */
function gib(n: number): string {
  return n >= 2 ** 30 ? `${(n / 2 ** 30).toFixed(1)} GiB` : `${(n / 2 ** 20).toFixed(1)} MiB`;
}

/** The biggest contributor to a count: a function or op, its calls, and the nodes they make. */
export interface Contributor {
  what: string;
  calls: number;
  nodes: number;
}

/** Adds `calls` calls making `nodes` nodes to the tally of `what`. */
export function tally(
  by: Map<string, Contributor>,
  what: string,
  calls: number,
  nodes: number,
): void {
  const c = by.get(what);
  if (c) {
    c.calls += calls;
    c.nodes += nodes;
  } else by.set(what, { what, calls, nodes });
}

/** The contributor with the most nodes (the first of equals). */
export function biggest(by: Iterable<Contributor>): Contributor | undefined {
  let best: Contributor | undefined;
  for (const c of by) if (!best || c.nodes > best.nodes) best = c;
  return best;
}

/**
 * The error note of a count over budget, or none. One line: the count, the biggest contributor,
 * the limit and the option that moves it.
 */
export function budgetNotes(total: number, top: Contributor | undefined, options: Budget): Note[] {
  const b = nodeBudget(options);
  const bytes = total * BYTES_PER_NODE;
  if (total <= b.maxNodes && bytes <= b.maxBytes) return [];
  const head = `expanding would make ${formatCount(total)} nodes`;
  const over =
    total > b.maxNodes
      ? `over --max-nodes ${formatCount(b.maxNodes)}, which raises the limit`
      : `about ${gib(bytes)} of heap at ${BYTES_PER_NODE} bytes a node, over the budget of ${gib(b.maxBytes)} (${
          b.bytesFrom === "max-memory"
            ? "--max-memory"
            : `${HEAP_SHARE * 100}% of the V8 heap limit; node --max-old-space-size raises it`
        })`;
  // The contributor last: the line echoes names, and text after one stays short.
  const calls = top ? `${formatCount(top.calls)} call${top.calls === 1 ? "" : "s"}` : "";
  const why = top ? `; ${top.what} alone makes ${formatCount(top.nodes)} of them (${calls})` : "";
  const message = `${head}, ${over}${why}`;
  return [{ level: "error", message }];
}
