// The one voice of the commands that write a model: `wrote PATH (N -> M nodes)` (the main
// graph's nodes, and all graphs' when either model has nodes outside its main graph), then one
// line per kind of change, by op with counts (every node with --verbose), the steps of `lower`,
// and the symbolic dims fixed and left.

import {
  mergeKinds,
  modelNodeCounts,
  nodeChanges,
  symbolicDims,
  type KindChange,
  type NodeCounts,
  type NodeMark,
  type StepChange,
} from "../app/changes.js";
import type { Model } from "../ir/types.js";
import { isVerbose } from "./exit.js";
import { oneLine } from "./util.js";

const nodes = (n: number) => `${n} node${n === 1 ? "" : "s"}`;

/** `wrote PATH (N -> M nodes)`, with `; all graphs N' -> M'` where those differ. */
export function wroteLine(path: string, before: NodeCounts, after: NodeCounts): string {
  const all =
    before.all !== before.main || after.all !== after.main
      ? `; all graphs ${before.all} -> ${after.all}`
      : "";
  return oneLine(`wrote ${path} (${before.main} -> ${after.main} nodes${all})`);
}

/** The most ops a summary line names; the rest are counted. */
const MAX_OPS = 6;

/** "Reshape 78, Squeeze 20, …": the ops of the marks by count (then name). */
export function opCounts(marks: readonly NodeMark[]): string {
  const by = new Map<string, number>();
  for (const m of marks) by.set(m.op, (by.get(m.op) ?? 0) + 1);
  const sorted = [...by].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const shown = sorted.slice(0, MAX_OPS).map(([op, n]) => `${op} ${n}`);
  const more = sorted.length - MAX_OPS;
  return [...shown, ...(more > 0 ? [`… ${more} more op${more === 1 ? "" : "s"}`] : [])].join(", ");
}

const place = (m: NodeMark) => m.at;

/**
 * One line for a kind of change, by op with counts: `converted: 131 nodes rewritten (Reshape 78,
 * …); 29 taken out (Constant 29); 43 put in (…)`; with --verbose, then a line per node (~
 * rewritten in place, - taken out, + put in).
 */
export function kindLines(k: KindChange, indent: string, verbose = isVerbose()): string[] {
  const put = new Set(k.added.map(place));
  const taken = new Set(k.removed.map(place));
  const rewritten = k.removed.filter((m) => put.has(place(m)));
  const out = k.removed.filter((m) => !put.has(place(m)));
  const added = k.added.filter((m) => !taken.has(place(m)));
  const parts: string[] = [];
  let first = true;
  const part = (marks: NodeMark[], what: string) => {
    if (!marks.length) return;
    parts.push(`${first ? nodes(marks.length) : marks.length} ${what} (${opCounts(marks)})`);
    first = false;
  };
  part(rewritten, "rewritten");
  part(out, "taken out");
  part(added, "put in");
  const lines = [`${indent}${k.kind}: ${parts.join("; ")}`];
  if (verbose) {
    for (const m of rewritten) lines.push(`${indent}  ~ ${m.where}`);
    for (const m of out) lines.push(`${indent}  - ${m.where}`);
    for (const m of added) lines.push(`${indent}  + ${m.where}`);
  }
  return lines.map(oneLine);
}

/** The kinds of change of the steps, merged by kind, a line each (what `lower` says per step). */
export function changeLines(steps: readonly StepChange[], indent = "  "): string[] {
  const kinds = mergeKinds(steps.flatMap((s) => s.kinds));
  const out = kinds.flatMap((k) => kindLines(k, indent));
  // What the steps said beyond nodes (element types made half, say).
  for (const n of new Set(steps.flatMap((s) => s.notes))) out.push(oneLine(`${indent}${n}`));
  return out;
}

/**
 * What a command that runs no pipeline of its own says (precision, parse, check
 * --write-value-info): the success line, and the nodes it changed as one kind.
 */
export function writtenLines(path: string, before: Model, after: Model, kind: string): string[] {
  const c = nodeChanges(before, after);
  const lines = [wroteLine(path, modelNodeCounts(before), modelNodeCounts(after))];
  if (c.removed.length || c.added.length) lines.push(...kindLines({ kind, ...c }, "  "));
  return lines;
}

/** `dims: fixed batch=1; still symbolic: past, total` (or `none left symbolic`). */
export function dimsLine(fixed: ReadonlyMap<string, number>, result: Model): string | undefined {
  if (!fixed.size) return undefined;
  const left = symbolicDims(result);
  const set = [...fixed].map(([n, v]) => `${n}=${v}`).join(", ");
  return oneLine(
    `  dims: fixed ${set}; ${left.length ? `still symbolic: ${left.join(", ")}` : "none left symbolic"}`,
  );
}

/** A step of `lower` as its header: what changed in the model's opset or size. */
function stepHead(s: StepChange, target: string): string {
  const { from, to } = s.opset;
  const name = s.step.replace(/\(.*\)$/, "");
  if (from !== to) return `${name}: opset ${from ?? "none"} -> ${to ?? "none"} for ${target}`;
  const all =
    s.before.all !== s.before.main || s.after.all !== s.after.main
      ? `; all graphs ${s.before.all} -> ${s.after.all}`
      : "";
  return `${name}: ${s.before.main} -> ${s.after.main} nodes${all}`;
}

/** `lower`'s steps that changed the model, a header each and its kinds of change under it. */
export function lowerLines(steps: readonly StepChange[], target: string): string[] {
  const out: string[] = [];
  for (const s of steps) {
    if (!s.modified) continue;
    const body = changeLines([s], "    ");
    // A step that only re-sorted nodes or refreshed types without saying so is not a step taken.
    if (!body.length && s.opset.from === s.opset.to && s.before.all === s.after.all) continue;
    out.push(oneLine(`  ${stepHead(s, target)}`), ...body);
  }
  return out;
}
