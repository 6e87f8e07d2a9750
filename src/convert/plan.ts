// What a version step means for one node: free (the new version changed nothing this node
// uses), an adapter row, or blocked with a reason. The schema diff says what changed; this file
// asks, per node, whether the node uses any of it.

import { getAttr } from "../ir/attributes.js";
import type { Node } from "../ir/types.js";
import { diffVersions, type SchemaDiff } from "../schema/diff.js";
import { SchemaRegistry } from "../schema/registry.js";
import type { OpVersion } from "../schema/types.js";
import type { AdapterContext, AdapterRow, NextStep } from "./adapter.js";
import { adapterTable, stepKey } from "./adapters/index.js";
import { typeRestrictionReason } from "./adapters/kit.js";
import { BLOCKED_STEPS, behaviourBreaks, type StepData } from "./steps.js";

/** One step of one node that is not free: adapted, or blocked. */
export interface StepRecord {
  /** Where the node is: "graph > node 'n' (ReduceSum)". */
  where: string;
  op: string;
  domain: string;
  /** The op's version (`since`) before and after the step; 0: the op does not exist there. */
  from: number;
  to: number;
  /** The opset step that moved the node: opset before and after. */
  opsetFrom: number;
  opsetTo: number;
  /** The adapter's summary, or the reason the step is blocked. */
  message: string;
  /**
   * The key (functionKey) of the model-local function whose body (or a subgraph of it) holds the
   * node; absent in the main graph. Blocked records carry it: the converter specializes those
   * functions per call signature (src/convert/convert-model.ts).
   */
  function?: string;
  /** What would let a blocked node through, when known (the message's hint says it, next-step.ts). */
  next?: NextStep;
}

export interface ConversionPlan {
  /** The model's ai.onnx opset before, and the target. */
  from: number | undefined;
  to: number;
  irVersion: { from: number; to: number };
  /** Nodes looked at (all graphs, subgraphs, functions; adapters' new nodes included). */
  nodes: number;
  /** Node-steps that needed nothing. */
  freeSteps: number;
  adapted: StepRecord[];
  blocked: StepRecord[];
  /** Steps taken on an assumption (an element type inference could not tell). */
  warnings: StepRecord[];
  /**
   * Nodes of function ops the target lacks, replaced by their bodies before converting (present
   * only when there were any; lowering.ts). `to` is 0: the op does not exist at the target.
   */
  lowered?: StepRecord[];
  /**
   * Local functions copied per call signature so that steps needing their call's types could be
   * taken (present only when there were any): the copies' labels, and what told the calls apart.
   */
  specialized?: { copies: string[]; by: "elem" | "rank" | "shape" };
}

const keyed = (list: readonly StepData[]) =>
  new Map(list.map((s) => [stepKey(s.domain ?? "", s.op, s.from, s.to), s]));
let behaviour: Map<string, StepData> | undefined;
let blockedSteps: Map<string, StepData> | undefined;

export function behaviourBreak(domain: string, op: string, from: number, to: number) {
  behaviour ??= keyed(behaviourBreaks());
  return behaviour.get(stepKey(domain, op, from, to));
}

export function blockedStep(domain: string, op: string, from: number, to: number) {
  blockedSteps ??= keyed(BLOCKED_STEPS);
  return blockedSteps.get(stepKey(domain, op, from, to));
}

export function adapterRow(
  domain: string,
  op: string,
  from: number,
  to: number,
): AdapterRow | undefined {
  return adapterTable().get(stepKey(domain, op, from, to));
}

const diffs = new WeakMap<OpVersion, Map<OpVersion, SchemaDiff>>();

/** The schema diff of a step, computed once per pair of versions. */
export function stepDiff(a: OpVersion, b: OpVersion): SchemaDiff {
  let m = diffs.get(a);
  if (!m) diffs.set(a, (m = new Map()));
  let d = m.get(b);
  if (!d) m.set(b, (d = diffVersions(a, b)));
  return d;
}

/** What a step's diff breaks beyond element types. */
function reasonsBeyondTypes(d: SchemaDiff): string[] {
  return d.verdict.reasons.filter((r) => !r.includes("no longer accepts"));
}

/** Whether a step's diff breaks anything beyond element types (a "breaking" step). */
export function breaksBeyondTypes(d: SchemaDiff): boolean {
  return reasonsBeyondTypes(d).length > 0;
}

/** A breaking step of an ai.onnx op: its diff breaks more than element types, or its meaning changed. */
export interface BreakingStep {
  op: string;
  from: number;
  to: number;
  /** The adapter row that takes it, if any. */
  row?: AdapterRow;
  /** What blocks a node without a row: the written reason, the change of meaning, else the diff's. */
  reason: string;
  /** Where the reason comes from. */
  source: "written" | "meaning" | "diff";
}

/**
 * Every step between adjacent versions of every ai.onnx op that breaks (both ways), in the
 * registry's order of ops: what `convert --list-adapters` lists and the coverage test checks.
 */
export function breakingSteps(registry: SchemaRegistry = SchemaRegistry.default()): BreakingStep[] {
  const out: BreakingStep[] = [];
  for (const op of registry.operators()) {
    if (op.includes(".")) continue;
    const vs = registry.versions("", op);
    for (let i = 1; i < vs.length; i++)
      for (const [a, b] of [
        [vs[i - 1]!, vs[i]!],
        [vs[i]!, vs[i - 1]!],
      ] as const) {
        const br = behaviourBreak("", op, a.since, b.since);
        const diff = reasonsBeyondTypes(stepDiff(a, b));
        if (!br && diff.length === 0) continue;
        const row = adapterRow("", op, a.since, b.since);
        const listed = blockedStep("", op, a.since, b.since)?.reason;
        const step: BreakingStep = listed
          ? { op, from: a.since, to: b.since, reason: listed, source: "written" }
          : br
            ? { op, from: a.since, to: b.since, reason: br.reason, source: "meaning" }
            : { op, from: a.since, to: b.since, reason: diff.join("; "), source: "diff" };
        if (row) step.row = row;
        out.push(step);
      }
  }
  return out;
}

