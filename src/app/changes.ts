// What a transform changed, as every command that writes a model says it: the nodes counted in
// the main graph and in all graphs (modelNodeCounts), and, per step of its pipeline, the nodes
// the step took out and put in (every graph, matched by structure: a node a pass copied
// unchanged is not a change), grouped by kind of change (the step's verb: folded, converted,
// expanded, …). Symbolic dims fixed and left are said by name.

import { attrLines, opOf } from "../diff/keys.js";
import { modelNodeCounts, functionWhere } from "../ir/functions.js";
import { nodeLabel } from "../errors.js";
import { nodeGraphs } from "../ir/visit.js";
import type { Function, Graph, Model, Node } from "../ir/types.js";
import { pipeline, runPass } from "../passes/manager.js";
import type { Pass } from "../passes/pass.js";

export type NodeCounts = ReturnType<typeof modelNodeCounts>;
export { modelNodeCounts };

/** A node a step took out or put in: where it is, and its op. */
export interface NodeMark {
  where: string;
  op: string;
  /** Its graph and name (its first output when it has none): a node rewritten in place keeps it. */
  at: string;
}

/** The nodes one kind of change took out and put in (either may be empty). */
export interface KindChange {
  kind: string;
  removed: NodeMark[];
  added: NodeMark[];
}

/** What one step of a transform did. */
export interface StepChange {
  /** The pass's name. */
  step: string;
  before: NodeCounts;
  after: NodeCounts;
  /** The ai.onnx opset before and after (undefined: no import). */
  opset: { from?: number; to?: number };
  /** The kinds of change among its steps that took out or put in nodes, in order. */
  kinds: KindChange[];
  /** What the step's passes said they did (their info notes). */
  notes: string[];
  modified: boolean;
}

/** The verb a step's kind of change is said with: the pass's name where none is listed. */
const VERBS: Record<string, string> = {
  "fold-constants": "folded",
  "remove-no-ops": "no-ops removed",
  "eliminate-identity": "Identity removed",
  "common-subexpressions": "merged",
  "fuse-conv-batchnorm": "fused",
  "lift-constants": "lifted to initializers",
  "remove-dead-values": "dead removed",
  "flatten-to-reshape": "Flatten as Reshape",
  legalize: "legalized",
  "legalize-float64": "made float32",
  "legalize-int64": "made int32",
  expand: "expanded",
  "inline-local-functions": "inlined",
};

/** The kind of change of a pass: its verb ("convert(opset 13)" is "converted"). */
export function changeKind(pass: string): string {
  if (pass.startsWith("convert")) return "converted";
  if (pass.startsWith("to-")) return `made ${pass.slice(3)}`;
  return VERBS[pass] ?? pass;
}

/** Passes whose notes count what their kind of change lists (or the dims line says). */
// (The expander's "expanded N calls" stays: it counts calls at every depth of nesting.)
const countedBy = (pass: string) =>
  (pass in VERBS && pass !== "expand") ||
  pass.startsWith("convert") ||
  pass === "fix-dims" ||
  pass === "sort-nodes";

const onnxOpset = (m: Model) =>
  m.opsetImports.find((o) => o.domain === "" || o.domain === "ai.onnx")?.version;

/** Every node of the model with where it is: the main graph, subgraphs, function bodies. */
function eachNode(
  model: Model,
  f: (node: Node, where: () => string, at: () => string) => void,
): void {
  // `where` for a person (with indices), `at` for matching (names, else first outputs).
  const walk = (g: Graph | Function, prefix: string, atPrefix: string) =>
    g.nodes.forEach((n, i) => {
      const label = () => `${prefix}${nodeLabel(n, i)}`;
      const at = () => `${atPrefix}${n.name ? `'${n.name}'` : `=> ${n.outputs[0] ?? i}`}`;
      f(n, label, at);
      const subs = nodeGraphs(n);
      if (subs.length) {
        const here = label();
        const there = at();
        for (const sub of subs) {
          const name = sub.name ? `'${sub.name}' ` : "";
          walk(sub, `${here} > ${name}`, `${there} > ${name}`);
        }
      }
    });
  walk(model.graph, "", "");
  for (const fn of model.functions) walk(fn, `${functionWhere(fn)} > `, `${functionWhere(fn)} > `);
}

/**
 * The nodes `after` lacks of `before` (removed) and has anew (added), every graph, matched by
 * identity first (the IR shares what a pass does not change), then by where, op, values and
 * attributes (a node copied unchanged).
 */
