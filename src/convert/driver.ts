// The converter's driver. Each graph (the main graph, every If/Loop/Scan body at any depth) and
// each model-local function is stepped one opset at a time (k -> k+1 up, k -> k-1 down) from its
// ai.onnx opset to the target; at each step every node whose op version changes is free, adapted
// by its row, or blocked. Nodes an adapter creates are valid at the new opset and take the
// following steps too. Blocked nodes stay as they are (so that every one is found) and the
// conversion gives no model.
//
// Linear in the model: one pass per opset step over the node list, copy-on-write (a node list
// is copied only when a step changes it, untouched nodes and subgraphs are shared), producers
// and use counts kept in maps, types inferred once, only when something asks.

import { inferScopeTypes } from "../check/infer.js";
import { OnnxError } from "../errors.js";
import { functionKey, functionWhere } from "../ir/functions.js";
import { outerNamesUsedBy, NameScope } from "../ir/graph.js";
import { isOnnxDomain as isOnnx, onnxOpset, withOnnxOpset } from "../ir/opsets.js";
import { attributeGraphs, hasGraphAttribute } from "../ir/visit.js";
import type { Tensor } from "../ir/tensor.js";
import type { Function, Graph, Model, Node, Type } from "../ir/types.js";
import { GraphScope, visitSubgraphs } from "../ir/visit.js";
import { SchemaRegistry } from "../schema/registry.js";
import type { OpVersion } from "../schema/types.js";
import {
  StepFailure,
  type AdapterContext,
  type AdapterRow,
  type Direction,
  type NextStep,
} from "./adapter.js";
import { inputDataHint, nextStepHint, NO_NEXT_STEP, readsInputData } from "./next-step.js";
import { convertedIrVersion } from "./ir-version.js";
import { targetOpset } from "./target.js";
import { elemTypes } from "./elem-types.js";
import {
  adapterRow,
  behaviourBreak,
  blockedStep,
  nodeStepReasons,
  stepDiff,
  type ConversionPlan,
  type StepRecord,
  withNodeId,
} from "./plan.js";
import { constantOfNode } from "./values.js";
import { describeAdaptation } from "./describe.js";
import type { Lowering } from "./lowering.js";
import { ORIGIN_KEY, originOf } from "../inline/origin.js";

export interface ConvertOptions {
  registry?: SchemaRegistry;
  /** Called as nodes are visited (done of an estimated total). */
  progress?: (done: number, total: number) => void;
  /**
   * Function ops the target opset lacks replaced by their bodies first, by this lowering
   * (lowering.ts; the expander's lowerMissing, which the app layer passes); without one they
   * are refused.
   */
  lower?: Lowering;
  /** The bound of that expansion (src/expand/bounds.ts: --max-nodes, --max-memory). */
  maxNodes?: number;
  maxMemory?: number;
  /** Record where each node lowering puts in came from (default true; src/inline/origin.ts). */
  origin?: boolean;
}

export interface ConversionResult {
  plan: ConversionPlan;
  /** The converted model; undefined when a step is blocked (plan.blocked says which). */
  model?: Model;
}

/** Types inferred for the input model, once, on the first request. */
class TypeSource {
  private types: Map<Graph | Function, Map<string, Type>> | undefined;
  constructor(
    private readonly model: Model,
    private readonly registry: SchemaRegistry,
  ) {}
  of(owner: Graph | Function, name: string): Type | undefined {
    if (!this.types) {
      try {
        this.types = inferScopeTypes(this.model, { registry: this.registry });
      } catch {
        this.types = new Map();
      }
    }
    return this.types.get(owner)?.get(name);
  }
}

