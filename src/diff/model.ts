// What changed between two models: IR version, opset imports, local functions (by domain, name
// and overload) and the main graph, each graph diffed by match.ts.

import { functionKey, functionLabel, nodeCount } from "../ir/functions.js";
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
  for (const f of a.functions) {
    const g = fb.get(fk(f));
    if (!g) {
      functions.push({ name: functionLabel(f), change: "removed" });
      continue;
    }
    const d = diffGraphs(f, g);
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
    nodes: { a: nodeCount(a.graph), b: nodeCount(b.graph) },
  };
  if (a.irVersion !== b.irVersion) out.irVersion = { a: a.irVersion, b: b.irVersion };
  out.same =
    !out.irVersion && opsetImports.length === 0 && functions.length === 0 && graphSame(graph);
  return out;
}

/** A diff in numbers, as the inspector page shows it (the main graph's nodes). */
export interface DiffCounts {
  same: boolean;
  matched: number;
  changed: number;
  removed: number;
  added: number;
  hunks: number;
  nodes: { a: number; b: number };
  functions: number;
  opsetImports: number;
}

export function diffCounts(d: ModelDiff): DiffCounts {
  return {
    same: d.same,
    matched: d.graph.matched,
    changed: d.graph.changed.length,
    removed: d.graph.hunks.reduce((k, h) => k + h.removed.length, 0),
    added: d.graph.hunks.reduce((k, h) => k + h.added.length, 0),
    hunks: d.graph.hunks.length,
    nodes: d.nodes,
    functions: d.functions.length,
    opsetImports: d.opsetImports.length,
  };
}
