// The executor: runs a model's graph node by node in topological order, frees each value after
// its last use, calls model-local functions (binding their attributes, defaults and @refs),
// and runs If/Loop/Scan bodies with the enclosing scopes visible.

import { OnnxError, nodeLabel } from "../errors.js";
import { dtypeName } from "../ir/dtype.js";
import { modelFunctions } from "../check/functions.js";
import { type FunctionTable, cyclePath, functionLabel } from "../ir/functions.js";
import { GraphIndex, topologicalOrder } from "../ir/graph.js";
import { opsetMap } from "../ir/opsets.js";
import type { Tensor } from "../ir/tensor.js";
import { bindRefs } from "../ir/rewrite.js";
import { attributeGraphs } from "../ir/visit.js";
import type { Attribute, Function, Graph, Model, Node } from "../ir/types.js";
import { MemoryBudget, withBudget } from "./budget.js";
import { assertNodeBudget } from "./call-count.js";
import { fromIRTensor, sparseToDense } from "./ir-tensors.js";
import { kernelFor } from "./kernels/index.js";
import { markConstant } from "./kernels/wasm/gemm.js";
import { nodeWithDefaults } from "./defaults.js";
import { asKernel, kernelMade } from "./tensor.js";
import { finishProfile, outputBytes, type NodeProfile, type RunProfile } from "./profile.js";
import type { KernelContext, RTensor, RValue } from "./types.js";

export interface RunOptions {
  /** Largest element count any tensor may have (default 2^31 - 1). */
  maxElements?: number;
  /** Most iterations any Loop may run, so that a huge trip count ends with an error, not hours later. */
  maxIterations?: number;
  /**
   * Most bytes the run may hold at once (values in scope, accumulators, kernels' allocations),
   * checked before each allocation (default: no limit but the heap's). Values on the JavaScript
   * heap (string tensors) are also held to half of what V8's heap limit leaves.
   */
  maxMemory?: number;
  /** What sets maxMemory, as the error names it (default "--max-memory"). */
  budgetName?: string;
  /** Most nodes the run may execute, calls counted out, checked before it starts (call-count.ts). */
  maxNodes?: number;
  /** Also return these intermediate values (true: every value of the main graph). */
  keepIntermediates?: string[] | boolean;
  /** Filled in while running: the most values held at once in the main graph's scope. */
  stats?: { peakLiveValues: number };
  /**
   * Filled in by the run: time, share and output bytes per node of the main graph and per op
   * type (pass `{}`; formatProfile in ./profile.ts prints it).
   */
  profile?: RunProfile;
}

export const DEFAULT_MAX_ELEMENTS = 2 ** 31 - 1;
/** About 20 s of a trivial Loop body on these machines. */
export const DEFAULT_MAX_ITERATIONS = 10_000_000;

/** How deeply function calls may nest: deeper chains would exhaust the stack. */
const MAX_CALL_DEPTH = 256;

const isDefaultDomain = (d: string) => d === "" || d === "ai.onnx";

/** What to run for a node: its order and how many nodes read each value. */
interface Plan {
  order: number[];
  /** Names each node releases when it finishes (inputs and outer names it reads). */
  reads: string[][];
  uses: Map<string, number>;
}

/**
 * Plans and converted initializers are cached per run only: passes edit graphs in place between
 * runs, so a cache that outlived a run could describe a graph that no longer exists.
 */
function planFor(owner: Graph | Function, planCache: Map<Graph | Function, Plan>): Plan {
  let plan = planCache.get(owner);
  if (plan) return plan;
  const order = topologicalOrder(owner);
  const index = new GraphIndex(owner);
  const uses = new Map<string, number>();
  for (const [name, list] of index.consumers) uses.set(name, list.length);
  const reads: string[][] = owner.nodes.map(() => []);
  for (const [name, list] of index.consumers) for (const u of list) reads[u.index]!.push(name);
  plan = { order, reads, uses };
  planCache.set(owner, plan);
  return plan;
}

/** The op type of the node of `owner` that produces `name` (undefined: none does). */
function producerOp(
  owner: Graph | Function,
  name: string,
  cache: Map<Graph | Function, Map<string, string>>,
): string | undefined {
  let m = cache.get(owner);
  if (!m) {
    m = new Map();
    for (const n of owner.nodes) for (const o of n.outputs) if (o) m.set(o, n.opType);
    cache.set(owner, m);
  }
  return m.get(name);
}