/** Per graph or function being converted: its nodes now, and lookups built when first needed. */
class OwnerState {
  nodes: Node[];
  private producers: Map<string, Node> | undefined;
  private uses: Map<string, number> | undefined;
  private inits: Map<string, Tensor> | undefined;
  removedInitializers: Set<string> | undefined;
  /**
   * Whether a node may carry a subgraph (an original one, or one an adapter made); found by the
   * first step (its nodes are in hand then), undefined until then.
   */
  subgraphs: boolean | undefined;
  /**
   * The ai.onnx ops of the nodes (a superset: ops of removed nodes stay), collected by the
   * first step when more follow; undefined until then.
   */
  ops: Set<string> | undefined;

  private elems: Map<string, number> | undefined;

  constructor(
    readonly original: Graph | Function,
    /** Where the graph is, and the graphs around it (for labels). */
    readonly scope: GraphScope,
    readonly parent: OwnerState | undefined,
    readonly names: () => NameScope,
    /** The ai.onnx opset the graph was at in the input model. */
    readonly opset: number,
  ) {
    this.nodes = original.nodes;
    this.subgraphs = undefined;
    this.ops = undefined;
  }

  /** Element types of the input model's values (cheap pass, built on first request). */
  elemType(name: string, registry: SchemaRegistry): number | undefined {
    this.elems ??= elemTypes(this.original, registry, this.opset, (n) =>
      this.parent?.elemType(n, registry),
    );
    return this.elems.get(name) ?? this.parent?.elemType(name, registry);
  }

  private get graph(): Graph | undefined {
    return "initializers" in this.original ? this.original : undefined;
  }

  producer(name: string): Node | undefined {
    if (!this.producers) {
      this.producers = new Map();
      for (const n of this.nodes) for (const o of n.outputs) if (o) this.producers.set(o, n);
    }
    return this.producers.get(name);
  }

  private initializer(name: string): Tensor | undefined {
    const g = this.graph;
    if (!g) return undefined;
    if (!this.inits) {
      this.inits = new Map();
      const inputs = new Set(g.inputs.map((v) => v.name));
      // An initializer that is also a graph input is a default the caller may replace.
      for (const t of g.initializers) if (!inputs.has(t.name)) this.inits.set(t.name, t);
    }
    return this.removedInitializers?.has(name) ? undefined : this.inits.get(name);
  }

  /** Whether the name is defined in this scope (so not looked up in the enclosing one). */
  private defines(name: string): boolean {
    if (this.producer(name)) return true;
    const g = this.graph;
    if (g) return g.inputs.some((v) => v.name === name) || this.initializer(name) !== undefined;
    return (this.original as Function).inputs.includes(name);
  }

  constant(name: string): Tensor | undefined {
    const p = this.producer(name);
    if (p) return p.opType === "Constant" && isOnnx(p.domain) ? constantOfNode(p) : undefined;
    const t = this.initializer(name);
    if (t) return t;
    if (this.defines(name)) return undefined;
    return this.parent?.constant(name);
  }

  private useCounts(): Map<string, number> {
    if (!this.uses) {
      const u = new Map<string, number>();
      for (const n of this.nodes) countUses(u, n, 1);
      const outs = this.graph
        ? this.graph.outputs.map((v) => v.name)
        : (this.original as Function).outputs;
      for (const o of outs) u.set(o, (u.get(o) ?? 0) + 1);
      this.uses = u;
    }
    return this.uses;
  }

  /** Records that `old` was replaced by `repl` (call after `nodes` holds the step's result or before it is built). */
  replaced(old: Node, repl: Node[]): void {
    // Use counts are built on first need (from the node list as it is then), then kept.
    const u = this.uses;
    if (u) {
      countUses(u, old, -1);
      for (const n of repl) countUses(u, n, 1);
    }
    if (this.producers) {
      for (const o of old.outputs) if (o) this.producers.delete(o);
      for (const n of repl) for (const o of n.outputs) if (o) this.producers.set(o, n);
    }
  }

  unused(name: string): boolean {
    return (this.useCounts().get(name) ?? 0) <= 0;
  }

