// One walk over a model that both checks it and infers the types of its values: graphs in
// dependency order with outer scopes visible to subgraphs, every node against its schema
// (or model-local function), types propagated from inputs, initializers and value_info.
// It never changes the model.

import { OnnxError, nodeLabel } from "../errors.js";
import { outerNamesUsedBy, topologicalOrder } from "../ir/graph.js";
import { resolveRef } from "../ir/rewrite.js";
import { attributeGraphs, hasGraphAttribute, walkGraphNodes } from "../ir/traverse.js";
import type { Attribute, Dim, Function, Graph, Model, Node, OpsetId, Type } from "../ir/types.js";
import {
  MAX_IR_VERSION,
  MIN_IR_VERSION_FOR_FUNCTIONS,
  minIrVersionForOpset,
} from "../schema/ir-versions.js";
import { domainLabel, normaliseDomain } from "../schema/registry.js";
import type { OpVersion } from "../schema/types.js";
import { checkArity, checkCallArity, checkFormalType, formalAt, type Bindings } from "./arity.js";
import { checkAttributes } from "./attributes.js";
import { constFromTensor, type ConstVal } from "./consts.js";
import {
  formatProblem,
  type OpRegistry,
  type Problem,
  type ProblemCode,
  type Report,
} from "./report.js";
import { functionKey, functionLabel, resolveSchema } from "./resolve.js";
import { RULES } from "./rules/index.js";
import { tensorDataProblem } from "./tensor-data.js";
import { isTensor, mergeTypes, parseTypeString, tensorOf } from "./types.js";

export interface AnalyzeOptions {
  registry: OpRegistry;
}

export interface Analysis {
  problems: Problem[];
  /** Inferred (and declared) types of the values of each graph, subgraph and function body. */
  types: Map<Graph | Function, Map<string, Type>>;
}

class Scope {
  readonly types = new Map<string, Type | undefined>();
  readonly consts = new Map<string, ConstVal>();
  readonly syms = new Map<string, Dim[]>();
  /** How each value not defined by a node was defined, for messages. */
  readonly origin = new Map<string, string>();
  /** The nodes of the graph or function body, and the order they are analysed in (none: as stored). */
  nodes?: Node[];
  order?: number[];
  /** Nodes are being analysed in their stored order (see Analyzer.analyzeInOrder). */
  inOrder = false;
  /** Set, then, when a node reads a value it or a later node defines, or defines one twice. */
  misordered = false;
  private definers: Map<string, { node: Node; index: number }> | undefined;
  private definersOrder: number[] | undefined;
  constructor(readonly parent?: Scope) {}
  /** How a value was defined: its origin, else the first node in analysis order to output it. */
  originOf(name: string): string | { node: Node; index: number } | undefined {
    const o = this.origin.get(name);
    if (o !== undefined || !this.nodes) return o;
    // The first definer of each node output in analysis order, found in one pass when the first
    // message needs one (a model may have thousands of duplicates).
    if (!this.definers || this.definersOrder !== this.order) {
      const definers = new Map<string, { node: Node; index: number }>();
      const order = this.order;
      for (let j = 0; j < this.nodes.length; j++) {
        const i = order ? order[j]! : j;
        const node = this.nodes[i]!;
        for (const out of node.outputs)
          if (!definers.has(out)) definers.set(out, { node, index: i });
      }
      this.definers = definers;
      this.definersOrder = order;
    }
    return this.definers.get(name);
  }

  /** The scope (this or an enclosing one) that defines the name. */
  owner(name: string): Scope | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.types.has(name)) return s;
    return undefined;
  }
  has(name: string): boolean {
    return this.types.has(name) || (this.parent?.has(name) ?? false);
  }
  type(name: string): Type | undefined {
    return this.types.has(name) ? this.types.get(name) : this.parent?.type(name);
  }
  constOf(name: string): ConstVal | undefined {
    return this.types.has(name) ? this.consts.get(name) : this.parent?.constOf(name);
  }
  symOf(name: string): Dim[] | undefined {
    return this.types.has(name) ? this.syms.get(name) : this.parent?.symOf(name);
  }
}

/** How a value was defined, in words (for duplicate-value messages). */
function originLabel(o: string | { node: Node; index: number } | undefined): string {
  return typeof o === "object" ? `an output of ${nodeLabel(o.node, o.index)}` : String(o);
}

interface Ctx {
  /** Prefix naming the graph or function for `where` ("" for the main graph). */
  where: string;
  opsets: Map<string, number>;
  /** The function whose body this is. */
  fn?: Function;
  /** When a function body is instantiated for a call: the caller's attribute values. */
  env?: Map<string, Attribute>;
  sink: Problem[];
  /** Record inferred types (off for instantiations). */
  record: boolean;
}

export class Analyzer {
  readonly problems: Problem[] = [];
  readonly types = new Map<Graph | Function, Map<string, Type>>();
  private readonly functions = new Map<string, Function>();
  private readonly instCache = new Map<
    string,
    { outs: (Type | undefined)[]; problems: Problem[] }
  >();
  private readonly standalone = new Map<Function, Set<string>>();
  /** Analyses of nodes that reported nothing, by memoKey. */
  private readonly memo = new Map<string, MemoEntry>();
  /**
   * Memo keys of types: per Type object, and per structure (see typeKey). A Map, not a WeakMap:
   * the analyzer lives for one analysis, whose result holds the types anyway, and a WeakMap
   * costs much more to fill (and to collect).
   */
  private readonly typeKeys = new Map<Type, string | null>();
  private readonly typeIds = new Map<string, string>();
  /** Numbers for callees and attributes in memo keys (one counter: a number names one thing). */
  private readonly calleeIds = new Map<
    Map<string, number>,
    Map<string, Map<string, Map<string | number, number>>>
  >();
  private readonly attributeIds = new Map<
    string,
    Map<string, Map<string | number | bigint, number>>
  >();
  private nextId = 0;
  private readonly instStack = new Set<Function>();
  private readonly registry: AnalyzeOptions["registry"];