function initializerValue(t: Tensor, initializerCache: Map<Tensor, RTensor>): RTensor {
  let v = initializerCache.get(t);
  if (!v) {
    v = fromIRTensor(t, `initializer '${t.name}'`);
    // Data read from a file is not kept past its last reader, nor packed for the whole run: a
    // model larger than the memory budget runs when no point of it needs more (a subgraph run
    // again reads it again).
    if (t.inMemory) {
      markConstant(v.data); // kernels may keep a packed form of it for the run
      initializerCache.set(t, v);
    }
  }
  return v;
}

/**
 * A graph's initializers, dense and sparse (made dense), as values of the scope. Those whose data
 * is in a file (external data, a large model's raw data) are read when a node first reads them,
 * and counted in the budget from then on.
 */
function bindInitializers(g: Graph, scope: Scope, cache: Map<Tensor, RTensor>): void {
  for (const t of g.initializers)
    if (t.inMemory) scope.bind(t.name, initializerValue(t, cache));
    else scope.bindStored(t.name, () => initializerValue(t, cache));
  for (const s of g.sparseInitializers) {
    let v = cache.get(s.values);
    if (!v) {
      v = sparseToDense(s, `sparse initializer '${s.values.name}'`);
      cache.set(s.values, v);
    }
    scope.bind(s.values.name, v);
  }
}

/**
 * Values visible at a point of execution: this scope's own, then the enclosing ones. The scope's
 * own values are counted in the run's memory budget while they are bound.
 */
class Scope {
  private readonly own = new Map<string, RValue>();
  /** Values not read yet: initializers whose data is in a file, read on first use. */
  private stored: Map<string, () => RValue> | undefined;
  /** Function inputs the caller omitted: reading one gives "absent", as "" would. */
  readonly omitted = new Set<string>();
  constructor(
    readonly parent?: Scope,
    readonly budget: MemoryBudget | undefined = parent?.budget,
  ) {}
  /** This scope's own values (read-only: bind and unbind keep the budget's count). */
  get values(): ReadonlyMap<string, RValue> {
    return this.own;
  }
  /** A value read from its file when first asked for (then bound as any other). */
  bindStored(name: string, read: () => RValue): void {
    this.unbind(name);
    (this.stored ??= new Map()).set(name, read);
  }
  /** Whether the scope itself defines the name (read or not). */
  defines(name: string): boolean {
    return this.own.has(name) || this.stored?.has(name) === true;
  }
  bind(name: string, v: RValue): void {
    this.stored?.delete(name);
    const old = this.own.get(name);
    this.budget?.hold(v);
    if (old !== undefined) this.budget?.release(old);
    this.own.set(name, v);
  }
  unbind(name: string): void {
    this.stored?.delete(name);
    const old = this.own.get(name);
    if (old === undefined) return;
    this.budget?.release(old);
    this.own.delete(name);
  }
  /** Releases every own value (the scope is done; what it returned is counted by its reader). */
  dispose(): void {
    if (this.budget) for (const v of this.own.values()) this.budget.release(v);
    this.own.clear();
    this.stored = undefined;
  }
  get(name: string): RValue | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const v = s.own.get(name);
      if (v !== undefined) return v;
      const read = s.stored?.get(name);
      if (read) {
        const r = read();
        s.bind(name, r);
        return r;
      }
    }
    return undefined;
  }
  has(name: string): boolean {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.defines(name)) return true;
    return false;
  }
}

/** The ops (as "domain.op" or "op") of a model that have neither a kernel nor a local function. */
export function unsupportedOps(model: Model): string[] {
  const functions = modelFunctions(model);
  const missing = new Set<string>();
  const visitedFns = new Set<Function>();
  const visit = (nodes: Node[]) => {
    for (const n of nodes) {
      const f = functions.called(n);
      if (f) {
        if (!visitedFns.has(f)) {
          visitedFns.add(f);
          visit(f.nodes);
        }
      } else if (!kernelFor(n.opType, n.domain)) {
        missing.add(isDefaultDomain(n.domain) ? n.opType : `${n.domain}.${n.opType}`);
      }
      for (const a of n.attributes) for (const g of attributeGraphs(a)) visit(g.nodes);
    }
  };
  visit(model.graph.nodes);
  return [...missing].sort();
}

/** Throws one E_UNSUPPORTED error naming every op the interpreter cannot run. */
export function assertSupported(model: Model): void {
  const missing = unsupportedOps(model);
  if (missing.length)
    throw new OnnxError(
      "E_UNSUPPORTED",
      `the interpreter has no kernel for ${missing.length === 1 ? "op" : `${missing.length} ops`}: ${missing.join(", ")}`,
    );
}