  /**
   * After a step: removes Constant nodes and initializers among `candidates` that nothing reads
   * any more. Returns whether the node list changed.
   */
  removeDead(candidates: Set<string>): void {
    const deadNodes = new Set<Node>();
    for (const name of candidates) {
      if (!this.unused(name)) continue;
      const p = this.producer(name);
      if (p) {
        if (p.opType === "Constant" && isOnnx(p.domain) && p.outputs.every((o) => this.unused(o))) {
          deadNodes.add(p);
          this.replaced(p, []);
        }
      } else if (this.initializer(name)) {
        (this.removedInitializers ??= new Set()).add(name);
      }
    }
    if (deadNodes.size) this.nodes = this.nodes.filter((n) => !deadNodes.has(n));
  }
}

function countUses(u: Map<string, number>, n: Node, by: number): void {
  for (const i of n.inputs) if (i) u.set(i, (u.get(i) ?? 0) + by);
  if (hasGraphAttribute(n))
    for (const name of outerNamesUsedBy(n)) u.set(name, (u.get(name) ?? 0) + by);
}

/**
 * The record of an adapted node, its fields copied from the node and the step (shared by the
 * nodes that take it) and `where` built when read: a 100,000-node chain has as many records.
 */
class LazyRecord implements StepRecord {
  private label: string | undefined;
  private text: string | undefined;
  readonly op: string;
  readonly domain: string;
  readonly from: number;
  readonly to: number;
  readonly opsetFrom: number;
  readonly opsetTo: number;
  constructor(
    private readonly owner: GraphScope,
    private readonly node: Node,
    private readonly index: number,
    step: AdaptedStep,
    /** What the row gave (undefined: the node kept apart from its version). */
    private readonly repl: Node[] | undefined,
  ) {
    this.op = node.opType;
    this.domain = node.domain;
    ({ from: this.from, to: this.to, opsetFrom: this.opsetFrom, opsetTo: this.opsetTo } = step);
  }
  /** What happened at this node (describe.ts), built when read. */
  get message(): string {
    return (this.text ??= describeAdaptation(this.node, this.repl));
  }
  get where(): string {
    return (this.label ??= this.owner.nodeWhere(this.node, this.index));
  }
  toJSON(): StepRecord {
    const { where, op, domain, from, to, opsetFrom, opsetTo, message } = this;
    return { where, op, domain, from, to, opsetFrom, opsetTo, message };
  }
}

/** What one opset step means for an op, whatever the node: computed once per op and step. */
interface StepInfo {
  /** The op's version before and after (after undefined: the op does not exist there). */
  a: OpVersion | undefined;
  b: OpVersion | undefined;
  /** The version does not change at this step. */
  same: boolean;
  row: AdapterRow | undefined;
  behaviour: string | undefined;
  /** Free for every node: no row, no change of meaning, a diff that breaks nothing. */
  free: boolean;
  /** What the records of the nodes the row adapts at this step share (made on first use). */
  adapted?: AdaptedStep;
}

/** The part of a StepRecord of an adapted node that depends only on the op and the step. */
interface AdaptedStep {
  from: number;
  to: number;
  opsetFrom: number;
  opsetTo: number;
  message: string;
}

/** Per op: the version in force at each opset, and the step infos, built once per op. */
class VersionTable {
  private readonly byOp = new Map<
    string,
    { at: (OpVersion | undefined)[]; steps: StepInfo[] } | null
  >();
  constructor(
    private readonly registry: SchemaRegistry,
    private readonly maxOpset: number,
  ) {}