export function nodeChanges(
  before: Model,
  after: Model,
): { removed: NodeMark[]; added: NodeMark[] } {
  if (before === after) return { removed: [], added: [] };
  const inBefore = new Set<Node>();
  const inAfter = new Set<Node>();
  eachNode(before, (n) => inBefore.add(n));
  eachNode(after, (n) => inAfter.add(n));
  const key = (n: Node, where: string) =>
    [where, n.inputs.join(","), n.outputs.join(","), ...attrLines(n)].join("\u0000");
  const gone = new Map<string, NodeMark[]>();
  eachNode(before, (n, where, at) => {
    if (inAfter.has(n)) return;
    const w = where();
    const k = key(n, w);
    const l = gone.get(k);
    const mark = { where: w, op: opOf(n), at: at() };
    if (l) l.push(mark);
    else gone.set(k, [mark]);
  });
  const added: NodeMark[] = [];
  eachNode(after, (n, where, at) => {
    if (inBefore.has(n)) return;
    const w = where();
    const l = gone.get(key(n, w));
    if (l?.length) l.pop();
    else added.push({ where: w, op: opOf(n), at: at() });
  });
  return { removed: [...gone.values()].flat(), added };
}

/**
 * A pass whose steps (when it is a pipeline; itself otherwise) record what each changed into
 * `out.kinds`, and its info notes into `out.notes`: the pass runs as before, its result the same.
 */
function recordKinds(pass: Pass, out: { kinds: KindChange[]; notes: string[] }): Pass {
  const steps = (pass as { steps?: readonly Pass[] }).steps;
  const leaf = (p: Pass): Pass => ({
    name: p.name,
    run(model, ctx) {
      const r = runPass(p, model, ctx);
      if (r.ok) {
        // The pass's own words where its kind of change does not say them already (a count of
        // nodes folded, removed, converted), and never a note per node (the kinds list those).
        if (!countedBy(p.name))
          for (const n of r.notes) if (n.level === "info" && !n.where) out.notes.push(n.message);
        if (r.modified) {
          const c = nodeChanges(model, r.model);
          if (c.removed.length || c.added.length)
            out.kinds.push({ kind: changeKind(p.name), ...c });
        }
      }
      return r;
    },
  });
  if (!steps) return leaf(pass);
  // The pipeline's run over the wrapped steps; its precondition (simplify's) kept.
  return { ...pass, run: pipeline(pass.name, steps.map(leaf)).run };
}

/**
 * The pass recording what it did: one StepChange per step of `pass` when `bySteps` (lower's
 * steps, each with its kinds of change), else one for the whole pass (its own steps' kinds).
 */
export function recordChanges(pass: Pass, bySteps = false): { pass: Pass; steps: StepChange[] } {
  const steps: StepChange[] = [];
  const one = (p: Pass): Pass => {
    const rec = { kinds: [] as KindChange[], notes: [] as string[] };
    const inner = recordKinds(p, rec);
    return {
      name: p.name,
      run(model, ctx) {
        const r = runPass(inner, model, ctx);
        if (r.ok)
          steps.push({
            step: p.name,
            before: modelNodeCounts(model),
            after: modelNodeCounts(r.model),
            opset: { from: onnxOpset(model), to: onnxOpset(r.model) },
            kinds: rec.kinds,
            notes: rec.notes,
            modified: r.modified,
          });
        return r;
      },
    };
  };
  const own = (pass as { steps?: readonly Pass[] }).steps;
  if (!bySteps || !own) return { pass: one(pass), steps };
  return { pass: { ...pass, run: pipeline(pass.name, own.map(one)).run }, steps };
}

/** A step's kinds merged by kind (two fold-constants steps are one "folded"), in first order. */
export function mergeKinds(kinds: readonly KindChange[]): KindChange[] {
  const by = new Map<string, KindChange>();
  for (const k of kinds) {
    const m = by.get(k.kind);
    if (m) {
      m.removed.push(...k.removed);
      m.added.push(...k.added);
    } else by.set(k.kind, { kind: k.kind, removed: [...k.removed], added: [...k.added] });
  }
  return [...by.values()];
}

/** The symbolic dims (dim_param) of the model's inputs and outputs (or inputs only), by name. */
export function symbolicDims(model: Model, inputsOnly = false): string[] {
  const out = new Set<string>();
  for (const v of inputsOnly
    ? model.graph.inputs
    : [...model.graph.inputs, ...model.graph.outputs]) {
    const t = v.type;
    if (t?.kind !== "tensor" || !t.shape) continue;
    for (const d of t.shape) if (typeof d === "string" && d !== "") out.add(d);
  }
  return [...out];
}
