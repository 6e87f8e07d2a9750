// What changed between two models: IR version, opset imports, local functions (by domain, name
// and overload) and the main graph, each graph diffed by match.ts.

import { functionKey, functionLabel, modelNodeCounts } from "../ir/functions.js";
import { opsetMap } from "../ir/opsets.js";
import type { Function, Model } from "../ir/types.js";
import { diffGraphs, graphSame } from "./match.js";
import type { ModelDiff } from "./types.js";

export function diffModels(a: Model, b: Model): ModelDiff {
  const opsetImports: ModelDiff["opsetImports"] = [];
  const ia = opsetMap(a.opsetImports);
  const ib = opsetMap(b.opsetImports);
  for (const [d, v] of ia) {
    const w = ib.get(d);
    if (w !== v)
      opsetImports.push(w === undefined ? { domain: d, a: v } : { domain: d, a: v, b: w });
  }
  for (const [d, w] of ib) if (!ia.has(d)) opsetImports.push({ domain: d, b: w });

  const fk = (f: Function) => functionKey(f.domain, f.name, f.overload);
  const fb = new Map(b.functions.map((f) => [fk(f), f] as const));
  const functions: ModelDiff["functions"] = [];
  const deep = { matched: 0, changed: 0 };
  for (const f of a.functions) {
    const g = fb.get(fk(f));
    if (!g) {
      functions.push({ name: functionLabel(f), change: "removed" });
      continue;
    }
    const d = diffGraphs(f, g);
    deep.matched += d.deep.matched;
    deep.changed += d.deep.changed;
    if (!graphSame(d)) functions.push({ name: functionLabel(f), change: "changed", diff: d });
  }
  const fa = new Set(a.functions.map(fk));
  for (const g of b.functions)
    if (!fa.has(fk(g))) functions.push({ name: functionLabel(g), change: "added" });

  const graph = diffGraphs(a.graph, b.graph);
  const out: ModelDiff = {
    same: false,
    opsetImports,
    functions,
    graph,
    nodes: { a: a.graph.nodes.length, b: b.graph.nodes.length },
    allNodes: {
      a: modelNodeCounts(a).all,
      b: modelNodeCounts(b).all,
      matched: graph.deep.matched + deep.matched,
      changed: graph.deep.changed + deep.changed,
    },
  };
  if (a.irVersion !== b.irVersion) out.irVersion = { a: a.irVersion, b: b.irVersion };
  out.same =
    !out.irVersion && opsetImports.length === 0 && functions.length === 0 && graphSame(graph);
  return out;
}

/** Nodes of one side and the other, and how they correspond. */
export interface NodeTally {
  a: number;
  b: number;
  /** Matched (changed ones included), changed, only in a, only in b. */
  matched: number;
  changed: number;
  removed: number;
  added: number;
}

/**
 * A diff in numbers, as `diff` and the inspector page's diff panel both say it: the main graph's
 * own nodes (what a pane draws) and every graph's (subgraphs and local functions), apart.
 */
export interface DiffCounts {
  same: boolean;
  main: NodeTally & { hunks: number };
  all: NodeTally;
  functions: number;
  opsetImports: number;
}

export function diffCounts(d: ModelDiff): DiffCounts {
  const all = d.allNodes;
  return {
    same: d.same,
    main: {
      a: d.nodes.a,
      b: d.nodes.b,
      matched: d.graph.matched,
      changed: d.graph.changed.length,
      removed: d.graph.hunks.reduce((k, h) => k + h.removed.length, 0),
      added: d.graph.hunks.reduce((k, h) => k + h.added.length, 0),
      hunks: d.graph.hunks.length,
    },
    all: {
      a: all.a,
      b: all.b,
      matched: all.matched,
      changed: all.changed,
      removed: all.a - all.matched,
      added: all.b - all.matched,
    },
    functions: d.functions.length,
    opsetImports: d.opsetImports.length,
  };
}

/**
 * The counts as `diff`'s summary line says them: the main graph's, then all graphs' where the
 * model has nodes outside its main graph.
 */
export function countsText(c: DiffCounts): string {
  const t = (x: NodeTally) =>
    `${x.a} -> ${x.b} nodes: ${x.matched} matched, ${x.removed} removed, ${x.added} added, ${x.changed} changed`;
  if (c.main.a === c.all.a && c.main.b === c.all.b)
    return `${t(c.main)} (every node is in the main graph)`;
  return `main graph ${t(c.main)}; all graphs ${t(c.all)}`;
}