const present = (names: readonly string[], i: number) => (names[i] ?? "") !== "";
const usedCount = (names: readonly string[]) => {
  let n = names.length;
  while (n > 0 && names[n - 1] === "") n--;
  return n;
};

/**
 * Why this node cannot take the step as it is (the parts of the diff it uses), or [] when the
 * step changes nothing it uses. Types are asked of the context only where the step drops some.
 */
export function nodeStepReasons(c: AdapterContext, d: SchemaDiff): string[] {
  const node: Node = c.node;
  const out: string[] = [];
  const moved = new Set(d.attributesToInputs.map((m) => m.name));
  for (const m of d.attributesToInputs)
    if (getAttr(node, m.name))
      out.push(`attribute '${m.name}' became input #${m.index} of ${c.to.name}-${c.to.since}`);
  for (const a of d.attributes.removed)
    if (!moved.has(a.name) && getAttr(node, a.name))
      out.push(`attribute '${a.name}' does not exist in ${c.to.name}-${c.to.since}`);
  for (const a of d.attributes.added)
    if (a.required && !d.inputsToAttributes.some((m) => m.name === a.name))
      out.push(`${c.to.name}-${c.to.since} requires attribute '${a.name}'`);
  for (const ch of d.attributes.changed) {
    const set = getAttr(node, ch.name);
    if (set && ch.before.type !== ch.after.type)
      out.push(`attribute '${ch.name}' changed type (${ch.before.type} -> ${ch.after.type})`);
    if (!set && ch.after.required)
      out.push(`${c.to.name}-${c.to.since} requires attribute '${ch.name}'`);
    else if (!set && JSON.stringify(ch.before.default) !== JSON.stringify(ch.after.default))
      out.push(
        `attribute '${ch.name}' is not set and its default changed (${JSON.stringify(ch.before.default)} -> ${JSON.stringify(ch.after.default)})`,
      );
  }
  for (const m of d.inputsToAttributes)
    if (present(node.inputs, m.index))
      out.push(`input #${m.index} ('${m.name}') is an attribute in ${c.to.name}-${c.to.since}`);
  const nIn = usedCount(node.inputs);
  const nOut = usedCount(node.outputs);
  for (const x of d.inputs.removed)
    if (present(node.inputs, x.index) && !d.inputsToAttributes.some((m) => m.index === x.index))
      out.push(
        `input #${x.index} ('${x.formal.name}') does not exist in ${c.to.name}-${c.to.since}`,
      );
  for (const x of d.outputs.removed)
    if (present(node.outputs, x.index))
      out.push(
        `output #${x.index} ('${x.formal.name}') does not exist in ${c.to.name}-${c.to.since}`,
      );
  for (const x of d.inputs.added)
    if (
      x.formal.option === "single" &&
      !d.attributesToInputs.some((m) => m.index === x.index && getAttr(node, m.name))
    )
      out.push(`${c.to.name}-${c.to.since} requires input #${x.index} ('${x.formal.name}')`);
  const [minIn, maxIn] = d.inputs.countAfter;
  if (out.length === 0 && (nIn > maxIn || node.inputs.length < minIn))
    out.push(`${nIn} inputs, and ${c.to.name}-${c.to.since} takes ${minIn} to ${maxIn}`);
  const [minOut, maxOut] = d.outputs.countAfter;
  if (nOut > maxOut || node.outputs.length < minOut)
    out.push(`${nOut} outputs, and ${c.to.name}-${c.to.since} has ${minOut} to ${maxOut}`);
  for (const ch of d.inputs.changed)
    if (ch.changes.includes("made required") && !present(node.inputs, ch.index))
      out.push(`${c.to.name}-${c.to.since} requires input #${ch.index} ('${ch.after.name}')`);
  for (const ch of d.outputs.changed)
    if (ch.changes.includes("made required") && !present(node.outputs, ch.index))
      out.push(`${c.to.name}-${c.to.since} requires output #${ch.index} ('${ch.after.name}')`);
  if (d.deprecated === "added") out.push(`${c.to.name}-${c.to.since} is deprecated`);
  if (out.length === 0 && (d.inputs.typesRemoved.length || d.outputs.typesRemoved.length)) {
    const why = typeRestrictionReason(c);
    if (why) out.push(why);
  }
  return out;
}

/** Each record's node id (GraphScope.nodeId), beside the record: for matching, not in its JSON. */
const recordIds = new WeakMap<StepRecord, string>();

/** `record` with the id of the node it is about (GraphScope.nodeId). */
export function withNodeId(record: StepRecord, id: string): StepRecord {
  recordIds.set(record, id);
  return record;
}

/** The id of the node a record is about; undefined for a record made without one. */
export const nodeIdOf = (record: StepRecord): string | undefined => recordIds.get(record);

/** A copy of `record` with another message, about the same node. */
export function reworded(record: StepRecord, message: string): StepRecord {
  const copy = { ...record, message };
  const id = recordIds.get(record);
  if (id !== undefined) recordIds.set(copy, id);
  return copy;
}