  constructor(
    readonly model: Model,
    opts: AnalyzeOptions,
  ) {
    this.registry = opts.registry;
  }

  run(): Analysis {
    const m = this.model;
    const opsets = this.opsetMap(m.opsetImports, "model", this.problems);
    this.checkIrVersion(opsets);
    for (const f of m.functions) {
      const k = functionKey(f.domain, f.name, f.overload);
      if (this.functions.has(k)) {
        this.problems.push({
          code: "function",
          where: `function '${functionLabel(f)}'`,
          message: "a model-local function with this domain, name and overload is defined twice",
        });
      } else this.functions.set(k, f);
    }
    this.checkFunctionCycles();
    for (const f of m.functions) this.analyzeFunction(f, opsets);
    this.analyzeGraph(m.graph, undefined, { where: "", opsets, sink: this.problems, record: true });
    return { problems: this.problems, types: this.types };
  }

  // ---- model level ----

  private opsetMap(imports: OpsetId[], owner: string, sink: Problem[]): Map<string, number> {
    const map = new Map<string, number>();
    for (const o of imports) {
      const d = normaliseDomain(o.domain);
      if (map.has(d)) {
        sink.push({
          code: "opset-import",
          where: owner,
          message: `domain '${domainLabel(d)}' is imported twice (opsets ${map.get(d)} and ${o.version})`,
        });
        continue;
      }
      if (!Number.isInteger(o.version) || o.version < 1) {
        sink.push({
          code: "opset-import",
          where: owner,
          message: `domain '${domainLabel(d)}' is imported at opset ${o.version}; opset versions start at 1`,
        });
      }
      const newest = this.registry.maxOpset(d);
      if (newest > 0 && o.version > newest) {
        sink.push({
          code: "opset-import",
          where: owner,
          message: `domain '${domainLabel(d)}' is imported at opset ${o.version}, newer than any this tool knows (${newest})`,
        });
      }
      map.set(d, o.version);
    }
    return map;
  }

  private checkIrVersion(opsets: Map<string, number>): void {
    const ir = this.model.irVersion;
    if (!ir || ir < 3) {
      this.problems.push({
        code: "ir-version",
        where: "model",
        message: `IR version ${ir || "(not set)"} is not valid: models with opset imports need IR version 3 or later`,
      });
      return;
    }
    if (ir > MAX_IR_VERSION) {
      this.problems.push({
        code: "ir-version",
        where: "model",
        message: `IR version ${ir} is newer than this tool knows (${MAX_IR_VERSION})`,
      });
    }
    const onnx = opsets.get("");
    if (onnx !== undefined) {
      const need = minIrVersionForOpset(onnx);
      if (ir < need) {
        this.problems.push({
          code: "ir-version",
          where: "model",
          message: `IR version ${ir} is too old for ai.onnx opset ${onnx}, which needs IR version ${need} or later`,
        });
      }
    }
    if (this.model.functions.length > 0 && ir < MIN_IR_VERSION_FOR_FUNCTIONS) {
      this.problems.push({
        code: "ir-version",
        where: "model",
        message: `IR version ${ir} does not allow model-local functions (they need IR version ${MIN_IR_VERSION_FOR_FUNCTIONS} or later)`,
      });
    }
  }

  private calledFunction(node: Node): Function | undefined {
    return this.functions.get(functionKey(node.domain, node.opType, node.overload));
  }

  /** A function that calls itself, directly or through others, is reported once per cycle. */
  private checkFunctionCycles(): void {
    const calls = new Map<Function, Function[]>();
    for (const f of this.functions.values()) {
      const callees: Function[] = [];
      for (const { node } of walkGraphNodes(f)) {
        const g = this.calledFunction(node);
        if (g && !callees.includes(g)) callees.push(g);
      }
      calls.set(f, callees);
    }
    const state = new Map<Function, 1 | 2>();
    const stack: Function[] = [];
    const seen = new Set<string>();
    const visit = (f: Function) => {
      state.set(f, 1);
      stack.push(f);
      for (const g of calls.get(f) ?? []) {
        const s = state.get(g);
        if (s === 1) {
          const cycle = stack.slice(stack.indexOf(g));
          const id = cycle.map(functionLabel).sort().join("\u0000");
          if (!seen.has(id)) {
            seen.add(id);
            const path = [...cycle, g].map((x) => `'${functionLabel(x)}'`).join(" -> ");
            this.problems.push({
              code: "function-cycle",
              where: `function '${functionLabel(g)}'`,
              message:
                cycle.length === 1
                  ? `the function calls itself (${path}); recursion is not allowed`
                  : `the function calls itself indirectly (${path}); recursion is not allowed`,
            });
          }
        } else if (s === undefined) visit(g);
      }
      stack.pop();
      state.set(f, 2);
    };
    for (const f of this.functions.values()) if (!state.has(f)) visit(f);
  }

  // ---- functions ----