  /** The step k -> next (adjacent opsets) for op; null when the op is unknown. */
  step(op: string, k: number, next: number): StepInfo | null {
    let t = this.byOp.get(op);
    if (t === undefined) {
      const versions = this.registry.versions("", op);
      if (versions.length === 0) t = null;
      else {
        const at = new Array<OpVersion | undefined>(this.maxOpset + 2).fill(undefined);
        let vi = -1;
        for (let j = 1; j < at.length; j++) {
          while (vi + 1 < versions.length && versions[vi + 1]!.since <= j) vi++;
          at[j] = vi >= 0 ? versions[vi] : undefined;
        }
        t = { at, steps: [] };
      }
      this.byOp.set(op, t);
    }
    if (t === null) return null;
    // Up steps at 2k, down steps at 2k+1.
    const slot = 2 * k + (next < k ? 1 : 0);
    let info = t.steps[slot];
    if (!info) {
      const a = t.at[k];
      const b = t.at[next];
      if (a === b || !a || !b) {
        info = { a, b, same: a === b, row: undefined, behaviour: undefined, free: false };
        if (a && !b) info.row = adapterRow("", op, a.since, 0);
      } else {
        const row = adapterRow("", op, a.since, b.since);
        const behaviour = behaviourBreak("", op, a.since, b.since)?.reason;
        const free = !row && !behaviour && !stepDiff(a, b).verdict.breaking;
        info = { a, b, same: false, row, behaviour, free };
      }
      t.steps[slot] = info;
    }
    return info;
  }
}

/** One node at one opset step (k -> next) of the graph or function `state` converts. */
interface Site {
  state: OwnerState;
  node: Node;
  /** The node's place in the node list as the step found it. */
  index: number;
  k: number;
  next: number;
}

/** What one node does at one opset step, as a value (Converter.decide). */
type StepOutcome =
  | { kind: "free" }
  /** Replaced by `nodes` (undefined: only its version changes), a record sharing `step`. */
  | { kind: "adapted"; nodes: Node[] | undefined; step: AdaptedStep }
  /**
   * Left as it is, with the op's versions before and after (0: none), the reason, and what to do
   * about it (kept apart: a caller that knows better replaces the hint, not the reason).
   */
  | { kind: "blocked"; from: number; to: number; reason: string; hint?: string; next?: NextStep };

const FREE: StepOutcome = { kind: "free" };
const blocked = (
  from: number,
  to: number,
  reason: string,
  hint?: string,
  next?: NextStep,
): StepOutcome => ({
  kind: "blocked",
  from,
  to,
  reason,
  ...(hint ? { hint } : {}),
  ...(next ? { next } : {}),
});

export class Converter {
  readonly plan: ConversionPlan;
  /** Each blocked record's reason (its message without the hint). */
  private readonly reasons = new WeakMap<StepRecord, string>();
  private readonly registry: SchemaRegistry;
  private readonly versions: VersionTable;
  private readonly types: TypeSource;
  private readonly blockedNodes = new Set<Node>();
  /** Subgraphs an adapter made, with the opset they were made at (see convertGraph). */
  private readonly createdAt = new WeakMap<Graph, number>();
  private visited = 0;
  private readonly total: number;
  /** Values adapters share across the conversion (AdapterContext.shared), by key. */
  private readonly sharedValues = new Map<string, unknown>();

  constructor(
    private readonly model: Model,
    readonly target: number,
    private readonly opts: ConvertOptions = {},
  ) {
    this.registry = opts.registry ?? SchemaRegistry.default();
    const max = this.registry.maxOpset("");
    targetOpset(target, max);
    // The source opsets too: the driver steps one opset at a time from each.
    const known = (where: string, v: number | undefined) => {
      if (v !== undefined && (!Number.isInteger(v) || v < 1 || v > max))
        throw new OnnxError(
          "E_MODEL",
          `${where} imports ai.onnx opset ${v}, which is not one this tool knows (1 to ${max})`,
        );
    };
    known("the model", onnxOpset(model.opsetImports));
    for (const f of model.functions) known(functionWhere(f), onnxOpset(f.opsetImports));
    this.versions = new VersionTable(this.registry, max);
    this.types = new TypeSource(model, this.registry);
    const from = onnxOpset(model.opsetImports);
    this.plan = {
      from,
      to: target,
      irVersion: { from: model.irVersion, to: model.irVersion },
      nodes: 0,
      freeSteps: 0,
      adapted: [],
      blocked: [],
      warnings: [],
    };
    this.total = Math.max(
      1,
      model.graph.nodes.length * Math.max(1, Math.abs(target - (from ?? target))),
    );
  }

