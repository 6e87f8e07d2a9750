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
import { OnnxError, nodeLabel } from "../errors.js";
import { outerNamesUsedBy, NameScope } from "../ir/graph.js";
import type { Tensor } from "../ir/tensor.js";
import { attributeGraphs } from "../ir/traverse.js";
import type { Attribute, Function, Graph, Model, Node, OpsetId, Type } from "../ir/types.js";
import { SchemaRegistry } from "../schema/registry.js";
import type { OpVersion } from "../schema/types.js";
import type { AdapterContext, Direction } from "./adapter.js";
import { convertedIrVersion } from "./ir-version.js";
import {
  adapterRow,
  behaviourBreak,
  blockedStep,
  nodeStepReasons,
  stepDiff,
  type ConversionPlan,
  type StepRecord,
} from "./plan.js";
import { constantOfNode } from "./values.js";

export interface ConvertOptions {
  registry?: SchemaRegistry;
  /** Called as nodes are visited (done of an estimated total). */
  progress?: (done: number, total: number) => void;
}

export interface ConversionResult {
  plan: ConversionPlan;
  /** The converted model; undefined when a step is blocked (plan.blocked says which). */
  model?: Model;
}

const isOnnx = (domain: string) => domain === "" || domain === "ai.onnx";

class Blocked extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
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

  constructor(
    readonly original: Graph | Function,
    readonly where: string,
    readonly parent: OwnerState | undefined,
    readonly names: () => NameScope,
  ) {
    this.nodes = original.nodes;
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

  /** Records that `old` was replaced by `repl`; returns names `old` read that may now be unused. */
  replaced(old: Node, repl: Node[]): void {
    const u = this.useCounts();
    countUses(u, old, -1);
    for (const n of repl) countUses(u, n, 1);
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
  if (n.attributes.some((a) => a.type === "GRAPH" || a.type === "GRAPHS"))
    for (const name of outerNamesUsedBy(n)) u.set(name, (u.get(name) ?? 0) + by);
}

/** Every version of an op indexed by opset (the version in force there), built once per op. */
class VersionTable {
  private readonly byOp = new Map<string, (OpVersion | undefined)[] | null>();
  constructor(
    private readonly registry: SchemaRegistry,
    private readonly maxOpset: number,
  ) {}
  get(op: string): (OpVersion | undefined)[] | null {
    let t = this.byOp.get(op);
    if (t === undefined) {
      const versions = this.registry.versions("", op);
      if (versions.length === 0) t = null;
      else {
        t = new Array<OpVersion | undefined>(this.maxOpset + 2).fill(undefined);
        let vi = -1;
        for (let k = 1; k < t.length; k++) {
          while (vi + 1 < versions.length && versions[vi + 1]!.since <= k) vi++;
          t[k] = vi >= 0 ? versions[vi] : undefined;
        }
      }
      this.byOp.set(op, t);
    }
    return t;
  }
}

export class Converter {
  readonly plan: ConversionPlan;
  private readonly registry: SchemaRegistry;
  private readonly versions: VersionTable;
  private readonly types: TypeSource;
  private readonly blockedNodes = new Set<Node>();
  /** Subgraphs an adapter made, with the opset they were made at (see convertGraph). */
  private readonly createdAt = new WeakMap<Graph, number>();
  private visited = 0;
  private readonly total: number;

  constructor(
    private readonly model: Model,
    private readonly target: number,
    private readonly opts: ConvertOptions = {},
  ) {
    this.registry = opts.registry ?? SchemaRegistry.default();
    const max = this.registry.maxOpset("");
    if (!Number.isInteger(target) || target < 1 || target > max)
      throw new OnnxError(
        "E_USAGE",
        `target opset ${target} is not one this tool knows (ai.onnx 1 to ${max})`,
      );
    this.versions = new VersionTable(this.registry, max);
    this.types = new TypeSource(model, this.registry);
    const from = onnxVersion(model.opsetImports);
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
        : this.convertGraph(m.graph, "graph", from, undefined, rootNames);
    const functions = m.functions.map((f) => {
      const v = onnxVersion(f.opsetImports);
      if (v === undefined) return f;
      const where = `function '${f.domain ? `${f.domain}.` : ""}${f.name}'`;
      const state = new OwnerState(f, where, undefined, lazyNames(f));
      const nodes = this.convertNodes(state, v);
      const opsetImports = withOnnxVersion(f.opsetImports, this.target);
      return nodes === f.nodes && v === this.target ? f : { ...f, nodes, opsetImports };
    });
    this.plan.nodes = this.visited;
    if (this.plan.blocked.length > 0) return { plan: this.plan };
    let out: Model = {
      ...m,
      graph,
      functions: functions.some((f, i) => f !== m.functions[i]) ? functions : m.functions,
      opsetImports:
        from === undefined ? m.opsetImports : withOnnxVersion(m.opsetImports, this.target),
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
   * opset of its step (createdAt).
   */
  private convertGraph(
    g: Graph,
    where: string,
    from: number,
    parent: OwnerState | undefined,
    names: () => NameScope,
    origin = from,
  ): Graph {
    const state = new OwnerState(g, where, parent, names);
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
    for (let k = from; k !== target; k += dir) this.step(state, k, k + dir);
    if (from === target) this.visited += state.nodes.length;
    // Subgraphs of the nodes as they are now.
    let out: Node[] | undefined;
    const nodes = state.nodes;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      let attrs: Attribute[] | undefined;
      for (let j = 0; j < n.attributes.length; j++) {
        const a = n.attributes[j]!;
        if (a.type !== "GRAPH" && a.type !== "GRAPHS") continue;
        const label = `${state.where} > ${nodeLabel(n, i)} ${a.name}`;
        let next: Attribute = a;
        const at = (g: Graph) => this.createdAt.get(g) ?? origin;
        if (a.type === "GRAPH" && a.value) {
          const sub = this.convertGraph(a.value, label, at(a.value), state, state.names, origin);
          if (sub !== a.value) next = { ...a, value: sub };
        } else if (a.type === "GRAPHS" && a.value) {
          const subs = a.value.map((s, si) =>
            this.convertGraph(s, `${label}[${si}]`, at(s), state, state.names, origin),
          );
          if (subs.some((s, si) => s !== a.value![si])) next = { ...a, value: subs };
        }
        if (next !== a) (attrs ??= [...n.attributes])[j] = next;
      }
      if (attrs) (out ??= [...nodes])[i] = { ...n, attributes: attrs };
    }
    return out ?? nodes;
  }

  /** One opset step over one graph's node list. */
  private step(state: OwnerState, k: number, next: number): void {
    const nodes = state.nodes;
    let out: Node[] | undefined;
    let dead: Set<string> | undefined;
    const direction: Direction = next > k ? "up" : "down";
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      this.visited++;
      if ((this.visited & 0x3fff) === 0) this.opts.progress?.(this.visited, this.total);
      const keep = () => {
        if (out) out.push(node);
      };
      if (!isOnnx(node.domain) || this.blockedNodes.has(node)) {
        keep();
        continue;
      }
      const table = this.versions.get(node.opType);
      if (table === null) {
        this.block(state, node, i, k, next, 0, 0, `unknown operator '${node.opType}'`);
        keep();
        continue;
      }
      const a = table[k];
      const b = table[next];
      if (a === b) {
        keep();
        continue;
      }
      if (a === undefined) {
        this.block(
          state,
          node,
          i,
          k,
          next,
          0,
          b!.since,
          `${node.opType} does not exist at opset ${k}`,
        );
        keep();
        continue;
      }
      let repl: Node[] | undefined;
      try {
        repl = this.applyStep(state, node, a, b, next, direction, i, k);
      } catch (e) {
        if (!(e instanceof Blocked)) throw e;
        this.block(state, node, i, k, next, a.since, b?.since ?? 0, e.reason);
        keep();
        continue;
      }
      if (!repl) {
        keep();
        continue;
      }
      out ??= nodes.slice(0, i);
      for (const n of repl) out.push(n);
      this.noteNewGraphs(node, repl, next);
      state.replaced(node, repl);
      const readNow = new Set<string>();
      for (const n of repl) for (const x of n.inputs) readNow.add(x);
      for (const x of node.inputs) if (x && !readNow.has(x)) (dead ??= new Set()).add(x);
    }
    if (out) state.nodes = out;
    if (dead) state.removeDead(dead);
  }

  /** Graphs the replacement nodes carry that the replaced node did not: made at opset `at`. */
  private noteNewGraphs(node: Node, repl: Node[], at: number): void {
    const old = new Set(node.attributes.flatMap((a) => attributeGraphs(a)));
    for (const n of repl)
      for (const a of n.attributes)
        for (const g of attributeGraphs(a)) if (!old.has(g)) this.createdAt.set(g, at);
  }

  private block(
    state: OwnerState,
    node: Node,
    index: number,
    k: number,
    next: number,
    from: number,
    to: number,
    reason: string,
  ): void {
    this.blockedNodes.add(node);
    this.plan.blocked.push({
      where: `${state.where} > ${nodeLabel(node, index)}`,
      op: node.opType,
      domain: node.domain,
      from,
      to,
      opsetFrom: k,
      opsetTo: next,
      message: reason,
    });
  }

  /** The nodes replacing `node` across the step, or undefined when it stays as it is. */
  private applyStep(
    state: OwnerState,
    node: Node,
    a: OpVersion,
    b: OpVersion | undefined,
    opset: number,
    direction: Direction,
    index: number,
    k: number,
  ): Node[] | undefined {
    const to = b?.since ?? 0;
    const row = adapterRow("", node.opType, a.since, to);
    if (!b) {
      const why = blockedStep("", node.opType, a.since, 0)?.reason;
      if (why) throw new Blocked(why);
      const hint = a.function
        ? `; it is a function op: expand it first (\`onnx-expand expand\`), then convert`
        : "";
      throw new Blocked(`${node.opType} does not exist before opset ${a.since}${hint}`);
    }
    const ctx = this.context(state, node, a, b, opset, direction, index, k);
    if (row) {
      const r = row.adapter(ctx);
      this.plan.adapted.push({
        where: ctx.where,
        op: node.opType,
        domain: node.domain,
        from: a.since,
        to: b.since,
        opsetFrom: k,
        opsetTo: opset,
        message: row.summary,
      });
      return r;
    }
    const br = behaviourBreak("", node.opType, a.since, b.since);
    if (br)
      throw new Blocked(`no adapter for ${node.opType} ${a.since} -> ${b.since}: ${br.reason}`);
    const d = stepDiff(a, b);
    if (!d.verdict.breaking) {
      this.plan.freeSteps++;
      return undefined;
    }
    const reasons = nodeStepReasons(ctx, d);
    if (reasons.length === 0) {
      this.plan.freeSteps++;
      return undefined;
    }
    const listed = blockedStep("", node.opType, a.since, b.since)?.reason;
    throw new Blocked(listed ? `${listed} (${reasons.join("; ")})` : reasons.join("; "));
  }

  private context(
    state: OwnerState,
    node: Node,
    from: OpVersion,
    to: OpVersion,
    opset: number,
    direction: Direction,
    index: number,
    k: number,
  ): AdapterContext {
    const plan = this.plan;
    const types = this.types;
    // A subgraph reads outer-scope values: their types are in the enclosing scopes' maps.
    const typeOf = (name: string): Type | undefined => {
      for (let s: OwnerState | undefined = state; s; s = s.parent) {
        const t = types.of(s.original, name);
        if (t) return t;
      }
      return undefined;
    };
    return {
      node,
      from,
      to,
      direction,
      opset,
      where: `${state.where} > ${nodeLabel(node, index)}`,
      inputType(i: number) {
        const name = this.node.inputs[i];
        return name ? typeOf(name) : undefined;
      },
      outputType(i: number) {
        const name = this.node.outputs[i];
        return name ? typeOf(name) : undefined;
      },
      constantInput(i: number) {
        const name = this.node.inputs[i];
        return name ? state.constant(name) : undefined;
      },
      fresh(base: string) {
        return state.names().fresh(base);
      },
      warn(message: string) {
        plan.warnings.push({
          where: this.where,
          op: node.opType,
          domain: node.domain,
          from: from.since,
          to: to.since,
          opsetFrom: k,
          opsetTo: opset,
          message,
        });
      },
      fail(reason: string): never {
        throw new Blocked(reason);
      },
    };
  }
}

function lazyNames(owner: Graph | Function): () => NameScope {
  let scope: NameScope | undefined;
  return () => (scope ??= new NameScope(owner));
}

function onnxVersion(imports: OpsetId[]): number | undefined {
  return imports.find((o) => isOnnx(o.domain))?.version;
}

function withOnnxVersion(imports: OpsetId[], version: number): OpsetId[] {
  return imports.map((o) => (isOnnx(o.domain) ? { ...o, version } : o));
}

/** Converts the model's ai.onnx opset (main graph, subgraphs, functions) to `target`. */
export function convertModel(
  model: Model,
  target: number,
  opts: ConvertOptions = {},
): ConversionResult {
  return new Converter(model, target, opts).run();
}
