// "Will my model run on backend X?", answered per node: each node of the graph, its subgraphs and
// its local functions is supported (perhaps with a caveat of the source that nothing here can
// check), partial (the op is the target's, but the node fails one of its constraints: which, and
// why) or unsupported (the op, its version or an element type), with a summary by op, the
// coverage in nodes and, where shapes are known, in multiply-adds of the ops that dominate (Conv,
// ConvTranspose, MatMul, Gemm), and the partitions the backend would form (partition.ts).

import { formalAt } from "../check/arity.js";
import { analysisOf } from "../check/infer.js";
import { dtypeName } from "../ir/dtype.js";
import { walkGraphNodes } from "../ir/visit.js";
import type { Function, Graph, Model, Node, Type } from "../ir/types.js";
import { opsetMap } from "../ir/opsets.js";
import { SchemaRegistry } from "../schema/registry.js";
import type { OpVersion } from "../schema/types.js";
import { constantsOf, failingAll, shapeOf, type ConstraintScope } from "./constraints.js";
import { partitionGraph } from "./partition.js";
import { rowFor, versionSupported, type Profile } from "./profile.js";

export type Verdict = "supported" | "partial" | "unsupported";

export interface NodeVerdict {
  /** "graph > node 'n3' (Conv)", as the checker names places. */
  where: string;
  op: string;
  verdict: Verdict;
  /** Why it is not supported, one reason a constraint or limit. */
  reasons: string[];
  /** A supported node's caveat: what the source says and nothing here can check. */
  caveat?: string;
  /** Multiply-adds where the shapes are known (Conv, ConvTranspose, MatMul, Gemm). */
  macs?: number;
  /**
   * Where it is: `fn` the function's index in the model (-1: the main graph) and `index` the
   * node of that graph or function that is it or holds it (a node of an If/Loop/Scan body is at
   * the index of the node the body belongs to), for a page to mark.
   */
  at: { fn: number; index: number };
  /** The partition it is in (an index of `partitions.groups`); none for a function's nodes. */
  partition?: number;
  /** An unsupported node on a partition's border: one of the nodes that split the model. */
  splits?: true;
}

export interface Partitions {
  /** The number of partitions (of the main graph and its subgraphs, as onnxruntime forms them). */
  count: number;
  /** Each partition: its node count, the multiply-adds it holds, its first node. */
  groups: { nodes: number; macs: number; first: string }[];
  /** Nodes partitioned (every graph but the functions', Constant nodes left out: they are data). */
  nodes: number;
  /** Of those, how many are in a partition. */
  supported: number;
  /** Multiply-adds where known: in all, and in partitions. */
  macs?: { total: number; supported: number };
  /** The nodes that split the model (indices into `nodes` of the report). */
  splitters: number[];
}

export interface TargetReport {
  target: string;
  /** Model-level findings (the opset outside the target's range). */
  model: string[];
  nodes: NodeVerdict[];
  /** Per op: counts by verdict. */
  byOp: Record<string, Record<Verdict, number>>;
  /**
   * The nodes a backend is asked about: every node of the graph, its subgraphs and its local
   * functions except Constant nodes (`nodes`), how many of those it takes (`supported`), how many
   * of them are in local functions (`inFunctions`: the partitions count the rest), and the
   * Constant nodes left out (`constants`): they are data, which onnxruntime folds into
   * initializers and places on no backend, as the partitions leave them out.
   */
  coverage: {
    nodes: number;
    supported: number;
    constants: number;
    inFunctions: number;
    macs?: { total: number; supported: number };
  };
  /** The caveats of the ops the model uses (as the source words them), with how many nodes. */
  caveats: { op: string; caveat: string; nodes: number }[];
  partitions: Partitions;
}

const isConstantNode = (n: Node) =>
  n.opType === "Constant" && (n.domain ?? "") === "" && n.inputs.length === 0;

/**
 * Whether the signature gives the i-th input (or output) one type only (a concrete type, or a
 * type variable of one allowed type: Shape's output): the element types a source lists for an op
 * are those of its type variables.
 */
function fixedType(v: OpVersion | undefined, out: boolean, i: number): boolean {
  const f = v && formalAt(out ? v.outputs : v.inputs, i);
  if (!f) return false;
  const tc = v.type_constraints.find((c) => c.name === f.type);
  return !tc || tc.allowed.length === 1;
}