  run(): ConversionResult {
    const m = this.model;
    const from = this.plan.from;
    const rootNames = lazyNames(m.graph);
    const graph =
      from === undefined
        ? m.graph
        : this.convertGraph(m.graph, GraphScope.main(m), from, undefined, rootNames);
    const functions = m.functions.map((f) => {
      const v = onnxOpset(f.opsetImports);
      if (v === undefined) return f;
      const state = new OwnerState(f, GraphScope.function(f), undefined, lazyNames(f), v);
      const nodes = this.convertNodes(state, v);
      const opsetImports = withOnnxOpset(f.opsetImports, this.target);
      return nodes === f.nodes && v === this.target ? f : { ...f, nodes, opsetImports };
    });
    this.plan.nodes = this.visited;
    if (this.plan.blocked.length > 0) return { plan: this.plan };
    let out: Model = {
      ...m,
      graph,
      functions: functions.some((f, i) => f !== m.functions[i]) ? functions : m.functions,
      opsetImports:
        from === undefined ? m.opsetImports : withOnnxOpset(m.opsetImports, this.target),
    };
    if (from !== undefined) {
      const up = this.target >= from;
      out = { ...out, irVersion: convertedIrVersion(out, this.target, up) };
    }
    this.plan.irVersion.to = out.irVersion;
    return { plan: this.plan, model: out };
  }

  /**
   * Converts a graph (and, after its own nodes, the subgraphs of its nodes). `origin` is the
   * opset of the graphs of the input model in this tree; a graph an adapter made is at the
   * opset of its step (createdAt). A walk of its own rather than the shared visitor's
   * (ir/visit.ts): it steps a whole node list one opset at a time, each step seeing the nodes
   * the step before made, where the visitor rewrites each node once.
   */
  private convertGraph(
    g: Graph,
    scope: GraphScope,
    from: number,
    parent: OwnerState | undefined,
    names: () => NameScope,
    origin = from,
  ): Graph {
    const state = new OwnerState(g, scope, parent, names, from);
    const nodes = this.convertNodes(state, from, origin);
    const removed = state.removedInitializers;
    if (nodes === g.nodes && !removed) return g;
    return {
      ...g,
      nodes,
      initializers: removed ? g.initializers.filter((t) => !removed.has(t.name)) : g.initializers,
    };
  }

