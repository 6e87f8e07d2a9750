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
import { bodyKernelFor, hasKernel, kernelFor } from "./kernels/index.js";
import { markConstant } from "./kernels/wasm/gemm.js";
import { nodeWithDefaults } from "./defaults.js";
import { asKernel, kernelMade } from "./tensor.js";
import { finishProfile, outputBytes, type NodeProfile, type RunProfile } from "./profile.js";
import type { BodyRun, KernelContext, RTensor, RValue } from "./types.js";

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
  /**
   * With keepIntermediates true: also return every value computed inside a subgraph (If, Loop,
   * Scan bodies; a Loop's last iteration), for the page to paint subgraph views.
   */
  keepBodyValues?: boolean;
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

const isDefaultDomain = (d: string) => d === "" || d === "ai.onnx";

/** What to run for a node: its order and how many nodes read each value. */
interface Plan {
  order: number[];
  /** Names each node releases when it finishes (inputs and outer names it reads). */
  reads: string[][];
  uses: Map<string, number>;
}

/**
 * Nodes being run: a graph's (the main graph, an If branch, a Loop/Scan/SequenceMap body) or a
 * called function's, and how far they have got. Frames are kept on a stack of Executor.runNodes,
 * which runs calls and bodies there instead of recursing.
 */
interface Frame {
  owner: Graph | Function;
  nodes: Node[];
  scope: Scope;
  opsets: Map<string, number>;
  keep: Set<string> | "all";
  /** Where its nodes are, as error messages say it (" in function 'F' called by ..."). */
  where: string;
  plan: Plan;
  /** Readers not run yet, per value. */
  remaining: Map<string, number>;
  /** The index into plan.order of the node to run next. */
  next: number;
  /** What finishing the frame answers: a call of a function, or a body a body kernel asked for. */
  exit?: CallExit | BodyExit;
  /** The body kernel of the node at `next`, waiting for the body on the frame above. */
  pending?: PendingKernel;
}

interface CallExit {
  kind: "call";
  fn: Function;
  label: string;
  t0: number | undefined;
}

interface BodyExit {
  kind: "body";
  graph: Graph;
  label: string;
}

interface PendingKernel {
  run: Generator<BodyRun, RValue[], RValue[]>;
  label: string;
  /** The memory budget's mark when the kernel started (MemoryBudget.enter). */
  mark: [number, number];
  t0: number | undefined;
}