/** Checks a value against a declared graph input type: element type and rank. */
function checkDeclared(
  where: string,
  value: RValue,
  declared: Graph["inputs"][number]["type"],
): void {
  if (declared?.kind === "sequence" && "dtype" in value)
    throw new OnnxError(
      "E_RUNTIME",
      "expected a sequence, got a tensor (give a SequenceProto .pb file)",
      where,
    );
  if (!declared || declared.kind !== "tensor") return;
  if (!("dtype" in value)) throw new OnnxError("E_RUNTIME", "expected a tensor", where);
  if (declared.elemType && declared.elemType !== value.dtype)
    throw new OnnxError(
      "E_RUNTIME",
      `expected element type ${dtypeName(declared.elemType)}, got ${dtypeName(value.dtype)}`,
      where,
    );
  if (declared.shape && declared.shape.length !== value.shape.length)
    throw new OnnxError(
      "E_RUNTIME",
      `expected rank ${declared.shape.length} (shape [${declared.shape.map((d) => d ?? "?").join(",")}]), got shape [${value.shape.join(",")}]`,
      where,
    );
}

class Executor {
  private readonly functions: FunctionTable;
  private readonly maxElements: number;
  private readonly maxIterations: number;
  private readonly stats: { peakLiveValues: number } | undefined;
  /** The main graph's node timings while profiling. */
  private readonly timings: NodeProfile[] | undefined;
  readonly budget: MemoryBudget;
  private readonly plans = new Map<Graph | Function, Plan>();
  private readonly initializers = new Map<Tensor, RTensor>();
  /** Per graph: the op type that produces each of its values. */
  private readonly producers = new Map<Graph | Function, Map<string, string>>();
  /** Functions being called right now, outermost first: a repeat is recursion, which never ends. */
  private readonly calling: Function[] = [];

  constructor(
    private readonly model: Model,
    opts: RunOptions,
  ) {
    this.functions = modelFunctions(model);
    this.maxElements = opts.maxElements ?? DEFAULT_MAX_ELEMENTS;
    this.maxIterations = opts.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    this.stats = opts.stats;
    this.timings = opts.profile ? [] : undefined;
    this.budget = new MemoryBudget(opts.maxMemory ?? Infinity, undefined, opts.budgetName);
  }

  /**
   * Runs the nodes of a graph or function body in `scope` (whose own values it may free).
   * `keep` names values that must survive (outputs, requested intermediates).
   */
  runNodes(
    owner: Graph | Function,
    nodes: Node[],
    scope: Scope,
    opsets: Map<string, number>,
    keep: Set<string> | "all",
    where: string,
  ): void {
    const plan = planFor(owner, this.plans);
    const remaining = new Map(plan.uses);
    for (const i of plan.order) {
      const node = nodes[i]!;
      const label = nodeLabel(node, i) + where;
      const ins = node.inputs.map((name) => {
        if (name === "" || scope.omitted.has(name)) return undefined;
        const v = scope.get(name);
        if (v === undefined)
          throw new OnnxError(
            "E_RUNTIME",
            `input '${name}' has no value (it is not a graph input, initializer or node output)`,
            label,
          );
        return v;
      });
      const top = scope.parent === undefined && owner === this.model.graph;
      const timed = this.timings && top;
      const t0 = timed ? performance.now() : 0;
      const donated =
        top && keep !== "all"
          ? (k: number) => this.donatable(node, k, ins[k], scope, keep, remaining, owner)
          : undefined;
      const outs = this.runNode(node, ins, scope, opsets, label, donated);
      if (timed)
        this.timings!.push({
          index: i,
          label,
          opType: node.opType,
          ms: performance.now() - t0,
          bytes: outputBytes(outs),
          share: 0,
        });
      node.outputs.forEach((name, k) => {
        if (name === "") return;
        const v = outs[k];
        if (v === undefined)
          throw new OnnxError("E_RUNTIME", `produced no value for output ${k} ('${name}')`, label);
        scope.bind(name, v);
      });
      if (this.stats && scope.parent === undefined)
        this.stats.peakLiveValues = Math.max(this.stats.peakLiveValues, scope.values.size);
      if (keep === "all") continue;
      for (const name of plan.reads[i]!) {
        const left = (remaining.get(name) ?? 1) - 1;
        remaining.set(name, left);
        if (left <= 0 && !keep.has(name)) scope.unbind(name);
      }
      if (this.stats && scope.parent === undefined)
        this.stats.peakLiveValues = Math.max(this.stats.peakLiveValues, scope.values.size);
    }
  }