  private convertNodes(state: OwnerState, from: number, origin = from): Node[] {
    const target = this.target;
    const dir = target >= from ? 1 : -1;
    for (let k = from; k !== target; k += dir) {
      const next = k + dir;
      // A step that changes the version of no op of the graph leaves every node as it is.
      if (state.ops && this.blockedNodes.size === 0 && this.noOpChanges(state.ops, k, next)) {
        this.skipStep(state.nodes.length);
        continue;
      }
      if (!state.ops && next !== target) state.ops = new Set();
      this.step(state, k, next);
    }
    if (from === target) this.visited += state.nodes.length;
    // Subgraphs of the nodes as they are now.
    const nodes = state.nodes;
    state.subgraphs ??= nodes.some(hasGraphAttribute);
    if (!state.subgraphs) return nodes;
    let out: Node[] | undefined;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      if (!hasGraphAttribute(n)) continue;
      const m = visitSubgraphs(n, i, state.scope, (g, scope) =>
        this.convertGraph(g, scope, this.createdAt.get(g) ?? origin, state, state.names, origin),
      );
      if (m !== n) (out ??= [...nodes])[i] = m;
    }
    return out ?? nodes;
  }

  /** Whether no op of `ops` changes version across k -> next (nor is unknown). */
  private noOpChanges(ops: Set<string>, k: number, next: number): boolean {
    for (const op of ops) {
      const info = this.versions.step(op, k, next);
      if (info === null || !info.same) return false;
    }
    return true;
  }

  /** Counts the nodes of a step that keeps them all, as `step` would (progress included). */
  private skipStep(n: number): void {
    const before = this.visited;
    this.visited += n;
    const progress = this.opts.progress;
    if (progress)
      for (let v = (before | 0x3fff) + 1; v <= this.visited; v += 0x4000) progress(v, this.total);
  }

  /** One opset step over one graph's node list (collecting its ops into state.ops if set). */
  private step(state: OwnerState, k: number, next: number): void {
    const nodes = state.nodes;
    let out: Node[] | undefined;
    let dead: Set<string> | undefined;
    const blocked = this.blockedNodes;
    const versions = this.versions;
    // The step of the previous node's op: long runs of one op look it up once.
    let lastOp: string | undefined;
    let lastInfo: StepInfo | null = null;
    const ops = state.ops;
    const scan = state.subgraphs === undefined;
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      if (scan && hasGraphAttribute(node)) state.subgraphs = true;
      if ((++this.visited & 0x3fff) === 0) this.opts.progress?.(this.visited, this.total);
      // The common cases first, without allocating: another domain, no change, a free step.
      let info: StepInfo | null | undefined;
      if (isOnnx(node.domain) && (blocked.size === 0 || !blocked.has(node))) {
        const op = node.opType;
        if (op !== lastOp) {
          lastInfo = versions.step(op, k, next);
          lastOp = op;
          ops?.add(op);
        }
        info = lastInfo;
      }
      let repl: Node[] | undefined;
      // The common cases, decided here: kept (another domain, no change) and free for every node.
      if (info === undefined || (info !== null && info.same)) {
        // kept
      } else if (info !== null && info.free) {
        this.plan.freeSteps++;
      } else {
        const site: Site = { state, node, index: i, k, next };
        const outcome = this.decide(site, info);
        if (outcome.kind === "free") this.plan.freeSteps++;
        else if (outcome.kind === "blocked") this.block(site, outcome);
        else if (outcome.kind === "adapted") {
          this.plan.adapted.push(new LazyRecord(state.scope, node, i, outcome.step, outcome.nodes));
          repl = outcome.nodes;
        }
      }
      if (!repl) {
        if (out) out.push(node);
        continue;
      }
      out ??= nodes.slice(0, i);
      if (node.metadataProps) repl = keepOrigin(node, repl);
      for (const n of repl) {
        out.push(n);
        if (ops && isOnnx(n.domain)) ops.add(n.opType);
      }
      this.noteNewGraphs(state, node, repl, next);
      state.replaced(node, repl);
      // Inputs the node read that its replacement does not: candidates for removal.
      dead = droppedInputs(node, repl, dead);
    }
    if (scan) state.subgraphs ??= false;
    if (out) state.nodes = out;
    if (dead) state.removeDead(dead);
  }

  /** Graphs the replacement nodes carry that the replaced node did not: made at opset `at`. */
  private noteNewGraphs(state: OwnerState, node: Node, repl: Node[], at: number): void {
    // The common case (no replacement node carries a graph) allocates nothing.
    let any = false;
    for (const n of repl) if (hasGraphAttribute(n)) any = true;
    if (!any) return;
    state.subgraphs = true;
    const old = new Set(node.attributes.flatMap((a) => attributeGraphs(a)));
    for (const n of repl)
      for (const a of n.attributes)
        for (const g of attributeGraphs(a)) if (!old.has(g)) this.createdAt.set(g, at);
  }

  private block(site: Site, b: Extract<StepOutcome, { kind: "blocked" }>): void {
    const { state, node, index } = site;
    this.blockedNodes.add(node);
    const record: StepRecord = {
      where: state.scope.nodeWhere(node, index),
      op: node.opType,
      domain: node.domain,
      from: b.from,
      to: b.to,
      opsetFrom: site.k,
      opsetTo: site.next,
      message: b.hint ? `${b.reason}; ${b.hint}` : b.reason,
    };
    if (b.next) record.next = b.next;
    const root = state.scope.root.owner;
    if (!("initializers" in root))
      record.function = functionKey(root.domain, root.name, root.overload);
    this.plan.blocked.push(withNodeId(record, state.scope.nodeId(node, index)));
    this.reasons.set(record, b.reason);
  }

  /** Why a record of this conversion's plan is blocked, without the hint its message ends in. */
  reasonOf(record: StepRecord): string {
    return this.reasons.get(record) ?? record.message;
  }

  /**
   * What a node does at an opset step that is neither kept nor free for every node of its op:
   * free for this node, adapted by its row, or blocked (with the reason).
   */
  private decide(site: Site, info: StepInfo | null): StepOutcome {
    const op = site.node.opType;
    if (info === null) return blocked(0, 0, `unknown operator '${op}'`, NO_NEXT_STEP);
    const a = info.a;
    const b = info.b;
    if (!a) return blocked(0, b!.since, `${op} does not exist at opset ${site.k}`);
    if (!b) {
      const listed = blockedStep("", op, a.since, 0)?.reason;
      if (listed) return blocked(a.since, 0, listed);
      const hint = a.function
        ? "it is a function op: expand it first (`onnx-expand expand`), then convert"
        : NO_NEXT_STEP;
      return blocked(a.since, 0, `${op} does not exist before opset ${a.since}`, hint);
    }
    const ctx = new DriverContext(site, a, b, this);
    const row = info.row;
    if (row) {
      const r = row.apply(ctx);
      if ("blocked" in r) {
        const data = r.next?.input !== undefined ? this.inputData(site, r.next.input) : undefined;
        const hint = r.next && (data ? inputDataHint(data) : nextStepHint(this.model, this.target));
        return blocked(a.since, b.since, r.blocked, hint, data ? undefined : r.next);
      }
      const step = (info.adapted ??= {
        from: a.since,
        to: b.since,
        opsetFrom: site.k,
        opsetTo: site.next,
        message: row.summary,
      });
      return { kind: "adapted", nodes: r.nodes, step };
    }
    if (info.behaviour)
      return blocked(
        a.since,
        b.since,
        `no adapter for ${op} ${a.since} -> ${b.since}: ${info.behaviour}`,
        NO_NEXT_STEP,
      );
    // What the schema diff says changed, as far as this node uses it.
    const reasons = nodeStepReasons(ctx, stepDiff(a, b));
    if (reasons.length === 0) return FREE;
    const listed = blockedStep("", op, a.since, b.since)?.reason;
    return blocked(
      a.since,
      b.since,
      listed ? `${listed} (${reasons.join("; ")})` : reasons.join("; "),
    );
  }

  /** The main graph's input whose values input `i` of the site's node is computed from, if any. */
  private inputData({ node, state }: Site, i: number): string | undefined {
    const name = node.inputs[i];
    const g = state.original;
    if (!name || state.parent || !("initializers" in g)) return undefined;
    return readsInputData(name, g, (n) => state.producer(n));
  }

  shared<T>(key: string, make: () => T): T {
    let v = this.sharedValues.get(key) as T | undefined;
    if (v === undefined) this.sharedValues.set(key, (v = make()));
    return v;
  }

  /** The element type of a tensor value: the cheap pass first, full inference when it cannot tell. */
  elemTypeOf(state: OwnerState, name: string): number | undefined {
    const e = state.elemType(name, this.registry);
    if (e !== undefined) return e;
    const t = this.typeOf(state, name);
    return t?.kind === "tensor" && t.elemType ? t.elemType : undefined;
  }

  /** The type of a value seen from a graph (outer scopes included), from the input's inference. */
  typeOf(state: OwnerState, name: string): Type | undefined {
    for (let s: OwnerState | undefined = state; s; s = s.parent) {
      const t = this.types.of(s.original, name);
      if (t) return t;
    }
    return undefined;
  }
}