  private analyzeFunction(f: Function, modelOpsets: Map<string, number>): void {
    const where = `function '${functionLabel(f)}'`;
    const opsets = f.opsetImports.length
      ? this.opsetMap(f.opsetImports, where, this.problems)
      : modelOpsets;
    const declared = new Set<string>();
    for (const n of [...f.attributes, ...f.attributeProtos.map((a) => a.name)]) {
      if (declared.has(n)) {
        this.problems.push({
          code: "function",
          where,
          message: `attribute '${n}' is declared twice`,
        });
      }
      declared.add(n);
    }
    this.analyzeBody(f, undefined, { where, opsets, fn: f, sink: this.problems, record: true });
  }

  /** Checks a function body; returns the types of its outputs. */
  private analyzeBody(
    f: Function,
    inputTypes: (Type | undefined)[] | undefined,
    ctx: Ctx,
  ): (Type | undefined)[] {
    const scope = new Scope();
    const vi = new Map(f.valueInfo.map((v) => [v.name, v.type] as const));
    f.inputs.forEach((name, i) => {
      this.define(
        scope,
        name,
        mergeTypes(vi.get(name), inputTypes?.[i]).type,
        "function input",
        ctx,
        ctx.where,
      );
    });
    this.analyzeNodes(f, scope, ctx, vi);
    const outs: (Type | undefined)[] = [];
    for (const name of f.outputs) {
      if (!scope.types.has(name)) {
        ctx.sink.push({
          code: "output-not-produced",
          where: ctx.where,
          message: `function output '${name}' is not produced by any node of the body`,
        });
        outs.push(undefined);
      } else outs.push(scope.type(name));
    }
    if (ctx.record) this.record(f, scope);
    return outs;
  }

  /** Output types of a call to a model-local function, from its body instantiated with the call's types. */
  private instantiate(
    f: Function,
    node: Node,
    inputTypes: (Type | undefined)[],
    ctx: Ctx,
    attr: (n: string) => Attribute | undefined,
    report: (code: ProblemCode, message: string) => void,
  ): (Type | undefined)[] {
    if (this.instStack.has(f)) return [];
    const env = new Map<string, Attribute>();
    for (const a of f.attributeProtos) env.set(a.name, a);
    for (const a of node.attributes) {
      const r = attr(a.name);
      if (r) env.set(a.name, r);
    }
    let key: string | undefined;
    try {
      key = JSON.stringify(
        [
          functionKey(f.domain, f.name, f.overload),
          inputTypes,
          [...env.values()].map((a) => [a.name, a.type, a.value]),
        ],
        (_k, v) => {
          if (typeof v === "bigint") return v.toString();
          if (v && typeof v === "object" && !Array.isArray(v) && "nodes" in v)
            throw new Error("graph");
          if (v && typeof v === "object" && "dataType" in v && "dims" in v)
            throw new Error("tensor");
          return v;
        },
      );
    } catch {
      key = undefined;
    }
    let inst = key !== undefined ? this.instCache.get(key) : undefined;
    if (!inst) {
      const opsets = new Map<string, number>();
      for (const o of f.opsetImports) opsets.set(normaliseDomain(o.domain), o.version);
      const sink: Problem[] = [];
      this.instStack.add(f);
      const outs = this.analyzeBody(f, inputTypes, {
        where: `function '${functionLabel(f)}'`,
        opsets: f.opsetImports.length ? opsets : ctx.opsets,
        fn: f,
        env,
        sink,
        record: false,
      });
      this.instStack.delete(f);
      // What the body gets wrong only with this call's types and attributes is the call's problem.
      const own = this.standaloneProblems(f, ctx);
      const problems = sink.filter((p) => !own.has(problemKey(p)));
      inst = { outs, problems };
      if (key !== undefined) this.instCache.set(key, inst);
    }
    const first = inst.problems[0];
    if (first) {
      const n = inst.problems.length;
      const more = n > 1 ? ` (and ${n - 1} more in the body)` : "";
      report(first.code, `with this call's types and attributes, ${formatProblem(first)}${more}`);
    }
    return inst.outs;
  }

  /** Problems of a function body on its own (no caller), as keys; computed once per function. */
  private standaloneProblems(f: Function, ctx: Ctx): Set<string> {
    let keys = this.standalone.get(f);
    if (!keys) {
      const opsets = new Map<string, number>();
      for (const o of f.opsetImports) opsets.set(normaliseDomain(o.domain), o.version);
      const sink: Problem[] = [];
      keys = new Set<string>();
      this.standalone.set(f, keys);
      const wasActive = this.instStack.has(f);
      this.instStack.add(f);
      this.analyzeBody(f, undefined, {
        where: `function '${functionLabel(f)}'`,
        opsets: f.opsetImports.length ? opsets : ctx.opsets,
        fn: f,
        sink,
        record: false,
      });
      if (!wasActive) this.instStack.delete(f);
      for (const p of sink) keys.add(problemKey(p));
    }
    return keys;
  }

  // ---- graphs ----

  private define(
    scope: Scope,
    name: string,
    type: Type | undefined,
    origin: string | { node: Node; index: number },
    ctx: Ctx,
    where: string | (() => string),
  ): void {
    if (name === "") return;
    if (scope.types.has(name)) {
      if (scope.inOrder && typeof origin === "object") scope.misordered = true;
      ctx.sink.push({
        code: "duplicate-value",
        where: typeof where === "string" ? where : where(),
        message: `value '${name}' is defined twice: as ${originLabel(scope.originOf(name))} and as ${originLabel(origin)}`,
      });
      return;
    }
    if (scope.parent?.has(name)) {
      ctx.sink.push({
        code: "duplicate-value",
        where: typeof where === "string" ? where : where(),
        message: `value '${name}' (${originLabel(origin)}) has the name of a value of an enclosing graph; names must be unique`,
      });
    }
    scope.types.set(name, type);
    // A node's outputs are found again when a message needs them (see Scope.originOf).
    if (typeof origin === "string") scope.origin.set(name, origin);
  }

