// "Will my model run on backend X?", answered per node: each node of the graph, its subgraphs and
// its local functions is supported, partial (a constraint fails, or the source says the op is
// limited: which, and why) or unsupported (the op, its version or an element type), with a
// summary by op and the coverage in nodes and, where shapes are known, in multiply-adds of the
// ops that dominate (Conv, ConvTranspose, MatMul, Gemm).

import { formalAt } from "../check/arity.js";
import { analysisOf } from "../check/infer.js";
import { dtypeName } from "../ir/dtype.js";
import { walkGraphNodes } from "../ir/visit.js";
import type { Function, Graph, Model, Node, Type } from "../ir/types.js";
import { opsetMap } from "../ir/opsets.js";
import { SchemaRegistry } from "../schema/registry.js";
import type { OpVersion } from "../schema/types.js";
import { rowFor, versionSupported, type Constraint, type Profile } from "./profile.js";

export type Verdict = "supported" | "partial" | "unsupported";

export interface NodeVerdict {
  /** "graph > node 'n3' (Conv)", as the checker names places. */
  where: string;
  op: string;
  verdict: Verdict;
  /** Why it is not supported, one reason a constraint or limit. */
  reasons: string[];
  /** Multiply-adds where the shapes are known (Conv, ConvTranspose, MatMul, Gemm). */
  macs?: number;
  /**
   * Where it is: `fn` the function's index in the model (-1: the main graph) and `index` the
   * node of that graph or function that is it or holds it (a node of an If/Loop/Scan body is at
   * the index of the node the body belongs to), for a page to mark.
   */
  at: { fn: number; index: number };
}

export interface TargetReport {
  target: string;
  /** Model-level findings (the opset outside the target's range). */
  model: string[];
  nodes: NodeVerdict[];
  /** Per op: counts by verdict. */
  byOp: Record<string, Record<Verdict, number>>;
  coverage: { nodes: number; supported: number; macs?: { total: number; supported: number } };
}

const isConstantNode = (n: Node) =>
  n.opType === "Constant" && (n.domain ?? "") === "" && n.inputs.length === 0;

/** The names that hold constants in a graph: initializers and Constant nodes' outputs. */
function constantsOf(g: Graph | Function): Set<string> {
  const out = new Set<string>("initializers" in g ? g.initializers.map((t) => t.name) : []);
  for (const n of g.nodes) if (isConstantNode(n)) for (const o of n.outputs) out.add(o);
  return out;
}

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

function shapeOf(t: Type | undefined): (number | string | null)[] | undefined {
  return t && t.kind === "tensor" ? t.shape : undefined;
}