function attrValue(n: Node, name: string): number | string | undefined {
  const a = n.attributes.find((x) => x.name === name);
  if (!a || a.value === undefined) return undefined;
  if (a.type === "INT" || a.type === "FLOAT") return Number(a.value);
  if (a.type === "STRING") return String(a.value);
  return undefined;
}

/** Multiply-adds of a product node whose shapes inference knows. */
function macsOf(n: Node, types: Map<string, Type> | undefined): number | undefined {
  const dims = (x: string | undefined) => {
    const s = shapeOf(types?.get(x ?? ""));
    return s && s.every((d) => typeof d === "number") ? (s as number[]) : undefined;
  };
  const prod = (a: number[]) => a.reduce((p, d) => p * d, 1);
  const op = n.opType;
  if ((n.domain ?? "") !== "") return undefined;
  if (op === "Conv" || op === "ConvTranspose") {
    const y = dims(n.outputs[0]);
    const w = dims(n.inputs[1]);
    if (!y || !w) return undefined;
    // each output element: (C/group) × kernel positions products
    return op === "Conv"
      ? prod(y) * prod(w.slice(1))
      : prod(dims(n.inputs[0]) ?? []) * prod(w.slice(1));
  }
  if (op === "MatMul" || op === "Gemm") {
    const y = dims(n.outputs[0]);
    const a = dims(n.inputs[0]);
    if (!y || !a) return undefined;
    const k = op === "Gemm" && attrValue(n, "transA") === 1 ? a[0]! : a[a.length - 1]!;
    return prod(y) * k;
  }
  return undefined;
}

/** Every node of the model against a profile. */
export function classifyModel(model: Model, profile: Profile): TargetReport {
  const registry = SchemaRegistry.default();
  const opsets = opsetMap(model.opsetImports);
  const report: TargetReport = {
    target: `${profile.name}@${profile.version}`,
    model: [],
    nodes: [],
    byOp: Object.create(null),
    coverage: { nodes: 0, supported: 0, constants: 0, inFunctions: 0 },
    caveats: [],
    partitions: { count: 0, groups: [], nodes: 0, supported: 0, splitters: [] },
  };
  const onnx = opsets.get("");
  if (onnx !== undefined && (onnx < profile.opset.min || onnx > profile.opset.max))
    report.model.push(
      `ai.onnx opset ${onnx} is outside ${profile.name}'s range ${profile.opset.min} to ${profile.opset.max}`,
    );
  let types: Map<Graph | Function, Map<string, Type>> | undefined;
  try {
    types = analysisOf(model).types;
  } catch {
    // A model inference cannot follow is judged on what it declares.
  }
  let macsTotal = 0;
  let macsSupported = 0;
  let macsKnown = false;
  const caveats = new Map<string, { op: string; caveat: string; nodes: number }>();
  /** Per graph of the main graph's tree: its nodes' places in report.nodes. */
  const graphs = new Map<Graph | Function, number[]>();
  const owners: { g: Graph | Function; label: string; fn: number }[] = [
    { g: model.graph, label: "graph", fn: -1 },
    ...model.functions.map((f, fn) => ({
      g: f as Graph | Function,
      label: `function ${f.domain}.${f.name}`,
      fn,
    })),
  ];
  for (const { g, label, fn } of owners) {
    const constants = constantsOf(g);
    let top = 0;
    for (const { node: n, owner, index, depth } of walkGraphNodes(g)) {
      if (depth === 0) top = index;
      const domain = n.domain === "ai.onnx" ? "" : (n.domain ?? "");
      const op = domain ? `${domain}.${n.opType}` : n.opType;
      const version = opsets.has(domain)
        ? registry.tryResolve(domain, n.opType, opsets.get(domain)!)
        : undefined;
      const scope: ConstraintScope = {
        types: types?.get(owner) ?? types?.get(model.graph),
        constants: owner === g ? constants : constantsOf(owner),
        version,
      };
      const { verdict, reasons, caveat } = judge(n, op, domain, version, profile, scope);
      if (caveat) {
        const c = caveats.get(op) ?? { op, caveat, nodes: 0 };
        c.nodes++;
        caveats.set(op, c);
      }
      const where = `${label} > ${n.name ? `node '${n.name}'` : "node"} (${op})`;
      const macs = owner === model.graph ? macsOf(n, scope.types) : undefined;
      if (macs !== undefined) {
        macsKnown = true;
        macsTotal += macs;
        if (verdict === "supported") macsSupported += macs;
      }
      if (fn === -1) {
        const list = graphs.get(owner) ?? [];
        list[index] = report.nodes.length;
        graphs.set(owner, list);
      }
      report.nodes.push({
        where,
        op,
        verdict,
        reasons,
        ...(caveat ? { caveat } : {}),
        ...(macs !== undefined ? { macs } : {}),
        at: { fn, index: top },
      });
      if (isConstantNode(n)) {
        report.coverage.constants++;
        continue;
      }
      const counts = (report.byOp[op] ??= { supported: 0, partial: 0, unsupported: 0 });
      counts[verdict]++;
      report.coverage.nodes++;
      if (fn !== -1) report.coverage.inFunctions++;
      if (verdict === "supported") report.coverage.supported++;
    }
  }
  if (macsKnown) report.coverage.macs = { total: macsTotal, supported: macsSupported };
  report.caveats = [...caveats.values()].sort((a, b) => a.op.localeCompare(b.op));
  report.partitions = partitionsOf(report, graphs, macsKnown);
  return report;
}