  /**
   * Whether a main-graph node may overwrite input k (KernelContext.donated): its value is this
   * scope's own, read by no later node and not kept, read once by this node, made by a kernel of
   * this run (a node's output other than a Constant's, never a graph input or an initializer),
   * and no other value in any scope holds a storage over its memory.
   */
  private donatable(
    node: Node,
    k: number,
    v: RValue | undefined,
    scope: Scope,
    keep: Set<string>,
    remaining: Map<string, number>,
    owner: Graph | Function,
  ): boolean {
    const name = node.inputs[k];
    if (!name || !v || !("dtype" in v) || keep.has(name)) return false;
    if (node.inputs.indexOf(name) !== node.inputs.lastIndexOf(name)) return false;
    if (remaining.get(name) !== 1 || scope.values.get(name) !== v) return false;
    if (producerOp(owner, name, this.producers) === "Constant") return false;
    return kernelMade(v.data) && this.budget.soleHolder(v.data);
  }

  runNode(
    node: Node,
    ins: (RValue | undefined)[],
    scope: Scope,
    opsets: Map<string, number>,
    label: string,
    donated?: (k: number) => boolean,
  ): RValue[] {
    const fn = this.functions.called(node);
    if (fn) return this.callFunction(fn, node, ins, opsets, label);
    const kernel = kernelFor(node.opType, node.domain);
    if (!kernel)
      throw new OnnxError("E_UNSUPPORTED", "the interpreter has no kernel for this op", label);
    const opset = opsets.get(isDefaultDomain(node.domain) ? "" : node.domain) ?? 1;
    const ctx: KernelContext = {
      // the schema's attribute defaults bound in, once per node (interp/defaults.ts)
      node: nodeWithDefaults(node, opset),
      opset,
      label,
      maxElements: this.maxElements,
      maxIterations: this.maxIterations,
      runSubgraph: (g, inputs) => this.runSubgraph(g, inputs, scope, opsets, label),
      donated,
    };
    let outs: RValue[];
    const mark = this.budget.enter();
    try {
      outs = asKernel(() => kernel(ctx, ins));
    } catch (e) {
      if (e instanceof OnnxError) {
        if (e.where) throw e;
        throw new OnnxError(e.code, e.message, label);
      }
      const msg = e instanceof Error ? e.message : String(e);
      if (e instanceof RangeError && /array (buffer allocation|length)/i.test(msg))
        throw new OnnxError(
          "E_RUNTIME",
          "could not allocate memory for an array larger than the JavaScript engine allows",
          label,
        );
      throw new OnnxError("E_RUNTIME", msg.split("\n")[0]!, label);
    } finally {
      this.budget.leave(mark);
    }
    for (const v of outs)
      if (v && "dtype" in v && v.data.length > this.maxElements)
        throw new OnnxError(
          "E_RUNTIME",
          `output has ${v.data.length} elements, more than the limit of ${this.maxElements}`,
          label,
        );
    return outs;
  }

  runSubgraph(
    g: Graph,
    inputs: RValue[],
    outer: Scope,
    opsets: Map<string, number>,
    label: string,
  ): RValue[] {
    const scope = new Scope(outer);
    bindInitializers(g, scope, this.initializers);
    g.inputs.forEach((vi, i) => {
      const v = inputs[i];
      if (v !== undefined) scope.bind(vi.name, v);
    });
    const keep = new Set(g.outputs.map((o) => o.name));
    try {
      this.runNodes(g, g.nodes, scope, opsets, keep, ` in a subgraph of ${label}`);
      return g.outputs.map((o) => {
        const v = scope.get(o.name);
        if (v === undefined)
          throw new OnnxError("E_RUNTIME", `subgraph output '${o.name}' has no value`, label);
        return v;
      });
    } finally {
      scope.dispose();
    }
  }