  private record(owner: Graph | Function, scope: Scope): void {
    // The scope is complete here: its map is kept as it is unless some value has no type.
    let complete = true;
    for (const v of scope.types.values())
      if (!v) {
        complete = false;
        break;
      }
    if (complete) {
      this.types.set(owner, scope.types as Map<string, Type>);
      return;
    }
    const m = new Map<string, Type>();
    for (const [k, v] of scope.types) if (v) m.set(k, v);
    this.types.set(owner, m);
  }

  /** Checks a graph; returns the types of its outputs. `provided`: input types a node passes to a subgraph. */
  analyzeGraph(
    g: Graph,
    parent: Scope | undefined,
    ctx: Ctx,
    provided?: (Type | undefined)[],
    loose = false,
  ): (Type | undefined)[] {
    const scope = new Scope(parent);
    const gWhere = ctx.where || (g.name ? `graph '${g.name}'` : "main graph");
    if (provided && provided.length !== g.inputs.length) {
      ctx.sink.push({
        code: "bad-subgraph",
        where: gWhere,
        message: `the graph has ${g.inputs.length} inputs but the node passes it ${provided.length}`,
      });
    }
    g.inputs.forEach((v, i) => {
      let m = mergeTypes(v.type, provided?.[i]);
      const p = provided?.[i];
      if (
        m.conflict &&
        loose &&
        isTensor(v.type) &&
        isTensor(p) &&
        v.type.elemType === p.elemType
      ) {
        // Loop-carried values may change shape between iterations: the body's declaration wins.
        m = { type: v.type };
      }
      if (m.conflict) {
        ctx.sink.push({
          code: "bad-subgraph",
          where: gWhere,
          message: `input '${v.name}' is ${m.conflict.replace("inferred", "given")}`,
        });
      }
      this.define(scope, v.name, m.type, "a graph input", ctx, gWhere);
    });
    const inputNames = new Set(g.inputs.map((v) => v.name));
    const seenInit = new Set<string>();
    for (const t of g.initializers) {
      const bad = tensorDataProblem(t);
      if (bad)
        ctx.sink.push({
          code: "tensor-data",
          where: gWhere,
          message: `initializer '${t.name}' ${bad}`,
        });
      const type = tensorOf(t.dataType, [...t.dims]);
      if (inputNames.has(t.name) && !seenInit.has(t.name)) {
        // A default value for an input: the input's declared type must fit it.
        seenInit.add(t.name);
        const m = mergeTypes(scope.types.get(t.name), type);
        if (m.conflict) {
          ctx.sink.push({
            code: "type-mismatch",
            where: gWhere,
            message: `input '${t.name}' is ${m.conflict.replace("inferred", "initialized")}`,
          });
        } else scope.types.set(t.name, m.type);
        continue;
      }
      seenInit.add(t.name);
      this.define(scope, t.name, type, "an initializer", ctx, gWhere);
      const k = constFromTensor(t);
      if (k) scope.consts.set(t.name, k);
    }
    for (const s of g.sparseInitializers) {
      this.define(
        scope,
        s.values.name,
        tensorOf(s.values.dataType, [...s.dims]),
        "a sparse initializer",
        ctx,
        gWhere,
      );
    }
    const declared = new Map(g.valueInfo.map((v) => [v.name, v.type] as const));
    for (const o of g.outputs) if (o.type && !declared.has(o.name)) declared.set(o.name, o.type);
    this.analyzeNodes(g, scope, ctx, declared);
    const outs: (Type | undefined)[] = [];
    for (const o of g.outputs) {
      if (!scope.has(o.name)) {
        ctx.sink.push({
          code: "output-not-produced",
          where: gWhere,
          message: `graph output '${o.name}' is not produced: no node, input or initializer defines it`,
        });
        outs.push(o.type);
        continue;
      }
      const m = mergeTypes(o.type, scope.type(o.name));
      // Conflicts with a node's output were reported at the node; others are reported here.
      if (m.conflict && !g.nodes.some((n) => n.outputs.includes(o.name))) {
        ctx.sink.push({
          code: "type-mismatch",
          where: gWhere,
          message: `graph output '${o.name}' is ${m.conflict}`,
        });
      }
      outs.push(m.type);
    }
    if (ctx.record) this.record(g, scope);
    return outs;
  }

  private analyzeNodes(
    owner: Graph | Function,
    scope: Scope,
    ctx: Ctx,
    declared: Map<string, Type | undefined>,
  ): void {
    // Names some node defines: an input not yet defined is reported only when none does. Built
    // when first needed (an input read before its definition is rare).
    let names: Set<string> | undefined;
    const later = {
      has(name: string): boolean {
        if (!names) {
          names = new Set<string>();
          for (const n of owner.nodes) for (const o of n.outputs) if (o) names.add(o);
        }
        return names.has(name);
      },
    };
    scope.nodes = owner.nodes;
    if (this.analyzeInOrder(owner, scope, ctx, declared, later)) return;
    let order: number[];
    try {
      order = topologicalOrder(owner);
    } catch (e) {
      if (!(e instanceof OnnxError)) throw e;
      const msg = e.where ? e.message.slice(e.where.length + 2) : e.message;
      ctx.sink.push({
        code: "cycle",
        where:
          ctx.where || ("name" in owner && owner.name ? `graph '${owner.name}'` : "main graph"),
        message: msg,
      });
      order = owner.nodes.map((_, i) => i);
    }
    scope.order = order;
    for (const i of order) this.analyzeNode(owner.nodes[i]!, i, scope, ctx, declared, later);
  }