/** Why a constraint fails for a node (undefined: it holds). */
function failing(
  c: Constraint,
  n: Node,
  types: Map<string, Type> | undefined,
  constants: Set<string>,
): string | undefined {
  switch (c.kind) {
    case "constant-input": {
      const x = n.inputs[c.input];
      if (!x) return undefined;
      return constants.has(x) ? undefined : `input '${c.name}' is computed, not constant`;
    }
    case "rank": {
      const s = shapeOf(types?.get(n.inputs[c.input] ?? ""));
      if (!s) return `input ${c.input}'s rank is unknown (needs ${c.min}-${c.max})`;
      return s.length >= c.min && s.length <= c.max
        ? undefined
        : `input ${c.input} has rank ${s.length}, the target takes ${c.min === c.max ? c.min : `${c.min} to ${c.max}`}`;
    }
    case "attribute": {
      const v = attrValue(n, c.name);
      if (v === undefined) return undefined;
      return c.in.includes(v)
        ? undefined
        : `attribute '${c.name}' = ${v}, the target takes ${c.in.join(" or ")}`;
    }
    case "static-dims": {
      for (const x of n.inputs) {
        const s = shapeOf(types?.get(x));
        if (x && (!s || s.some((d) => typeof d !== "number")))
          return `input '${x}' has dims not known before running (the target needs them static)`;
      }
      return undefined;
    }
  }
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
    byOp: {},
    coverage: { nodes: 0, supported: 0 },
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
      const scopeTypes = types?.get(owner) ?? types?.get(model.graph);
      const localConstants = owner === g ? constants : constantsOf(owner);
      const domain = n.domain === "ai.onnx" ? "" : (n.domain ?? "");
      const op = domain ? `${domain}.${n.opType}` : n.opType;
      const reasons: string[] = [];
      let verdict: Verdict = "supported";
      // A Constant node is data: a runtime takes it as an initializer whatever its backend runs.
      const row = isConstantNode(n)
        ? { domain: "", versions: [{ from: 1 }], constraints: [] }
        : rowFor(profile, domain, n.opType);
      const version = opsets.has(domain)
        ? registry.tryResolve(domain, n.opType, opsets.get(domain)!)
        : undefined;
      if (!row) {
        verdict = "unsupported";
        reasons.push(
          version?.function
            ? `${op}-${version.since} is a function op, not in ${profile.name}: expand it (onnx-expand expand)`
            : `${op} is not in ${profile.name}`,
        );
      } else if (version && !versionSupported(row, version.since)) {
        verdict = "unsupported";
        reasons.push(
          `${op}-${version.since} is not supported (${profile.name} has ${row.versions
            .map((r) =>
              r.to === undefined
                ? `${r.from}+`
                : r.from === r.to
                  ? `${r.from}`
                  : `${r.from}-${r.to}`,
            )
            .join(", ")})`,
        );
      } else {
        if (row.types) {
          for (const [x, fixed] of [
            ...n.inputs.map((x, i) => [x, fixedType(version, false, i)] as const),
            ...n.outputs.map((x, i) => [x, fixedType(version, true, i)] as const),
          ]) {
            // A type the op's signature fixes (Reshape's shape is int64) comes with the op.
            if (fixed) continue;
            const t = scopeTypes?.get(x);
            if (!x || !t || t.kind !== "tensor" || !t.elemType) continue;
            const name = dtypeName(t.elemType);
            if (!row.types.includes(name)) {
              verdict = "unsupported";
              reasons.push(`element type ${name} ('${x}') is not supported`);
              break;
            }
          }
        }
        if (verdict === "supported") {
          for (const c of row.constraints) {
            const why = failing(c, n, scopeTypes, localConstants);
            if (why) reasons.push(why);
          }
          if (row.partial) reasons.push(`limited: ${row.partial}`);
          if (reasons.length) verdict = "partial";
        }
      }
      const where = `${label} > ${n.name ? `node '${n.name}'` : "node"} (${op})`;
      const macs = owner === model.graph ? macsOf(n, scopeTypes) : undefined;
      if (macs !== undefined) {
        macsKnown = true;
        macsTotal += macs;
        if (verdict === "supported") macsSupported += macs;
      }
      report.nodes.push({
        where,
        op,
        verdict,
        reasons,
        ...(macs !== undefined ? { macs } : {}),
        at: { fn, index: top },
      });
      const counts = (report.byOp[op] ??= { supported: 0, partial: 0, unsupported: 0 });
      counts[verdict]++;
      report.coverage.nodes++;
      if (verdict === "supported") report.coverage.supported++;
    }
  }
  if (macsKnown) report.coverage.macs = { total: macsTotal, supported: macsSupported };
  return report;
}

/** Whether everything is supported (the model's opset too). */
export function fullySupported(r: TargetReport): boolean {
  return r.model.length === 0 && r.nodes.every((n) => n.verdict === "supported");
}

/** The report as lines for a terminal: a summary by op, then each node not supported. */
export function formatTargetReport(r: TargetReport): string[] {
  const lines: string[] = [];
  const pct = (a: number, b: number) => (b === 0 ? "100" : ((100 * a) / b).toFixed(1));
  lines.push(
    `target ${r.target}: ${r.coverage.supported} of ${r.coverage.nodes} nodes supported (${pct(r.coverage.supported, r.coverage.nodes)}%)` +
      (r.coverage.macs
        ? `, ${pct(r.coverage.macs.supported, r.coverage.macs.total)}% of ${r.coverage.macs.total.toExponential(2)} multiply-adds`
        : ""),
  );
  for (const m of r.model) lines.push(`model: ${m}`);
  const ops = Object.entries(r.byOp).filter(([, c]) => c.partial || c.unsupported);
  if (ops.length) {
    lines.push("by op (supported / partial / unsupported):");
    for (const [op, c] of ops.sort(
      (a, b) => b[1].unsupported + b[1].partial - (a[1].unsupported + a[1].partial),
    ))
      lines.push(`  ${op}: ${c.supported} / ${c.partial} / ${c.unsupported}`);
  }
  for (const n of r.nodes)
    if (n.verdict !== "supported") lines.push(`${n.verdict}: ${n.where}: ${n.reasons.join("; ")}`);
  return lines;
}