  callFunction(
    fn: Function,
    call: Node,
    ins: (RValue | undefined)[],
    callerOpsets: Map<string, number>,
    label: string,
  ): RValue[] {
    const scope = new Scope(undefined, this.budget);
    fn.inputs.forEach((name, i) => {
      const v = ins[i];
      if (name === "") return;
      if (v !== undefined) scope.bind(name, v);
      else scope.omitted.add(name);
    });
    const bound = new Map<string, Attribute>();
    for (const a of fn.attributeProtos) bound.set(a.name, a);
    for (const a of call.attributes) bound.set(a.name, a);
    const nodes = bindRefs(fn.nodes, (ref) => bound.get(ref));
    const opsets = opsetMap(fn.opsetImports, callerOpsets);
    const fnName = (f: Function) => `'${functionLabel(f)}'`;
    if (this.calling.includes(fn)) {
      const chain = cyclePath(this.calling.slice(this.calling.indexOf(fn)));
      throw new OnnxError(
        "E_MODEL",
        `function ${fnName(fn)} calls itself (${chain}); recursion is not allowed`,
        label,
      );
    }
    if (this.calling.length >= MAX_CALL_DEPTH)
      throw new OnnxError(
        "E_UNSUPPORTED",
        `function calls nest more than ${MAX_CALL_DEPTH} deep (${fnName(this.calling[0]!)} -> ... -> ${fnName(fn)})`,
      );
    this.calling.push(fn);
    try {
      this.runNodes(
        fn,
        nodes,
        scope,
        opsets,
        new Set(fn.outputs),
        ` in function '${fn.name}' called by ${label}`,
      );
      return fn.outputs.map((name) => {
        const v = scope.values.get(name);
        if (v === undefined)
          throw new OnnxError("E_RUNTIME", `function output '${name}' has no value`, label);
        return v;
      });
    } finally {
      this.calling.pop();
      scope.dispose();
    }
  }

  run(inputs: Record<string, RValue>, opts: RunOptions): Record<string, RValue> {
    const g = this.model.graph;
    const scope = new Scope(undefined, this.budget);
    bindInitializers(g, scope, this.initializers);
    const known = new Set(g.inputs.map((v) => v.name));
    for (const name of Object.keys(inputs))
      if (!known.has(name))
        throw new OnnxError(
          "E_RUNTIME",
          `the model has no input named '${name}' (inputs: ${[...known].join(", ") || "none"})`,
        );
    // The first node reading each name, found in one pass (a search per input is quadratic).
    let readers: Map<string, number> | undefined;
    const firstReader = (name: string): string => {
      if (!readers) {
        readers = new Map();
        for (let i = g.nodes.length - 1; i >= 0; i--)
          for (const x of g.nodes[i]!.inputs) readers.set(x, i);
      }
      const i = readers.get(name);
      return i === undefined ? "" : ` (read by ${nodeLabel(g.nodes[i]!, i)})`;
    };
    for (const vi of g.inputs) {
      // The caller's object may have a prototype: only its own keys are inputs.
      const v = Object.hasOwn(inputs, vi.name) ? inputs[vi.name] : undefined;
      if (v === undefined && scope.defines(vi.name)) continue; // initializer default
      const where = `graph input '${vi.name}'${firstReader(vi.name)}`;
      if (v === undefined) {
        throw new OnnxError("E_RUNTIME", "no value was given for this input", where);
      }
      checkDeclared(where, v, vi.type);
      scope.bind(vi.name, v);
    }
    const keepOpt = opts.keepIntermediates;
    const keep: Set<string> | "all" =
      keepOpt === true ? "all" : new Set([...g.outputs.map((o) => o.name), ...(keepOpt || [])]);
    this.runNodes(g, g.nodes, scope, opsetMap(this.model.opsetImports), keep, "");
    if (opts.profile && this.timings) finishProfile(opts.profile, this.timings);
    // Keyed by the model's names (an output `__proto__` is a name like any other).
    const result: Record<string, RValue> = Object.create(null);
    const take = (name: string) => {
      const v = scope.get(name);
      if (v === undefined) throw new OnnxError("E_RUNTIME", `graph output '${name}' has no value`);
      result[name] = v;
    };
    for (const o of g.outputs) take(o.name);
    if (keepOpt === true) {
      for (const [name, v] of scope.values) if (!Object.hasOwn(result, name)) result[name] = v;
    } else if (keepOpt) for (const name of keepOpt) if (!Object.hasOwn(result, name)) take(name);
    return result;
  }
}

/**
 * Runs a model. Inputs are keyed by graph input name; initializers that are also inputs act as
 * defaults. Returns the graph outputs (and requested intermediates) by name.
 */
export function run(
  model: Model,
  inputs: Record<string, RValue>,
  opts: RunOptions = {},
): Record<string, RTensor> {
  const values = runValues(model, inputs, opts);
  for (const [name, v] of Object.entries(values))
    if (!("dtype" in v))
      throw new OnnxError("E_UNSUPPORTED", `value '${name}' is a ${v.kind}, not a tensor`);
  return values as Record<string, RTensor>;
}

/** Like run, for models whose outputs may be sequences or optionals. */
export function runValues(
  model: Model,
  inputs: Record<string, RValue>,
  opts: RunOptions = {},
): Record<string, RValue> {
  assertSupported(model);
  assertNodeBudget(model, modelFunctions(model), opts.maxNodes);
  const ex = new Executor(model, opts);
  return withBudget(ex.budget, () => ex.run(inputs, opts));
}