  /**
   * Most graphs are stored in order, and topologicalOrder then keeps it: the nodes are analysed
   * in their stored order while that is seen to be the order it gives, that is while no node
   * reads a value that it or a later node defines (a value not yet defined that some node
   * defines, or a node output defined twice). When one does, everything the nodes did is undone
   * (scope, problems, recorded scopes; the memos hold facts that do not depend on order) and
   * false is returned: the caller analyses them in topological order.
   */
  private analyzeInOrder(
    owner: Graph | Function,
    scope: Scope,
    ctx: Ctx,
    declared: Map<string, Type | undefined>,
    later: { has(name: string): boolean },
  ): boolean {
    const nodes = owner.nodes;
    const typesSize = scope.types.size;
    const consts = new Map(scope.consts);
    const syms = new Map(scope.syms);
    const problems = ctx.sink.length;
    const recorded = this.types.size;
    scope.order = undefined;
    scope.inOrder = true;
    scope.misordered = false;
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      // Inputs are seen to by readInputs, which stops the node at the first one ahead.
      if (hasGraphAttribute(node))
        for (const name of outerNamesUsedBy(node))
          if (!scope.types.has(name) && later.has(name)) scope.misordered = true;
      if (!scope.misordered) this.analyzeNode(node, i, scope, ctx, declared, later);
      if (!scope.misordered) continue;
      // Undo: values and scopes are dropped in the reverse of the order they were added.
      const added = [...scope.types.keys()].slice(typesSize);
      for (const name of added) scope.types.delete(name);
      scope.consts.clear();
      for (const [k, v] of consts) scope.consts.set(k, v);
      scope.syms.clear();
      for (const [k, v] of syms) scope.syms.set(k, v);
      ctx.sink.length = problems;
      const owners = [...this.types.keys()].slice(recorded);
      for (const o of owners) this.types.delete(o);
      scope.inOrder = false;
      scope.misordered = false;
      return false;
    }
    scope.inOrder = false;
    return true;
  }

  // ---- nodes ----

  /**
   * Checks one node and defines its outputs in the scope: each step below, in this order. A node
   * alike one already analysed (see memoKey) that reported nothing reuses its output types: only
   * what depends on the scope (undefined inputs, declared types, duplicate names) is redone.
   */
  private analyzeNode(
    node: Node,
    index: number,
    scope: Scope,
    ctx: Ctx,
    declared: Map<string, Type | undefined>,
    later: { has(name: string): boolean },
  ): void {
    // Built only when something is reported: most nodes have nothing to say.
    let whereText: string | undefined;
    const where = () =>
      (whereText ??= ctx.where
        ? `${ctx.where}, ${nodeLabel(node, index)}`
        : nodeLabel(node, index));
    const report: Report = (code, message) => ctx.sink.push({ code, where: where(), message });

    const at: NodeAt = { node, index, scope, ctx, where, report };

    const inputs = this.readInputs(node, scope, later, report);
    if (scope.misordered) return;
    const key = this.memoKey(node, ctx, inputs);
    const hit = key !== undefined ? this.memo.get(key) : undefined;
    if (hit) {
      this.defineOutputs(at, hit, hit.bound, true, hit.outputs, undefined, declared, hit);
      return;
    }
    const before = ctx.sink.length;
    const fn = this.calledFunction(node);
    const schema = fn
      ? undefined
      : resolveSchema(this.registry, node, ctx.opsets, ctx.fn ? "function" : "model", report);
    const opv = schema ? `${node.opType}-${schema.since}` : node.opType;
    const callee: Callee = { schema, fn, opv };
    checkAttributes(node, { schema, opv, callee: fn, within: ctx.fn }, report);
    const sig = this.checkSignature(at, callee, inputs.types);
    const inferred = this.inferOutputs(at, callee, sig, inputs);
    const outputs = this.formalOutputs(node, schema, sig.bound, inferred.outputs);
    let entry: MemoEntry | undefined;
    if (
      key !== undefined &&
      ctx.sink.length === before &&
      !inferred.outConsts.some((k) => k) &&
      !inferred.outSyms.some((k) => k)
    ) {
      entry = { schema, opv, bound: new Map(sig.bound), outputs, merged: new Map() };
      this.memo.set(key, entry);
    }
    this.defineOutputs(at, callee, sig.bound, sig.inputsTyped, outputs, inferred, declared, entry);
  }

  /**
   * A short string naming a type by its structure (every field): types alike get the same one.
   * Computed once per Type object; undefined for a type that is not plain data.
   */
  private typeKey(t: Type): string | undefined {
    let k = this.typeKeys.get(t);
    if (k === undefined) {
      const full = tensorKey(t) ?? valueKey(t);
      if (full === undefined) k = null;
      else {
        k = this.typeIds.get(full);
        if (k === undefined) this.typeIds.set(full, (k = `t${this.typeIds.size}`));
      }
      this.typeKeys.set(t, k);
    }
    return k ?? undefined;
  }

  /**
   * The memo key of a node whose analysis depends only on what the key holds, else undefined:
   * the callee (domain, op type, overload, the opsets in force), which inputs and outputs are
   * given, the input types (by structure), constant and shape values (by identity), and the
   * attributes' names, types and values. Nodes with graph or tensor attributes, attribute
   * references, or inside a function instantiation (which depends on the calls in progress) have
   * none. Rules read input names only for messages, and a node that reports is never memoised.
   */
  private memoKey(node: Node, ctx: Ctx, inputs: NodeInputs): string | undefined {
    if (this.instStack.size) return undefined;
    // Short keys (numbers for the callee and attributes, ids for types) hash fast: most fit in
    // the few characters V8 keeps flat.
    let k = String(this.calleeId(ctx.opsets, node));
    const { types, consts, syms } = inputs;
    for (let i = 0; i < node.inputs.length; i++) {
      if (node.inputs[i] === "") {
        k += "_,";
        continue;
      }
      const t = types[i];
      if (t) {
        const tk = this.typeKey(t);
        if (tk === undefined) return undefined;
        k += tk;
      } else k += "?";
      const c = consts[i];
      if (c) k += `#${objectId(c)}`;
      const s = syms[i];
      if (s) k += `$${objectId(s)}`;
      k += ",";
    }
    for (const o of node.outputs) k += o === "" ? "_" : "o";
    for (const a of node.attributes) {
      const id = this.attributeId(a);
      if (id === undefined) return undefined;
      k += `|${id}`;
    }
    return k;
  }

  /** A number for the callee of a node: its domain, op type and overload, at the opsets in force. */
  private calleeId(opsets: Map<string, number>, node: Node): number {
    let byDomain = this.calleeIds.get(opsets);
    if (!byDomain) this.calleeIds.set(opsets, (byDomain = new Map()));
    let byOp = byDomain.get(node.domain);
    if (!byOp) byDomain.set(node.domain, (byOp = new Map()));
    let byOverload = byOp.get(node.opType);
    if (!byOverload) byOp.set(node.opType, (byOverload = new Map()));
    const overload = node.overload ?? -1;
    let id = byOverload.get(overload);
    if (id === undefined) byOverload.set(overload, (id = this.nextId++));
    return id;
  }

  /**
   * A number for an attribute's name, type and value; undefined for a reference (its value
   * depends on the call) and for graphs and tensors (not keyed: data, or a scope of their own).
   */
  private attributeId(a: Attribute): number | undefined {
    if (a.refAttrName !== undefined) return undefined;
    switch (a.type) {
      case "GRAPH":
      case "GRAPHS":
      case "TENSOR":
      case "TENSORS":
      case "SPARSE_TENSOR":
      case "SPARSE_TENSORS":
        return undefined;
    }
    // Numbers and bigints key themselves (no string is one); -0 is told from 0 by valueKey.
    const raw = a.value;
    const v =
      typeof raw === "bigint" || (typeof raw === "number" && !Object.is(raw, -0))
        ? raw
        : valueKey(raw);
    if (v === undefined) return undefined;
    let byType = this.attributeIds.get(a.name);
    if (!byType) this.attributeIds.set(a.name, (byType = new Map()));
    let byValue = byType.get(a.type);
    if (!byValue) byType.set(a.type, (byValue = new Map()));
    let id = byValue.get(v);
    if (id === undefined) byValue.set(v, (id = this.nextId++));
    return id;
  }

  /** The types, constant values and known shape values of a node's inputs; reports undefined ones. */
  private readInputs(
    node: Node,
    scope: Scope,
    later: { has(name: string): boolean },
    report: Report,
  ): NodeInputs {
    const types: (Type | undefined)[] = [];
    const consts: (ConstVal | undefined)[] = [];
    const syms: (Dim[] | undefined)[] = [];
    for (const name of node.inputs) {
      const owner = name === "" ? undefined : scope.owner(name);
      if (owner !== scope && scope.inOrder && name !== "" && later.has(name)) {
        // Defined by this or a later node: not the order topologicalOrder gives.
        scope.misordered = true;
        break;
      }
      if (!owner) {
        if (name !== "" && !later.has(name)) {
          report(
            "undefined-value",
            `input '${name}' is not defined: no graph input, initializer or node output has this name`,
          );
        }
        types.push(undefined);
        consts.push(undefined);
        syms.push(undefined);
        continue;
      }
      types.push(owner.types.get(name));
      // Most values are neither constants nor shapes: skip the lookups while there are none.
      consts.push(owner.consts.size ? owner.consts.get(name) : undefined);
      syms.push(owner.syms.size ? owner.syms.get(name) : undefined);
    }
    return { types, consts, syms };
  }

  /** Counts of inputs and outputs, and the input types against the type constraints. */
  private checkSignature(
    { node, report }: NodeAt,
    { schema, fn, opv }: Callee,
    inTypes: (Type | undefined)[],
  ): Signature {
    const bound: Bindings = new Map();
    if (!schema) {
      if (fn) checkCallArity(node, fn, report);
      return { bound, arityOk: true, inputsTyped: true };
    }
    // A node with the wrong number of inputs gets no op-specific inference.
    const arityOk = checkArity(schema, opv, node.inputs, "input", report);
    checkArity(schema, opv, node.outputs, "output", report);
    // Outputs are checked against the constraints only when the inputs were fine: one wrong
    // input is one problem, not one more per output that inherits its type.
    let inputsTyped = true;
    node.inputs.forEach((name, i) => {
      const formal = formalAt(schema.inputs, i);
      if (formal && name !== "")
        inputsTyped =
          checkFormalType(schema, opv, formal, name, inTypes[i], "input", bound, report) &&
          inputsTyped;
    });
    return { bound, arityOk, inputsTyped };
  }

  /**
   * Output types (with constant and known shape values): the op's rule, or the function's body
   * instantiated for the call; subgraphs the rule did not check are checked here. Formal types
   * and bound variables of the schema fill in what the rule left open (see defineOutputs).
   */
  private inferOutputs(
    { node, scope, ctx, where, report }: NodeAt,
    { schema, fn }: Callee,
    { arityOk }: Signature,
    inputs: NodeInputs,
  ): Inferred {
    const attrOf = (name: string): Attribute | undefined => {
      const a = node.attributes.find((x) => x.name === name);
      if (!a || a.refAttrName === undefined || !ctx.env) return a;
      return resolveRef(a, ctx.env.get(a.refAttrName));
    };
    const out: Inferred = { outputs: [], outConsts: [], outSyms: [] };
    const visited: string[] = [];
    const childWhere = (name: string) => `${where()} ${name}`;
    const rule = schema && normaliseDomain(node.domain) === "" && arityOk && RULES.get(node.opType);
    if (schema && rule) {
      rule({
        node,
        schema,
        inputs: inputs.types,
        consts: inputs.consts,
        syms: inputs.syms,
        ...out,
        attr: attrOf,
        error: report,
        subgraph: (name, types, loose) => {
          const a = node.attributes.find((x) => x.name === name);
          if (!a || a.type !== "GRAPH" || !a.value) return undefined;
          visited.push(name);
          return this.analyzeGraph(
            a.value,
            scope,
            { ...ctx, where: childWhere(name) },
            types,
            loose,
          );
        },
      });
    } else if (!schema && fn) {
      out.outputs = this.instantiate(fn, node, inputs.types, ctx, attrOf, report).slice(
        0,
        node.outputs.length,
      );
    }
    for (const a of node.attributes) {
      if (visited.includes(a.name)) continue;
      for (const g of attributeGraphs(a))
        this.analyzeGraph(g, scope, { ...ctx, where: childWhere(a.name) });
    }
    return out;
  }

  /**
   * The inferred output types with what the rule left open filled in from the schema: formal
   * types, and the types bound to the constraint variables by the inputs. Changes `outputs`.
   */
  private formalOutputs(
    node: Node,
    schema: OpVersion | undefined,
    bound: Bindings,
    outputs: (Type | undefined)[],
  ): (Type | undefined)[] {
    if (schema) {
      node.outputs.forEach((_, i) => {
        const formal = formalAt(schema.outputs, i);
        if (!formal) return;
        // Each argument of a heterogeneous variadic has its own type: the bound one says nothing.
        const own = formal.option === "variadic" && formal.homogeneous === false;
        const generic = formal.type.includes("(")
          ? parseTypeString(formal.type)
          : !own && bound.has(formal.type)
            ? parseTypeString(bound.get(formal.type)!.ts)
            : undefined;
        const r = outputs[i];
        if (!r) outputs[i] = generic;
        else if (isTensor(r) && !r.elemType && isTensor(generic))
          outputs[i] = { ...r, elemType: generic.elemType };
      });
    }
    return outputs;
  }

  /**
   * Defines the node's outputs, reconciled with their declared types and the schema's
   * constraints. `entry`: the node's memo entry (found, or made for it): when the declared
   * types of the outputs are alike ones for which that reported nothing, the outputs are
   * defined with the types it gave then.
   */
  private defineOutputs(
    at: NodeAt,
    { schema, opv }: { schema?: OpVersion; opv: string },
    bound: Bindings,
    inputsTyped: boolean,
    outputs: (Type | undefined)[],
    inferred: Inferred | undefined,
    declared: Map<string, Type | undefined>,
    entry?: MemoEntry,
  ): void {
    const { node, scope, ctx, where, report } = at;
    // The declared types of the outputs, as a key: "" when there are none, else typeKeys ("-"
    // for none), each followed by ",".
    let dk: string | undefined;
    if (entry) {
      dk = "";
      for (let i = 0; i < node.outputs.length; i++) {
        const name = node.outputs[i]!;
        const d = name === "" ? undefined : declared.get(name);
        if (d === undefined) continue;
        const k = this.typeKey(d);
        if (k === undefined) {
          dk = undefined;
          break;
        }
        // The first declared one: the outputs before it had none.
        if (dk === "") for (let j = 0; j < i; j++) dk += "-,";
        dk += `${k},`;
        for (let j = i + 1; j < node.outputs.length; j++) {
          const n = node.outputs[j]!;
          const dj = n === "" ? undefined : declared.get(n);
          const kj = dj === undefined ? "-" : this.typeKey(dj);
          if (kj === undefined) {
            dk = undefined;
            break;
          }
          dk += `${kj},`;
        }
        break;
      }
      const merged = dk !== undefined ? entry.merged.get(dk) : undefined;
      if (merged) {
        for (let i = 0; i < node.outputs.length; i++) {
          const name = node.outputs[i]!;
          if (name !== "") this.define(scope, name, merged[i], at, ctx, where);
        }
        return;
      }
      // The entry's bindings are shared: the output checks below may add to a copy.
      if (bound === entry.bound) bound = new Map(bound);
    }
    let clean = true;
    const types: (Type | undefined)[] = [];
    node.outputs.forEach((name, i) => {
      if (name === "") return;
      const before = ctx.sink.length;
      const m = mergeTypes(declared.get(name), outputs[i]);
      if (m.conflict) report("type-mismatch", `output '${name}' is ${m.conflict}`);
      else if (schema) {
        const formal = formalAt(schema.outputs, i);
        if (formal && (inputsTyped || !outputs[i]))
          checkFormalType(schema, opv, formal, name, m.type, "output", bound, report);
      }
      if (ctx.sink.length !== before) clean = false;
      types[i] = m.type;
      this.define(scope, name, m.type, at, ctx, where);
      const k = inferred?.outConsts[i];
      if (k && scope.types.get(name) === m.type) scope.consts.set(name, k);
      const sy = inferred?.outSyms[i];
      if (sy && scope.types.get(name) === m.type) scope.syms.set(name, sy);
    });
    if (entry && dk !== undefined && clean) entry.merged.set(dk, types);
  }
}