/** A node's verdict against the profile. */
function judge(
  n: Node,
  op: string,
  domain: string,
  version: OpVersion | undefined,
  profile: Profile,
  scope: ConstraintScope,
): { verdict: Verdict; reasons: string[]; caveat?: string } {
  // A Constant node is data: a runtime takes it as an initializer whatever its backend runs.
  if (isConstantNode(n)) return { verdict: "supported", reasons: [] };
  const row = rowFor(profile, domain, n.opType);
  if (!row)
    return {
      verdict: "unsupported",
      reasons: [
        version?.function
          ? `${op}-${version.since} is a function op, not in ${profile.name}: expand it (onnx-expand expand)`
          : `${op} is not in ${profile.name}`,
      ],
    };
  if (version && !versionSupported(row, version.since)) {
    const ranges = row.versions
      .map((r) =>
        r.to === undefined ? `${r.from}+` : r.from === r.to ? `${r.from}` : `${r.from}-${r.to}`,
      )
      .join(", ");
    return {
      verdict: "unsupported",
      reasons: [`${op}-${version.since} is not supported (${profile.name} has ${ranges})`],
    };
  }
  if (row.types) {
    for (const [x, fixed] of [
      ...n.inputs.map((x, i) => [x, fixedType(version, false, i)] as const),
      ...n.outputs.map((x, i) => [x, fixedType(version, true, i)] as const),
    ]) {
      // A type the op's signature fixes (Reshape's shape is int64) comes with the op.
      if (fixed) continue;
      const t = scope.types?.get(x);
      if (!x || !t || t.kind !== "tensor" || !t.elemType) continue;
      const name = dtypeName(t.elemType);
      if (!row.types.includes(name))
        return {
          verdict: "unsupported",
          reasons: [`element type ${name} ('${x}') is not supported`],
        };
    }
  }
  const reasons = failingAll([...(profile.everyNode ?? []), ...row.constraints], n, scope);
  if (reasons.length) return { verdict: "partial", reasons };
  return { verdict: "supported", reasons, ...(row.caveat ? { caveat: row.caveat } : {}) };
}

/** The partitions of the main graph and its subgraphs, from the nodes' verdicts. */
function partitionsOf(
  report: TargetReport,
  graphs: Map<Graph | Function, number[]>,
  macsKnown: boolean,
): Partitions {
  const out: Partitions = { count: 0, groups: [], nodes: 0, supported: 0, splitters: [] };
  let total = 0;
  let inside = 0;
  for (const [g, places] of graphs) {
    const v = (i: number) => report.nodes[places[i]!]!;
    const { groups, splitters } = partitionGraph(g, (i) => v(i).verdict === "supported");
    for (const [i, n] of g.nodes.entries()) {
      if (isConstantNode(n)) continue;
      out.nodes++;
      total += v(i).macs ?? 0;
    }
    for (const group of groups) {
      const k = out.groups.length;
      let macs = 0;
      for (const i of group) {
        v(i).partition = k;
        macs += v(i).macs ?? 0;
      }
      out.supported += group.length;
      inside += macs;
      out.groups.push({ nodes: group.length, macs, first: v(group[0]!).where });
    }
    for (const i of splitters) {
      v(i).splits = true;
      out.splitters.push(places[i]!);
    }
  }
  out.count = out.groups.length;
  if (macsKnown) out.macs = { total, supported: inside };
  return out;
}

