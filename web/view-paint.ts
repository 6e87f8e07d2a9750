// The numbers a run paints on a view's boxes, made in the worker: per node its time or its largest
// difference from the original, and per group the sum of its nodes' times or their largest
// difference. The main view and every subgraph or local-function view that ran are painted alike.

import type { Difference } from "../src/app/compare.js";
import type { Function, Graph } from "../src/ir/types.js";
import { enclosingGroups, type Scene } from "./graph/scene.js";
import type { RunAnswer, SideName } from "./protocol.js";

type Paint = NonNullable<RunAnswer["paint"]>;
type ViewPaint = NonNullable<NonNullable<Paint["views"]>[SideName]>[string];

/** Each node's time as `n<i>`, and each group's as the sum of its nodes'. */
export function timesOf(scene: Scene, times: readonly number[]): Record<string, number> {
  const out: Record<string, number> = Object.create(null);
  times.forEach((t, i) => {
    out[`n${i}`] = t;
    for (const g of enclosingGroups(scene, i)) out[g] = (out[g] ?? 0) + t;
  });
  return out;
}

/** Each node's difference as `n<i>` (null: no match), and each group's largest. */
export function diffsOf(
  scene: Scene,
  diffs: readonly (Difference | null)[],
): Record<string, [number, number] | null> {
  const out: Record<string, [number, number] | null> = Object.create(null);
  diffs.forEach((d, i) => {
    out[`n${i}`] = d ? [d.abs, d.rel] : null;
    for (const g of enclosingGroups(scene, i)) {
      const had = out[g];
      if (!d) {
        if (had === undefined) out[g] = null;
      } else out[g] = had ? [Math.max(had[0], d.abs), Math.max(had[1], d.rel)] : [d.abs, d.rel];
    }
  });
  return out;
}

/** A side's views, as paintViews needs them: id and the graph or function it draws. */
export interface PaintSide {
  name: SideName;
  views: Iterable<{ id: string; owner: Graph | Function }>;
  scene(view: string): Scene;
}

/**
 * The paint of every view other than the main one that ran: times per side, and for the result
 * (b) the differences of its subgraphs' nodes.
 */
export function paintViews(
  sides: PaintSide[],
  graphs: {
    ms: Map<Graph | Function, number[]>[];
    diff?: Map<Graph, (Difference | null)[]>;
  },
): Paint["views"] {
  const out: NonNullable<Paint["views"]> = {};
  sides.forEach((s, k) => {
    const times = graphs.ms[k];
    const views: Record<string, ViewPaint> = {};
    for (const v of s.views) {
      if (v.id === "main") continue;
      const t = times?.get(v.owner);
      const d = s.name === "b" && "initializers" in v.owner ? graphs.diff?.get(v.owner) : undefined;
      if (!t && !d) continue;
      const scene = s.scene(v.id);
      views[v.id] = {
        ...(t ? { ms: timesOf(scene, t) } : {}),
        ...(d ? { diff: diffsOf(scene, d) } : {}),
      };
    }
    out[s.name] = views;
  });
  return out;
}