/** The node being checked, where it is, and how to report at it. */
interface NodeAt {
  node: Node;
  index: number;
  scope: Scope;
  ctx: Ctx;
  where: () => string;
  report: Report;
}

/** What the node calls: a schema version or a model-local function (or neither, when unresolved). */
interface Callee {
  schema?: OpVersion;
  fn?: Function;
  /** How it is named in messages ("Op-13", or the op type when unresolved). */
  opv: string;
}

interface NodeInputs {
  types: (Type | undefined)[];
  consts: (ConstVal | undefined)[];
  syms: (Dim[] | undefined)[];
}

interface Signature {
  /** Type-constraint variables bound by the inputs. */
  bound: Bindings;
  /** The input count fits the schema (else the op's rule is not run). */
  arityOk: boolean;
  /** Every input's type fits its constraint (else outputs are not checked against theirs). */
  inputsTyped: boolean;
}

/** What inference found for a node's outputs (filled by the op's rule). */
interface Inferred {
  outputs: (Type | undefined)[];
  outConsts: (ConstVal | undefined)[];
  outSyms: (Dim[] | undefined)[];
}

/** What a node alike others was found to have (see Analyzer.memoKey). */
interface MemoEntry {
  schema?: OpVersion;
  opv: string;
  /** The constraint variables as the inputs bound them (not changed: copied for each use). */
  bound: Bindings;
  /** Output types, formal fill-in included (shared by every node served from the entry). */
  outputs: (Type | undefined)[];
  /**
   * Declared output types (typeKeys, "-" for none, each followed by ",") for which the merge
   * and the output checks reported nothing → the outputs' types then.
   */
  merged: Map<string, (Type | undefined)[]>;
}