/**
 * The driver's context: the adapter's view plus what its methods need. One small object per
 * adapted node, its methods on the prototype.
 */
class DriverContext implements AdapterContext {
  readonly node: Node;
  readonly direction: Direction;
  readonly opset: number;
  readonly opsetFrom: number;
  constructor(
    readonly site: Site,
    readonly from: OpVersion,
    readonly to: OpVersion,
    readonly converter: Converter,
  ) {
    this.node = site.node;
    this.opsetFrom = site.k;
    this.opset = site.next;
    this.direction = site.next > site.k ? "up" : "down";
  }
  private get state(): OwnerState {
    return this.site.state;
  }
  get target(): number {
    return this.converter.target;
  }
  /** Built only when asked: most adapted nodes never need their label. */
  get where(): string {
    return this.state.scope.nodeWhere(this.node, this.site.index);
  }
  /** A value's type (inference, outer scopes included) and element type, by name. */
  private typeAt(name: string | undefined): Type | undefined {
    return name ? this.converter.typeOf(this.state, name) : undefined;
  }
  private elemTypeAt(name: string | undefined): number | undefined {
    return name ? this.converter.elemTypeOf(this.state, name) : undefined;
  }
  inputType(i: number): Type | undefined {
    return this.typeAt(this.node.inputs[i]);
  }
  outputType(i: number): Type | undefined {
    return this.typeAt(this.node.outputs[i]);
  }
  inputElemType(i: number): number | undefined {
    return this.elemTypeAt(this.node.inputs[i]);
  }
  outputElemType(i: number): number | undefined {
    return this.elemTypeAt(this.node.outputs[i]);
  }
  constantInput(i: number): Tensor | undefined {
    const name = this.node.inputs[i];
    return name ? this.state.constant(name) : undefined;
  }
  fresh(base: string): string {
    return this.state.names().fresh(base);
  }
  shared<T>(key: string, make: () => T): T {
    return this.converter.shared(key, make);
  }
  withNode(node: Node): AdapterContext {
    return new DriverContext({ ...this.site, node }, this.from, this.to, this.converter);
  }
  warn(message: string): void {
    this.converter.plan.warnings.push({
      where: this.where,
      op: this.node.opType,
      domain: this.node.domain,
      from: this.from.since,
      to: this.to.since,
      opsetFrom: this.opsetFrom,
      opsetTo: this.opset,
      message,
    });
  }
  fail(reason: string, next?: NextStep): never {
    throw new StepFailure(reason, next);
  }
}

