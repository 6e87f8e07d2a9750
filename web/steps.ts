// Change stepping and following between the panes, computed in the worker: the changed boxes of
// every view of a side in the order `n` visits them (one step per box: a Constant drawn inside its
// consumer is stepped to as that box, once), and for a node the diff left without a match the
// nearest node that has one, where the other pane shows the change's place.

import type { Function, Graph } from "../src/ir/types.js";
import { enclosingGroups, type Scene } from "./graph/scene.js";
import type { ChangeStep } from "./protocol.js";

type Owner = Graph | Function;

export interface StepView {
  id: string;
  title: string;
  owner: Owner;
}

/**
 * The changes of a side, view by view (views in model order, nodes in graph order): each step a
 * distinct box. Without `asNodes`, a changed Constant folded into its consumer is the consumer's
 * box, and no step at all when that box is a change of its own.
 */
export function changeSteps(
  views: Iterable<StepView>,
  marksOf: (view: string) => Map<number, string> | undefined,
  sceneOf: (view: string) => Scene,
  asNodes: boolean,
): ChangeStep[] {
  const out: ChangeStep[] = [];
  for (const v of views) {
    const marks = marksOf(v.id);
    if (!marks?.size) continue;
    const scene = sceneOf(v.id);
    const seen = new Set<number>();
    let consumers: Map<string, number> | undefined;
    const consumerOf = (i: number): number | undefined => {
      if (!consumers) {
        consumers = new Map();
        v.owner.nodes.forEach((n, j) => {
          if (scene.constant[j]) return;
          for (const x of n.inputs) if (x && !consumers!.has(x)) consumers!.set(x, j);
        });
      }
      for (const o of v.owner.nodes[i]!.outputs) {
        const j = consumers.get(o);
        if (j !== undefined) return j;
      }
      return undefined;
    };
    for (const i of [...marks.keys()].sort((x, y) => x - y)) {
      let at = i;
      if (!asNodes && scene.constant[i]) {
        const j = consumerOf(i);
        if (j !== undefined) {
          if (marks.has(j)) continue;
          at = j;
        }
      }
      if (seen.has(at)) continue;
      seen.add(at);
      out.push({
        view: v.id,
        viewTitle: v.title,
        key: `n${at}`,
        index: at,
        mark: marks.get(i)!,
        groups: enclosingGroups(scene, at),
      });
    }
  }
  return out;
}

/**
 * The node nearest to `index` (through the values it reads and writes, breadth first) that the
 * diff paired with a node of the other side: where an added or removed node's place is there.
 */
export function nearestPaired(
  owner: Owner,
  index: number,
  paired: (i: number) => boolean,
): number | undefined {
  const producer = new Map<string, number>();
  const readers = new Map<string, number[]>();
  owner.nodes.forEach((n, j) => {
    for (const o of n.outputs) if (o) producer.set(o, j);
    for (const x of n.inputs) if (x) (readers.get(x) ?? readers.set(x, []).get(x)!).push(j);
  });
  const seen = new Set([index]);
  let level = [index];
  while (level.length) {
    const next: number[] = [];
    for (const i of level) {
      const n = owner.nodes[i]!;
      const around = [
        ...n.inputs.map((x) => producer.get(x)),
        ...n.outputs.flatMap((o) => readers.get(o) ?? []),
      ];
      for (const j of around) {
        if (j === undefined || seen.has(j)) continue;
        seen.add(j);
        next.push(j);
      }
    }
    const hit = next.find(paired);
    if (hit !== undefined) return hit;
    level = next;
  }
  return undefined;
}
