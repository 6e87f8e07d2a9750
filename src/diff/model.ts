// What changed between two models: IR version, opset imports, local functions (by domain, name
// and overload) and the main graph, each graph diffed by match.ts.

import type { Function, Graph, Model, OpsetId } from "../ir/types.js";
import { normaliseDomain } from "../schema/registry.js";
import { diffGraphs, graphSame } from "./match.js";
import type { ModelDiff } from "./types.js";

/** How a diff names a local function: `domain.name:overload` (ai.onnx and overload left out). */
export function functionKey(f: Pick<Function, "domain" | "name" | "overload">): string {
  const d = normaliseDomain(f.domain);
  return `${d ? `${d}.` : ""}${f.name}${f.overload ? `:${f.overload}` : ""}`;
}

export function diffModels(a: Model, b: Model): ModelDiff {
  const opsetImports: ModelDiff["opsetImports"] = [];
  const imp = (l: OpsetId[]) =>
    new Map(l.map((o) => [normaliseDomain(o.domain), o.version] as const));
  const ia = imp(a.opsetImports);
  const ib = imp(b.opsetImports);
  for (const [d, v] of ia) {
    const w = ib.get(d);
    if (w !== v)
      opsetImports.push(w === undefined ? { domain: d, a: v } : { domain: d, a: v, b: w });
  }
  for (const [d, w] of ib) if (!ia.has(d)) opsetImports.push({ domain: d, b: w });

  const fk = functionKey;
  const fb = new Map(b.functions.map((f) => [fk(f), f] as const));
  const functions: ModelDiff["functions"] = [];
  for (const f of a.functions) {
    const g = fb.get(fk(f));
    if (!g) {
      functions.push({ name: fk(f), change: "removed" });
      continue;
    }
    const d = diffGraphs(f, g);
    if (!graphSame(d)) functions.push({ name: fk(f), change: "changed", diff: d });
  }
  const fa = new Set(a.functions.map(fk));
  for (const g of b.functions) if (!fa.has(fk(g))) functions.push({ name: fk(g), change: "added" });

  const graph = diffGraphs(a.graph, b.graph);
  const count = (m: Model) => {
    let n = 0;
    const visit = (g: Graph) => {
      for (const x of g.nodes) {
        n++;
        for (const at of x.attributes) {
          if (at.type === "GRAPH" && at.value) visit(at.value);
          if (at.type === "GRAPHS" && at.value) at.value.forEach(visit);
        }
      }
    };
    visit(m.graph);
    return n;
  };
  const out: ModelDiff = {
    same: false,
    opsetImports,
    functions,
    graph,
    nodes: { a: count(a), b: count(b) },
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