/**
 * Adds to `dead` the inputs `node` read that none of `repl` reads. A small replacement (the
 * common one: a node and a Constant) is scanned for each input, allocating nothing; a large one
 * (a node of n inputs may become ~2n nodes, as variadic Max/Min/Sum do going below 8) goes
 * through one set of what it reads, as a scan per input would be quadratic.
 */
function droppedInputs(
  node: Node,
  repl: Node[],
  dead: Set<string> | undefined,
): Set<string> | undefined {
  const inputs = node.inputs;
  let reads = 0;
  for (const n of repl) reads += n.inputs.length;
  if (reads * inputs.length <= 64) {
    for (const x of inputs) {
      if (!x) continue;
      let kept = false;
      for (let j = 0; j < repl.length && !kept; j++) kept = repl[j]!.inputs.includes(x);
      if (!kept) (dead ??= new Set()).add(x);
    }
    return dead;
  }
  const read = new Set<string>();
  for (const n of repl) for (const x of n.inputs) read.add(x);
  for (const x of inputs) if (x && !read.has(x)) (dead ??= new Set()).add(x);
  return dead;
}

/** The nodes replacing `node`, each given its origin where they have none of their own. */
function keepOrigin(node: Node, repl: Node[]): Node[] {
  const origin = originOf(node);
  if (origin === undefined) return repl;
  return repl.map((n) =>
    n === node || originOf(n) !== undefined
      ? n
      : { ...n, metadataProps: [...(n.metadataProps ?? []), [ORIGIN_KEY, origin]] },
  );
}

function lazyNames(owner: Graph | Function): () => NameScope {
  let scope: NameScope | undefined;
  return () => (scope ??= new NameScope(owner));
}