const objectIds = new WeakMap<object, number>();
let nextObjectId = 0;

/** A number naming an object (a constant value, an opset map) for memo keys. */
function objectId(o: object): number {
  let id = objectIds.get(o);
  if (id === undefined) objectIds.set(o, (id = nextObjectId++));
  return id;
}

/**
 * A short key for the usual type, a tensor type with fields kind, elemType and maybe shape (in
 * that order, as valueKey keys fields in order), e.g. "T1:4,?,s5:batch,"; else undefined. No
 * valueKey starts with "T" or "S".
 */
function tensorKey(t: Type): string | undefined {
  if (t.kind !== "tensor" && t.kind !== "sparse_tensor") return undefined;
  if (Object.getPrototypeOf(t) !== Object.prototype) return undefined;
  let n = 0;
  for (const f in t) {
    if (f !== (n === 0 ? "kind" : n === 1 ? "elemType" : n === 2 ? "shape" : undefined))
      return undefined;
    n++;
  }
  const e = t.elemType;
  if (n < 2 || typeof e !== "number" || Object.is(e, -0)) return undefined;
  let k = `${t.kind === "tensor" ? "T" : "S"}${e}`;
  if (n === 2) return k;
  const shape = t.shape;
  if (!Array.isArray(shape)) return undefined;
  k += ":";
  for (const d of shape) {
    if (d === null) k += "?,";
    else if (typeof d === "number" && !Object.is(d, -0)) k += `${d},`;
    else if (typeof d === "string") k += `s${d.length}:${d},`;
    else return undefined;
  }
  return k;
}

