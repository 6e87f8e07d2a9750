// Data the plan reads besides the schema diff and the adapter table:
// - behaviourBreaks(): steps whose signature diff looks harmless but whose meaning changed; such
//   a step needs an adapter row (a row always wins), else every node taking it is blocked. They
//   are read from the changes of meaning the schemas record, not written here.
// - BLOCKED_STEPS: what a breaking step without an adapter means beyond its schema diff (the diff
//   gives every other blocked node its reason; nodes the change does not touch still pass).
// Steps are named by the `since` of the op's version before and after the step; `to: 0` is the
// step below an op's first version (the op does not exist there).

import { meaningChanges } from "../schema/facts.js";
import { SchemaRegistry } from "../schema/registry.js";

export interface StepData {
  op: string;
  from: number;
  to: number;
  /** "" (ai.onnx) unless given. */
  domain?: string;
  reason: string;
}

/**
 * The behaviour breaks, derived from the schemas: every change of meaning a version records
 * (`changes` in schemas/_overlay/<Op>.json) names the steps across that version it breaks, "up"
 * from the version before and "down" back to it, with the reason the plan prints. Computed once
 * per registry, on first use.
 */
export function behaviourBreaks(registry: SchemaRegistry = SchemaRegistry.default()): StepData[] {
  let list = breaksByRegistry.get(registry);
  if (list) return list;
  list = [];
  for (const name of registry.operators()) {
    const dot = name.lastIndexOf(".");
    const domain = dot < 0 ? "" : name.slice(0, dot);
    const op = dot < 0 ? name : name.slice(dot + 1);
    const versions = registry.versions(domain, op);
    versions.forEach((v, i) => {
      const before = versions[i - 1];
      for (const c of meaningChanges(v)) {
        const at = (from: number, to: number, reason: string): StepData =>
          domain === "" ? { op, from, to, reason } : { op, from, to, domain, reason };
        if (c.breaks.includes("up")) list!.push(at(before?.since ?? 0, v.since, c.what));
        if (c.breaks.includes("down"))
          list!.push(at(v.since, before?.since ?? 0, c.what_down ?? c.what));
      }
    });
  }
  breaksByRegistry.set(registry, list);
  return list;
}

const breaksByRegistry = new WeakMap<SchemaRegistry, StepData[]>();

/**
 * What a breaking step without an adapter row means that its schema diff cannot say. A node
 * blocked at any other such step is told the parts of the diff it uses (plan.ts,
 * nodeStepReasons), which is where its reason comes from; an entry here goes in front of them.
 * A step with a row never blocks for want of one, so it has no entry (the coverage test fails
 * on one).
 */
export const BLOCKED_STEPS: readonly StepData[] = [
  {
    op: "Tile",
    from: 1,
    to: 6,
    reason: "Tile-1 tiles one axis by a count; Tile-6 takes repeats per axis",
  },
  {
    op: "Tile",
    from: 6,
    to: 1,
    reason: "Tile-1 tiles one axis by a count; Tile-6 takes repeats per axis",
  },
];