/** Whether everything is supported (the model's opset too). */
export function fullySupported(r: TargetReport): boolean {
  return r.model.length === 0 && r.nodes.every((n) => n.verdict === "supported");
}

const pct = (a: number, b: number) => (b === 0 ? "100" : ((100 * a) / b).toFixed(1));

/** One line on the partitions: how many, their sizes, their share of nodes and multiply-adds. */
export function formatPartitions(p: Partitions): string {
  const sizes = p.groups.map((g) => g.nodes);
  const shown = sizes.length > 12 ? `${sizes.slice(0, 12).join(", ")}, …` : sizes.join(", ");
  return (
    `${p.count} partition${p.count === 1 ? "" : "s"}` +
    (p.count ? ` (nodes ${shown})` : "") +
    ` covering ${p.supported} of ${p.nodes} nodes (${pct(p.supported, p.nodes)}%)` +
    (p.macs && p.macs.total
      ? ` and ${pct(p.macs.supported, p.macs.total)}% of the multiply-adds`
      : "") +
    (p.splitters.length ? `, split by ${p.splitters.length} node(s)` : "")
  );
}

/**
 * What the node counts leave out or hold that the partitions do not, in brackets: the Constant
 * nodes (data: onnxruntime folds them into initializers) and the nodes of local functions.
 */
export function uncounted(c: TargetReport["coverage"]): string {
  const notes = [
    ...(c.constants
      ? [
          `${c.constants} Constant node${c.constants === 1 ? "" : "s"} not counted: onnxruntime folds them into initializers`,
        ]
      : []),
    ...(c.inFunctions
      ? [`${c.inFunctions} of the ${c.nodes} in local functions, which the partitions leave out`]
      : []),
  ];
  return notes.length ? ` (${notes.join("; ")})` : "";
}

/** The target's verdict in one phrase, for a command's closing line. */
export function targetSummary(r: TargetReport): string {
  const c = r.coverage;
  const p = r.partitions;
  const parts = `${p.count} partition${p.count === 1 ? "" : "s"}`;
  if (fullySupported(r)) return `target ${r.target}: every node supported, ${parts}`;
  const partial = r.nodes.filter((n) => n.verdict === "partial").length;
  const off = c.nodes - c.supported;
  return (
    `target ${r.target}: ${off} of ${c.nodes} nodes not supported` +
    ` (${off - partial} unsupported, ${partial} partial)` +
    (r.model.length ? `, ${r.model.length} model-level finding(s)` : "") +
    `, ${parts}`
  );
}

/**
 * The report as lines for a terminal: coverage, partitions, a summary by op, the caveats, each
 * node not supported (the nodes that split partitions marked).
 */
export function formatTargetReport(r: TargetReport): string[] {
  const lines: string[] = [];
  const c = r.coverage;
  lines.push(
    `target ${r.target}: ${c.supported} of ${c.nodes} nodes supported (${pct(c.supported, c.nodes)}%)` +
      (c.macs
        ? `, ${pct(c.macs.supported, c.macs.total)}% of ${c.macs.total.toExponential(2)} multiply-adds`
        : "") +
      uncounted(c),
  );
  lines.push(`partitions: ${formatPartitions(r.partitions)}`);
  for (const m of r.model) lines.push(`model: ${m}`);
  const ops = Object.entries(r.byOp).filter(([, c]) => c.partial || c.unsupported);
  if (ops.length) {
    lines.push("by op (supported / partial / unsupported):");
    for (const [op, c] of ops.sort(
      (a, b) => b[1].unsupported + b[1].partial - (a[1].unsupported + a[1].partial),
    ))
      lines.push(`  ${op}: ${c.supported} / ${c.partial} / ${c.unsupported}`);
  }
  for (const c of r.caveats)
    lines.push(`caveat: ${c.op} (${c.nodes} node${c.nodes === 1 ? "" : "s"}): ${c.caveat}`);
  for (const n of r.nodes)
    if (n.verdict !== "supported")
      lines.push(
        `${n.verdict}: ${n.where}: ${n.reasons.join("; ")}${n.splits ? " [splits a partition]" : ""}`,
      );
  return lines;
}