/**
 * An unambiguous string for plain data (numbers, bigints, strings, booleans, null, undefined,
 * arrays and plain objects, fields in their order); undefined for anything else.
 */
function valueKey(v: unknown): string | undefined {
  switch (typeof v) {
    case "number":
      return Object.is(v, -0) ? "d-0" : `d${v}`;
    case "bigint":
      return `b${v}`;
    case "string":
      return `s${v.length}:${v}`;
    case "boolean":
      return v ? "t" : "f";
    case "undefined":
      return "u";
    case "object": {
      if (v === null) return "n";
      if (Array.isArray(v)) {
        let k = "[";
        for (const x of v) {
          const e = valueKey(x);
          if (e === undefined) return undefined;
          k += `${e},`;
        }
        return `${k}]`;
      }
      if (Object.getPrototypeOf(v) !== Object.prototype) return undefined;
      let k = "{";
      for (const f of Object.keys(v)) {
        const e = valueKey((v as Record<string, unknown>)[f]);
        if (e === undefined) return undefined;
        k += `${f.length}:${f}=${e},`;
      }
      return `${k}}`;
    }
    default:
      return undefined;
  }
}

const problemKey = (p: Problem) => `${p.code}\u0000${p.where}\u0000${p.message}`;

/** Checks and infers a whole model. */
export function analyzeModel(model: Model, opts: AnalyzeOptions): Analysis {
  return new Analyzer(model, opts).run();
}