function frameOf(
  owner: Graph | Function,
  nodes: Node[],
  scope: Scope,
  opsets: Map<string, number>,
  keep: Set<string> | "all",
  where: string,
  plans: Map<Graph | Function, Plan>,
): Frame {
  const plan = planFor(owner, plans);
  return { owner, nodes, scope, opsets, keep, where, plan, remaining: new Map(plan.uses), next: 0 };
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
  // A work list, not recursion: a chain of calls may be far deeper than the stack.
  const todo: Node[][] = [model.graph.nodes];
  for (let nodes = todo.pop(); nodes; nodes = todo.pop())
    for (const n of nodes) {
      const f = functions.called(n);
      if (f) {
        if (!visitedFns.has(f)) {
          visitedFns.add(f);
          todo.push(f.nodes);
        }
      } else if (!hasKernel(n.opType, n.domain)) {
        missing.add(isDefaultDomain(n.domain) ? n.opType : `${n.domain}.${n.opType}`);
      }
      for (const a of n.attributes) for (const g of attributeGraphs(a)) todo.push(g.nodes);
    }
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

/** What a kernel threw, as an error naming the node (`label`) unless it names a place already. */
function kernelError(e: unknown, label: string): OnnxError {
  if (e instanceof OnnxError) return e.where ? e : new OnnxError(e.code, e.message, label);
  const msg = e instanceof Error ? e.message : String(e);
  if (e instanceof RangeError && /array (buffer allocation|length)/i.test(msg))
    return new OnnxError(
      "E_RUNTIME",
      "could not allocate memory for an array larger than the JavaScript engine allows",
      label,
    );
  return new OnnxError("E_RUNTIME", msg.split("\n")[0]!, label);
}

class Executor {
  private readonly functions: FunctionTable;
  private readonly maxElements: number;
  private readonly maxIterations: number;
  private readonly stats: { peakLiveValues: number } | undefined;
  /** The main graph's node timings while profiling. */
  private readonly timings: NodeProfile[] | undefined;
  /** While profiling: per subgraph and local function, each node's time summed over its runs. */
  private readonly graphTimes: Map<Graph | Function, number[]> | undefined;
  /** The values computed inside subgraphs (RunOptions.keepBodyValues), by name. */
  readonly bodyValues: Map<string, RValue> | undefined;
  readonly budget: MemoryBudget;
  private readonly plans = new Map<Graph | Function, Plan>();
  private readonly initializers = new Map<Tensor, RTensor>();
  /** Per graph: the op type that produces each of its values. */
  private readonly producers = new Map<Graph | Function, Map<string, string>>();
  /** Functions being called right now, outermost first: a repeat is recursion, which never ends. */
  private readonly calling: Function[] = [];
  /** The same functions as a set, to find a repeat at once however long the chain. */
  private readonly inCall = new Set<Function>();

  constructor(
    private readonly model: Model,
    opts: RunOptions,
  ) {
    this.functions = modelFunctions(model);
    this.maxElements = opts.maxElements ?? DEFAULT_MAX_ELEMENTS;
    this.maxIterations = opts.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    this.stats = opts.stats;
    this.timings = opts.profile ? [] : undefined;
    this.graphTimes = opts.profile ? new Map() : undefined;
    this.bodyValues =
      opts.keepBodyValues && opts.keepIntermediates === true ? new Map() : undefined;
    this.budget = new MemoryBudget(opts.maxMemory ?? Infinity, undefined, opts.budgetName);
  }

  /**
   * Runs the nodes of a frame (frameOf: a graph's, in a scope whose own values it may free; its
   * `keep` names values that must survive: outputs, requested intermediates). A call of a local
   * function, and a body a body kernel asks for, push a frame on this loop's stack rather than
   * recursing, so calls and bodies nested to any depth run.
   */
  runNodes(first: Frame): void {
    const stack: Frame[] = [first];
    try {
      while (stack.length > 0) {
        const f = stack[stack.length - 1]!;
        if (f.next === f.plan.order.length) {
          stack.pop();
          const exit = f.exit;
          if (!exit) continue;
          const below = stack[stack.length - 1]!;
          if (exit.kind === "call") this.finishNode(below, this.leaveFunction(f, exit), exit.t0);
          else this.resume(stack, below, this.leaveBody(f, exit));
          continue;
        }
        const i = f.plan.order[f.next]!;
        const node = f.nodes[i]!;
        const label = nodeLabel(node, i) + f.where;
        const ins = node.inputs.map((name) => {
          if (name === "" || f.scope.omitted.has(name)) return undefined;
          const v = f.scope.get(name);
          if (v === undefined)
            throw new OnnxError(
              "E_RUNTIME",
              `input '${name}' has no value (it is not a graph input, initializer or node output)`,
              label,
            );
          return v;
        });
        const top = f.scope.parent === undefined && f.owner === this.model.graph;
        const t0 = this.timings ? performance.now() : undefined;
        const fn = this.functions.called(node);
        if (fn) {
          stack.push(this.enterFunction(fn, node, ins, f.opsets, label, t0));
          continue;
        }
        const body = bodyKernelFor(node.opType, node.domain);
        if (body) {
          const mark = this.budget.enter();
          const run = body(this.contextOf(node, f.opsets, label), ins);
          f.pending = { run, label, mark, t0 };
          this.resume(stack, f, []);
          continue;
        }
        const donated =
          top && f.keep !== "all"
            ? (k: number) => this.donatable(node, k, ins[k], f, f.keep as Set<string>)
            : undefined;
        this.finishNode(f, this.runKernel(node, ins, f.opsets, label, donated), t0);
      }
    } catch (e) {
      // What the frames left unfinished hold: scopes, places in `calling`, kernels' allocations.
      for (const f of stack.reverse()) {
        const exit = f.exit;
        if (exit?.kind === "call") this.leaveCall(f, exit.fn);
        else if (exit) f.scope.dispose();
        if (f.pending) this.budget.leave(f.pending.mark);
      }
      throw e;
    }
  }

  /**
   * Resumes the body kernel waiting on frame `f` with a body's outputs (the first time, with
   * none): it asks for the next body, pushed as a frame, or returns the node's outputs.
   */
  private resume(stack: Frame[], f: Frame, outs: RValue[]): void {
    const p = f.pending!;
    let r: IteratorResult<BodyRun, RValue[]>;
    try {
      r = asKernel(() => p.run.next(outs));
    } catch (e) {
      throw kernelError(e, p.label);
    }
    if (!r.done) {
      stack.push(this.enterBody(r.value, f, p.label));
      return;
    }
    f.pending = undefined;
    this.budget.leave(p.mark);
    this.checkSizes(r.value, p.label);
    this.finishNode(f, r.value, p.t0);
  }

  /** The frame of a body: a scope inside the asking node's, with the body's inputs bound. */
  private enterBody(run: BodyRun, f: Frame, label: string): Frame {
    const g = run.graph;
    const scope = new Scope(f.scope);
    bindInitializers(g, scope, this.initializers);
    g.inputs.forEach((vi, i) => {
      const v = run.inputs[i];
      if (v !== undefined) scope.bind(vi.name, v);
    });
    const keep: Set<string> | "all" = this.bodyValues
      ? "all"
      : new Set(g.outputs.map((o) => o.name));
    const where = ` in a subgraph of ${label}`;
    const body = frameOf(g, g.nodes, scope, f.opsets, keep, where, this.plans);
    body.exit = { kind: "body", graph: g, label };
    return body;
  }

  /** A finished body's outputs; its scope is released. */
  private leaveBody(f: Frame, exit: BodyExit): RValue[] {
    if (this.bodyValues) for (const [name, v] of f.scope.values) this.bodyValues.set(name, v);
    try {
      return exit.graph.outputs.map((o) => {
        const v = f.scope.get(o.name);
        if (v === undefined)
          throw new OnnxError("E_RUNTIME", `subgraph output '${o.name}' has no value`, exit.label);
        return v;
      });
    } finally {
      f.scope.dispose();
    }
  }

  /** Binds what the frame's current node gave, frees what nothing reads any more, moves on. */
  private finishNode(f: Frame, outs: RValue[], t0: number | undefined): void {
    const i = f.plan.order[f.next]!;
    const node = f.nodes[i]!;
    const label = nodeLabel(node, i) + f.where;
    if (t0 !== undefined && f.scope.parent === undefined && f.owner === this.model.graph)
      this.timings!.push({
        index: i,
        label,
        opType: node.opType,
        ms: performance.now() - t0,
        bytes: outputBytes(outs),
        share: 0,
      });
    else if (t0 !== undefined && this.graphTimes) {
      let t = this.graphTimes.get(f.owner);
      if (!t) this.graphTimes.set(f.owner, (t = new Array<number>(f.nodes.length).fill(0)));
      t[i] = (t[i] ?? 0) + performance.now() - t0;
    }
    const { scope, keep } = f;
    node.outputs.forEach((name, k) => {
      if (name === "") return;
      const v = outs[k];
      if (v === undefined)
        throw new OnnxError("E_RUNTIME", `produced no value for output ${k} ('${name}')`, label);
      scope.bind(name, v);
    });
    f.next++;
    if (this.stats && scope.parent === undefined)
      this.stats.peakLiveValues = Math.max(this.stats.peakLiveValues, scope.values.size);
    if (keep === "all") return;
    for (const name of f.plan.reads[i]!) {
      const left = (f.remaining.get(name) ?? 1) - 1;
      f.remaining.set(name, left);
      if (left <= 0 && !keep.has(name)) scope.unbind(name);
    }
    if (this.stats && scope.parent === undefined)
      this.stats.peakLiveValues = Math.max(this.stats.peakLiveValues, scope.values.size);
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
    f: Frame,
    keep: Set<string>,
  ): boolean {
    const { scope, remaining, owner } = f;
    const name = node.inputs[k];
    if (!name || !v || !("dtype" in v) || keep.has(name)) return false;
    if (node.inputs.indexOf(name) !== node.inputs.lastIndexOf(name)) return false;
    if (remaining.get(name) !== 1 || scope.values.get(name) !== v) return false;
    if (producerOp(owner, name, this.producers) === "Constant") return false;
    return kernelMade(v.data) && this.budget.soleHolder(v.data);
  }

  /** A kernel's context for a node: its attributes with the schema's defaults, its opset. */
  private contextOf(
    node: Node,
    opsets: Map<string, number>,
    label: string,
    donated?: (k: number) => boolean,
  ): KernelContext {
    const opset = opsets.get(isDefaultDomain(node.domain) ? "" : node.domain) ?? 1;
    return {
      // the schema's attribute defaults bound in, once per node (interp/defaults.ts)
      node: nodeWithDefaults(node, opset),
      opset,
      label,
      maxElements: this.maxElements,
      maxIterations: this.maxIterations,
      donated,
    };
  }

  /** Runs a node that is neither a call of a local function nor an op with bodies. */
  private runKernel(
    node: Node,
    ins: (RValue | undefined)[],
    opsets: Map<string, number>,
    label: string,
    donated?: (k: number) => boolean,
  ): RValue[] {
    const kernel = kernelFor(node.opType, node.domain);
    if (!kernel)
      throw new OnnxError("E_UNSUPPORTED", "the interpreter has no kernel for this op", label);
    const ctx = this.contextOf(node, opsets, label, donated);
    let outs: RValue[];
    const mark = this.budget.enter();
    try {
      outs = asKernel(() => kernel(ctx, ins));
    } catch (e) {
      throw kernelError(e, label);
    } finally {
      this.budget.leave(mark);
    }
    this.checkSizes(outs, label);
    return outs;
  }

  private checkSizes(outs: RValue[], label: string): void {
    for (const v of outs)
      if (v && "dtype" in v && v.data.length > this.maxElements)
        throw new OnnxError(
          "E_RUNTIME",
          `output has ${v.data.length} elements, more than the limit of ${this.maxElements}`,
          label,
        );
  }

  /** The frame of a call's body: its scope given the call's inputs, its @refs bound. */
  private enterFunction(
    fn: Function,
    call: Node,
    ins: (RValue | undefined)[],
    callerOpsets: Map<string, number>,
    label: string,
    t0: number | undefined,
  ): Frame {
    const fnName = (f: Function) => `'${functionLabel(f)}'`;
    if (this.inCall.has(fn)) {
      const chain = cyclePath(this.calling.slice(this.calling.indexOf(fn)));
      throw new OnnxError(
        "E_MODEL",
        `function ${fnName(fn)} calls itself (${chain}); recursion is not allowed`,
        label,
      );
    }
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
    this.calling.push(fn);
    this.inCall.add(fn);
    const where = ` in function '${fn.name}' called by ${label}`;
    const f = frameOf(fn, nodes, scope, opsets, new Set(fn.outputs), where, this.plans);
    f.exit = { kind: "call", fn, label, t0 };
    return f;
  }

  /** A finished call's outputs; its scope is released. */
  private leaveFunction(f: Frame, { fn, label }: CallExit): RValue[] {
    try {
      return fn.outputs.map((name) => {
        const v = f.scope.values.get(name);
        if (v === undefined)
          throw new OnnxError("E_RUNTIME", `function output '${name}' has no value`, label);
        return v;
      });
    } finally {
      this.leaveCall(f, fn);
    }
  }

  private leaveCall(f: Frame, fn: Function): void {
    this.calling.pop();
    this.inCall.delete(fn);
    f.scope.dispose();
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
    const opsets = opsetMap(this.model.opsetImports);
    this.runNodes(frameOf(g, g.nodes, scope, opsets, keep, "", this.plans));
    if (opts.profile && this.timings) finishProfile(opts.profile, this.timings);
    if (opts.profile && this.graphTimes?.size) opts.profile.graphs = this.graphTimes;
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
      for (const [name, v] of this.bodyValues ?? [])
        if (!Object.hasOwn(result, name)) result[name] = v;
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
