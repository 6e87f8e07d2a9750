// The walk the schema passes share: every node of the main graph, of its If/Loop/Scan bodies at
// any depth, and of the local functions, asked whether it is a call to replace; a call replaced
// by nodes, and those nodes walked in turn (callee-first within each body, with their own types:
// the caller's types for the call's inputs, the checker's inference for the rest), so that a body
// holding a function op (Celu's body calls Elu) is expanded all the way down in one pass, with no
// rounds and no limit on depth.
//
// Which calls: schema function ops (hasFunctionBody) in expand-schema-functions; older versions
// of ops whose later version is a function (ReduceLogSum-13, through 18) in lower-older-versions,
// and inside bodies in both. Local functions are not replaced here (inline-local-functions).

import { nodeLabel, OnnxError } from "../errors.js";
import { inferScopeTypes, modelFunctions } from "../check/index.js";
import { graph } from "../ir/builder.js";
import { attributeGraphs, someGraphNode } from "../ir/traverse.js";
import type { Function, Graph, MetadataProps, Model, Node, Type, ValueInfo } from "../ir/types.js";
import { callPrefix, inlineBody, type BodyNodes } from "../inline/inline.js";
import { markRecord, originRecord, schemaFunctionName } from "../inline/origin.js";
import type { Note, Pass, PassContext } from "../passes/pass.js";
import { hasFunctionBody, type FunctionBody } from "../schema/body.js";
import { normaliseDomain, type SchemaRegistry } from "../schema/registry.js";
import type { OpVersion } from "../schema/types.js";
import { biggest, budgetNotes, tally, type Contributor } from "./bounds.js";
import {
  convertOpset,
  expandedNote,
  type FunctionTable,
  functionOpsets,
  functionWhere,
  makeUnit,
  Notes,
  noteFailures,
  opsetMap,
  rewriteNodes,
  Selection,
  withImports,
  type ExpandOptions,
  type OpsetConverter,
  type ScopeTypes,
  type Unit,
} from "./context.js";
import { callInputs, fitOpsets, fitsAsIs, lowerByConversion, type FitContext } from "./fit.js";
import { bodyArity, bodyNodes, callBody } from "./inline.js";
import { opName } from "./select.js";

/** Which kinds of call a walk replaces: at the top (the model's own nodes), and inside bodies. */
export interface Kinds {
  schema: boolean;
  older: boolean;
}

export interface WalkResult {
  model: Model;
  modified: boolean;
  notes: Note[];
  /** Calls replaced, nested ones included. */
  calls: number;
}

/** A body with the calls inside it expanded: how many, and the imports they need. */
interface Expanded {
  body: BodyNodes;
  calls: number;
  added: Map<string, number>;
}

type Plan = { kind: "schema"; op: OpVersion } | { kind: "older"; op: OpVersion; later: OpVersion };

/** Attribute types whose values make a cache key (no graphs or tensors). */
const PLAIN_ATTRIBUTE = new Set(["INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS"]);

/** Each type's part of a body key, made once per type object (calls in a chain share them). */
const typeKeys = new WeakMap<Type, string>();
function typeKey(t: Type): string {
  let k = typeKeys.get(t);
  if (k === undefined) {
    k =
      t.kind === "tensor" && t.denotation === undefined && !t.dimDenotations
        ? `${t.elemType}${t.shape ? `[${t.shape.map((d) => (typeof d === "string" ? JSON.stringify(d) : String(d))).join(",")}]` : ""}`
        : JSON.stringify(t);
    typeKeys.set(t, k);
  }
  return k;
}

/**
 * What a call's body depends on, as a string: the op, its input types, its plain attribute
 * values and which of `inputs`/`outputs` formals the call gives (a 1 or 0 each); undefined when
 * an attribute holds a graph or tensor.
 */
function bodyKey(
  op: OpVersion,
  call: Node,
  typeOf: (name: string) => Type | undefined,
  inputs: number,
  outputs: number,
): string | undefined {
  let key = `${op.name}-${op.since}`;
  for (const name of call.inputs) {
    const t = name === "" ? undefined : typeOf(name);
    key += t === undefined ? "|?" : `|${typeKey(t)}`;
  }
  for (const a of call.attributes) {
    if (!PLAIN_ATTRIBUTE.has(a.type)) return undefined;
    const v = a.value;
    const text = Array.isArray(v)
      ? JSON.stringify(v.map((x) => (typeof x === "bigint" ? String(x) : x)))
      : typeof v === "string"
        ? JSON.stringify(v)
        : String(v);
    key += `|${a.name}:${a.type}=${a.refAttrName !== undefined ? `@${a.refAttrName}` : text}`;
  }
  key += "|in:";
  for (let i = 0; i < inputs; i++) key += (call.inputs[i] ?? "") !== "" ? "1" : "0";
  key += "|out:";
  for (let i = 0; i < outputs; i++) key += (call.outputs[i] ?? "") !== "" ? "1" : "0";
  return key;
}

/**
 * Whether two calls of one op have the same body key (bodyKey): the same inputs and outputs
 * given, input types (those of `a` given: `aTypes`), and plain attributes with equal values.
 * False when unsure.
 */
function alike(
  a: Node,
  aTypes: (Type | undefined)[],
  b: Node,
  typeOf: (name: string) => Type | undefined,
): boolean {
  if (a.inputs.length !== b.inputs.length || a.outputs.length !== b.outputs.length) return false;
  for (let i = 0; i < a.inputs.length; i++) {
    const x = a.inputs[i]!;
    const y = b.inputs[i]!;
    if ((x === "") !== (y === "")) return false;
    if (x === "" || x === y) continue;
    const s = aTypes[i];
    const t = typeOf(y);
    if (s !== t && (s === undefined || t === undefined || typeKey(s) !== typeKey(t))) return false;
  }
  for (let i = 0; i < a.outputs.length; i++)
    if ((a.outputs[i] === "") !== (b.outputs[i] === "")) return false;
  const p = a.attributes;
  const q = b.attributes;
  if (p.length !== q.length) return false;
  for (let i = 0; i < p.length; i++) {
    const x = p[i]!;
    const y = q[i]!;
    // As bodyKey: a graph or tensor makes no key, so its call shares no body.
    if (!PLAIN_ATTRIBUTE.has(x.type)) return false;
    if (x === y) continue;
    if (x.name !== y.name || x.type !== y.type || x.refAttrName !== y.refAttrName) return false;
    const u = x.value;
    const v = y.value;
    if (u === v) continue;
    if (!Array.isArray(u) || !Array.isArray(v) || u.length !== v.length) return false;
    for (let k = 0; k < u.length; k++) if (u[k] !== v[k]) return false;
  }
  return true;
}

/** Replaces the calls of the given kinds in a model. Never mutates its input. */
export class Walker {
  private readonly registry: SchemaRegistry;
  private readonly selection: Selection;
  private readonly functions: FunctionTable;
  private readonly converter?: OpsetConverter;
  private readonly fit: FitContext;
  private readonly notes = new Notes();
  private calls = 0;
  private analysis: ScopeTypes | undefined;
  /** The checker's types of the model (inferred once, when a call first needs them). */
  private readonly types = (): ScopeTypes =>
    (this.analysis ??= inferScopeTypes(this.model, { registry: this.registry }) as ScopeTypes);
  /** The units of the main graph and the local functions, shared by count() and run(). */
  private readonly units = new Map<Graph | Function, Unit>();
  /** Nodes of each expanded body, subgraphs included (count()). */
  private readonly sizes = new WeakMap<Node[], number>();
  private readonly bodies = new Map<string, FunctionBody>();
  /** The body expandCall last replaced a schema call by, in which unit, and what it found. */
  private lastCall:
    | { body: FunctionBody; unit: Unit; formal: BodyNodes; fits: boolean; done?: Expanded }
    | undefined;
  /** The call body() last made or found a body for. */
  private last:
    | {
        op: OpVersion;
        typeOf: Unit["typeOf"];
        call: Node;
        types: (Type | undefined)[];
        body: FunctionBody;
      }
    | undefined;
  /** count() found no call to replace: run() has nothing to do. */
  private nonePlanned = false;
  /** The size callSize() last found, and what it depends on. */
  private lastSize:
    { body: FunctionBody; unit: Unit; plan: Plan; constant: boolean; n: number } | undefined;
  /** How origins name each op's body (mark()). */
  private readonly originNames = new Map<OpVersion, { domain: string; name: string }>();
  /** Per unit, one whose imports added are dropped (count() expands bodies without adding). */
  private readonly scratch = new WeakMap<Unit, Unit>();
  /**
   * The calls count() found a body for, per unit, in the order it met them, and their bodies:
   * run() meets the calls in the same order (subgraphs aside) and takes each one's body with no
   * lookup; a call met out of that order finds its body again (body()).
   */
  private readonly counted = new WeakMap<
    Unit,
    { nodes: Node[]; bodies: FunctionBody[]; next: number }
  >();
  private readonly expanded = new WeakMap<FunctionBody, WeakMap<Map<string, number>, Expanded>>();
  /** Per opset map, domain and op type: the plan (schema ops are decided once each). */
  private readonly plans = new WeakMap<
    Map<string, number>,
    Map<string, Map<string, { plan: Plan | undefined }>>
  >();

  constructor(
    private readonly model: Model,
    private readonly options: ExpandOptions,
    private readonly ctx: PassContext,
    private readonly top: Kinds,
    private readonly nested: Kinds,
  ) {
    this.registry = ctx.registry;
    this.selection = new Selection(options, this.registry);
    this.functions = modelFunctions(model, this.registry);
    if (options.converter !== null) this.converter = options.converter ?? convertOpset;
    this.fit = {
      ctx,
      functions: this.functions,
      irVersion: model.irVersion,
      ...(this.converter ? { converter: this.converter } : {}),
    };
  }

  /** The unit of the main graph or of a local function (made once). */
  private unitOf(owner: Graph | Function): Unit {
    let unit = this.units.get(owner);
    if (!unit) {
      const modelOpsets = opsetMap(this.model.opsetImports);
      unit =
        owner === this.model.graph
          ? makeUnit("graph", owner, modelOpsets, this.types)
          : makeUnit(
              functionWhere(owner as Function),
              owner,
              functionOpsets(owner as Function, modelOpsets),
              this.types,
            );
      this.units.set(owner, unit);
    }
    return unit;
  }

  /**
   * The nodes the walk's result will have, counted before any call is replaced, and the op whose
   * calls make the most of them (the bound, bounds.ts). A call counts as its body instantiated
   * for its key (op version, input types, plain attributes), with the calls inside expanded as
   * run() will (the expanded body is cached, so run() reuses it). Estimates: a call whose body
   * needs converting or has constant inputs counts its body's own nodes; an older version counts
   * the body of the version it is lowered through.
   */
  count(): { total: number; top?: Contributor } {
    // Per plan first (plans are shared by the calls of one op), then by the op's name.
    const byPlan = new Map<Plan, { domain: string; calls: number; nodes: number }>();
    let total = 0;
    for (const owner of [this.model.graph, ...this.model.functions]) {
      const unit = this.unitOf(owner);
      someGraphNode(owner, (node, _, index) => {
        const plan = this.plan(node, unit.opsets, this.top);
        if (!plan) {
          total += 1;
          return;
        }
        const n = this.callSize(
          node,
          plan,
          unit,
          () => `${unit.where} > ${nodeLabel(node, index)}`,
        );
        total += n;
        const c = byPlan.get(plan);
        if (c) {
          c.calls++;
          c.nodes += n;
        } else byPlan.set(plan, { domain: normaliseDomain(node.domain), calls: 1, nodes: n });
      });
    }
    const by = new Map<string, Contributor>();
    this.nonePlanned = byPlan.size === 0;
    for (const [plan, c] of byPlan)
      tally(by, opName(c.domain, plan.op.name, plan.op.since), c.calls, c.nodes);
    const top = biggest(by.values());
    return { total, ...(top ? { top } : {}) };
  }

  /** How many nodes replacing one call puts in (count()). */
  private callSize(node: Node, plan: Plan, unit: Unit, where: () => string): number {
    const op = plan.kind === "schema" ? plan.op : plan.later;
    let nodes: Node[];
    let same: { body: FunctionBody; unit: Unit; plan: Plan; constant: boolean } | undefined;
    try {
      const body = this.body(op, node, unit);
      if (plan.kind === "schema") {
        let known = this.counted.get(unit);
        if (!known) this.counted.set(unit, (known = { nodes: [], bodies: [], next: 0 }));
        known.nodes.push(node);
        known.bodies.push(body);
      }
      const constant = node.inputs.some((x) => x !== "" && unit.constant(x));
      // A call like the last one counted (a chain) has its size.
      const last = this.lastSize;
      if (
        last &&
        last.body === body &&
        last.unit === unit &&
        last.plan === plan &&
        last.constant === constant
      )
        return last.n;
      same = { body, unit, plan, constant };
      const formal = bodyNodes(op, body);
      nodes = formal.nodes;
      if (plan.kind === "schema" && !constant && fitsAsIs(body.opsetImports, unit.opsets, true)) {
        let scratch = this.scratch.get(unit);
        if (!scratch) this.scratch.set(unit, (scratch = { ...unit, added: new Map() }));
        nodes = this.expandedBody(formal, body, node, scratch, where).body.nodes;
      }
    } catch (e) {
      // The run reports what fails here (on the node); as a count, the call stays one node.
      if (e instanceof OnnxError || plan.kind === "older") return 1;
      throw e;
    }
    let n = this.sizes.get(nodes);
    if (n === undefined) {
      n = 0;
      someGraphNode({ nodes } as Graph, () => void n!++);
      this.sizes.set(nodes, n);
    }
    this.lastSize = { ...same, n };
    return n;
  }

  run(): WalkResult {
    const model = this.model;
    if (this.nonePlanned)
      return { model, modified: false, notes: this.notes.list, calls: this.calls };
    const main = this.unitOf(model.graph);
    const nodes = this.expandNodes(model.graph.nodes, main, "graph", this.top);
    let functionsChanged = false;
    const functions = model.functions.map((f) => {
      const unit = this.unitOf(f);
      const fnodes = this.expandNodes(f.nodes, unit, functionWhere(f), this.top);
      if (!fnodes) return f;
      functionsChanged = true;
      const g = { ...f, nodes: fnodes };
      if (unit.added.size)
        g.opsetImports = withImports(
          f.opsetImports.length ? f.opsetImports : model.opsetImports,
          unit.added,
        );
      return g;
    });
    const modified = Boolean(nodes) || functionsChanged || main.added.size > 0;
    const out: Model = modified
      ? {
          ...model,
          graph: nodes ? { ...model.graph, nodes } : model.graph,
          functions: functionsChanged ? functions : model.functions,
          opsetImports: main.added.size
            ? withImports(model.opsetImports, main.added)
            : model.opsetImports,
        }
      : model;
    return { model: out, modified, notes: this.notes.list, calls: this.calls };
  }

  // ---- what to replace ----

  private plan(node: Node, opsets: Map<string, number>, kinds: Kinds): Plan | undefined {
    if (this.functions.size && this.functions.called(node)) return undefined;
    // Runs of nodes of one op (a chain) decide once.
    const last = this.lastPlan;
    let p: Plan | undefined;
    if (last.opsets === opsets && last.opType === node.opType && last.domain === node.domain)
      p = last.plan;
    else {
      p = this.cachedPlan(node, opsets);
      last.opsets = opsets;
      last.opType = node.opType;
      last.domain = node.domain;
      last.plan = p;
    }
    return p && kinds[p.kind] ? p : undefined;
  }
  private readonly lastPlan: {
    opsets: Map<string, number> | undefined;
    domain: string;
    opType: string;
    plan: Plan | undefined;
  } = { opsets: undefined, domain: "", opType: "", plan: undefined };

  private cachedPlan(node: Node, opsets: Map<string, number>): Plan | undefined {
    // Schema ops: one decision per (domain, op, opset); lookups of strings the model holds.
    let byDomain = this.plans.get(opsets);
    if (!byDomain) this.plans.set(opsets, (byDomain = new Map()));
    let byOp = byDomain.get(node.domain);
    if (!byOp) byDomain.set(node.domain, (byOp = new Map()));
    let cached = byOp.get(node.opType);
    if (cached === undefined) {
      const domain = normaliseDomain(node.domain);
      const opset = opsets.get(domain);
      cached = {
        plan: opset === undefined ? undefined : this.schemaPlan(domain, node.opType, opset),
      };
      byOp.set(node.opType, cached);
    }
    return cached.plan;
  }

  private schemaPlan(domain: string, opType: string, opset: number): Plan | undefined {
    const op = this.registry.tryResolve(domain, opType, opset);
    if (!op || !this.selection.has(domain, opType, op.since)) return undefined;
    if (hasFunctionBody(op)) return { kind: "schema", op };
    const later = this.registry
      .versions(domain, opType)
      .find((v) => v.since > op.since && (v.function || v.body !== undefined));
    if (later && hasFunctionBody(later)) return { kind: "older", op, later };
    if (
      op.function &&
      (this.top.schema || this.nested.schema) &&
      this.selection.only === undefined &&
      this.selection.target === undefined
    )
      this.notes.once(`nobody:${op.name}-${op.since}`, {
        level: "warning",
        message: `${opName(domain, op.name, op.since)} is a function op, but no body for it is known yet: left as it is`,
      });
    return undefined;
  }

  /** Whether any node (at any depth) of a list is to be replaced. */
  private anyPlanned(nodes: Node[], opsets: Map<string, number>, kinds: Kinds): boolean {
    for (const n of nodes) {
      const p = this.plan(n, opsets, kinds);
      if (p && (p.kind !== "older" || this.converter)) return true;
      for (const a of n.attributes)
        for (const g of attributeGraphs(a))
          if (this.anyPlanned(g.nodes, opsets, kinds)) return true;
    }
    return false;
  }

  // ---- walking ----

  /** The nodes with their calls replaced; undefined when nothing changed. */
  private expandNodes(nodes: Node[], unit: Unit, where: string, kinds: Kinds): Node[] | undefined {
    return rewriteNodes(nodes, where, (node, label) => {
      const plan = this.plan(node, unit.opsets, kinds);
      if (!plan) return undefined;
      const named = this.selection.only !== undefined;
      return noteFailures(this.notes, named, () => this.expandCall(node, plan, unit, label), label);
    });
  }

  // ---- one call ----

  private expandCall(node: Node, plan: Plan, unit: Unit, where: () => string): Node[] | undefined {
    let nodes: Node[];
    if (plan.kind === "schema") {
      const op = plan.op;
      // count() found it (in one unit, a node's plan is the same for count() and run()).
      const known = this.counted.get(unit);
      const body =
        known && known.nodes[known.next] === node
          ? known.bodies[known.next++]!
          : this.body(op, node, unit);
      // What depends only on the body and the unit, kept while calls in a row share them.
      let same = this.lastCall;
      if (!same || same.body !== body || same.unit !== unit) {
        const formal = bodyNodes(op, body);
        const fits = fitsAsIs(body.opsetImports, unit.opsets, true);
        this.lastCall = same = { body, unit, formal, fits, done: undefined };
      }
      const formal = same.formal;
      // The common case: a body that needs no conversion, and a call without constant inputs
      // (whose values inference could use): the calls inside are expanded once per body, in
      // terms of its formals.
      if (same.fits && !node.inputs.some((x) => x !== "" && unit.constant(x))) {
        // Once per body and unit (expandedBody keeps it per body and opsets, and adds the
        // imports it needs to the unit the first time).
        const done = (same.done ??= this.expandedBody(formal, body, node, unit, where));
        this.calls += 1 + done.calls;
        // Nodes that carry no origin of their own are given the call's as they are made.
        const record = this.originRecord(node, op);
        const out = inlineBody(
          node,
          done.body,
          unit.scope(),
          callPrefix(node, op.name),
          record ? { record } : {},
        );
        if (record) markRecord(out, record);
        return out;
      }
      nodes = inlineBody(node, formal, unit.scope(), callPrefix(node, op.name));
      this.mark(nodes, node, op);
      nodes = fitOpsets(this.fit, node, nodes, body.opsetImports, unit, true);
    } else {
      const domain = normaliseDomain(node.domain);
      if (!this.converter || domain !== "") {
        this.notes.once(`older:${where()}`, {
          level: "warning",
          where: where(),
          message: `${opName(domain, plan.op.name, plan.op.since)} is not a function; it expands through ${opName(domain, plan.later.name, plan.later.since)}, which needs the opset converter: left as it is`,
        });
        return undefined;
      }
      nodes = lowerByConversion(this.fit, node, plan.later, unit, {
        // The op expanded at its later version is this call: its nodes are marked once, below.
        up: (m) => {
          const r = this.sub(m, { only: [{ domain, op: plan.op.name }], origin: false }, BOTH);
          const error = r.notes.find((n) => n.level === "error");
          if (error) throw new OnnxError("E_UNSUPPORTED", error.message);
          return r.model;
        },
        // What the lowered body holds is replaced as inside any body (the nested kinds).
        down: (m) => {
          const r = this.sub(m, this.options, this.nested);
          for (const n of r.notes) this.notes.push(n);
          this.calls += r.calls;
          return { model: r.model, added: new Map() };
        },
      });
      this.calls++;
      this.mark(nodes, node, plan.op);
      return nodes;
    }
    this.calls++;
    return this.expandInside(node, nodes, unit, where);
  }

  /** Nodes just put in for a call of `op` marked with their origin (unless turned off). */
  private mark(nodes: Node[], call: Node, op: OpVersion): void {
    const record = this.originRecord(call, op);
    if (record) markRecord(nodes, record);
  }

  /** The origin record of the nodes a call of `op` puts in (originRecord); none when turned off. */
  private originRecord(call: Node, op: OpVersion): MetadataProps | undefined {
    if (this.options.origin === false) return undefined;
    const domain = normaliseDomain(call.domain);
    let named = this.originNames.get(op);
    if (named?.domain !== domain)
      this.originNames.set(
        op,
        (named = { domain, name: schemaFunctionName(domain, op.name, op.since) }),
      );
    return originRecord(call, named.name);
  }

  /** A walk of another model (a lowered node) with these options. */
  private sub(model: Model, options: ExpandOptions, kinds: Kinds): WalkResult {
    const opts: ExpandOptions = { ...options };
    if (this.options.origin === false) opts.origin = false;
    if (this.options.preferLoops !== undefined) opts.preferLoops = this.options.preferLoops;
    if (this.options.converter !== undefined) opts.converter = this.options.converter;
    return new Walker(model, opts, this.ctx, kinds, kinds).run();
  }

  /**
   * The calls inside a replacement replaced in turn (callee-first: before the walk goes on).
   * Its values are typed by inferring the replacement alone, its inputs typed as in the caller.
   */
  private expandInside(call: Node, nodes: Node[], unit: Unit, where: () => string): Node[] {
    const opsets = unit.added.size ? new Map([...unit.added, ...unit.opsets]) : unit.opsets;
    if (!this.anyPlanned(nodes, opsets, this.nested)) return nodes;
    const { inputs, initializers } = callInputs(call, unit);
    const g = graph({
      nodes,
      inputs,
      initializers,
      outputs: call.outputs.filter((o) => o !== "").map((name) => ({ name })),
    });
    let own: ScopeTypes | undefined;
    const types = (): ScopeTypes => (own ??= this.typesOf(g, opsets));
    const inner = makeUnit(unit.where, g, opsets, types);
    const body: Unit = {
      ...inner,
      added: unit.added,
      scope: unit.scope,
      typeOf: (name) => inner.typeOf(name) ?? unit.typeOf(name),
      constant: unit.constant,
    };
    return this.expandNodes(nodes, body, where(), this.nested) ?? nodes;
  }

  /**
   * A schema body with the calls it holds expanded (callee-first), in terms of its formals: its
   * inputs typed as the call's, the rest inferred. Once per body (bodies are shared by calls
   * with the same op, input types and plain attributes) and opset map.
   */
  private expandedBody(
    formal: BodyNodes,
    body: FunctionBody,
    call: Node,
    unit: Unit,
    where: () => string,
  ): Expanded {
    let byOpsets = this.expanded.get(body);
    if (!byOpsets) this.expanded.set(body, (byOpsets = new WeakMap()));
    let e = byOpsets.get(unit.opsets);
    if (!e) {
      if (!this.anyPlanned(formal.nodes, unit.opsets, this.nested))
        e = { body: formal, calls: 0, added: new Map() };
      else {
        const inputs: ValueInfo[] = [];
        formal.inputs.forEach((name, i) => {
          const actual = call.inputs[i] ?? "";
          if (name === "" || actual === "") return;
          const type = unit.typeOf(actual);
          inputs.push(type ? { name, type } : { name });
        });
        const g = graph({
          nodes: formal.nodes,
          inputs,
          outputs: formal.outputs.filter((o) => o !== "").map((name) => ({ name })),
        });
        const inner = makeUnit(unit.where, g, unit.opsets, () => this.typesOf(g, unit.opsets));
        const before = this.calls;
        const nodes = this.expandNodes(formal.nodes, inner, where(), this.nested);
        e = {
          body: { ...formal, nodes: nodes ?? formal.nodes },
          calls: this.calls - before,
          added: inner.added,
        };
        this.calls = before;
      }
      byOpsets.set(unit.opsets, e);
    }
    for (const [d, v] of e.added)
      if (!unit.opsets.has(d) && !unit.added.has(d)) unit.added.set(d, v);
    return e;
  }

  /** The checker's types of a graph alone (a body, a replacement), at these opsets. */
  private typesOf(g: Graph, opsets: Map<string, number>): ScopeTypes {
    return inferScopeTypes(
      {
        irVersion: this.model.irVersion,
        functions: [],
        opsetImports: [...opsets].map(([domain, version]) => ({ domain, version })),
        graph: g,
      },
      { registry: this.registry },
    ) as ScopeTypes;
  }

  /**
   * The op's body for these input types and attributes. Bodies are parsed from text, so calls
   * that look alike (the same op, types and plain attribute values) share one.
   */
  private body(op: OpVersion, call: Node, unit: Unit): FunctionBody {
    // Calls in a row are often alike (a chain): the last call's body, when this call's key
    // would be the same, without making the key.
    const last = this.last;
    if (
      last &&
      last.op === op &&
      last.typeOf === unit.typeOf &&
      alike(last.call, last.types, call, unit.typeOf)
    )
      return last.body;
    const body = this.keyedBody(op, call, unit);
    // The input types of the call (those alike() reads), looked up once for the calls after it.
    const types = call.inputs.map((x) => (x === "" ? undefined : unit.typeOf(x)));
    this.last = { op, typeOf: unit.typeOf, call, types, body };
    return body;
  }

  private keyedBody(op: OpVersion, call: Node, unit: Unit): FunctionBody {
    const n = bodyArity(op, call);
    const key = bodyKey(op, call, unit.typeOf, n.inputs, n.outputs);
    let body = key !== undefined ? this.bodies.get(key) : undefined;
    if (!body) {
      body = callBody(
        op,
        call,
        call.inputs.map((x) => (x === "" ? undefined : unit.typeOf(x))),
        this.options.preferLoops !== undefined ? { preferLoops: this.options.preferLoops } : {},
      );
      if (key !== undefined) this.bodies.set(key, body);
    }
    return body;
  }
}

const BOTH: Kinds = { schema: true, older: true };

/**
 * A pass that walks the model replacing the calls of these kinds. Its precondition counts the
 * nodes the result will have and refuses a count over budget (bounds.ts); the walker that counted
 * (with the bodies it instantiated) then runs.
 */
export function walkerPass(name: string, options: ExpandOptions, top: Kinds, nested: Kinds): Pass {
  const counted = new WeakMap<Model, { ctx: PassContext; walker: Walker }>();
  return {
    name,
    requires(model, ctx) {
      const walker = new Walker(model, options, ctx, top, nested);
      const { total, top: biggest } = walker.count();
      const notes = budgetNotes(total, biggest, options);
      if (!notes.length) counted.set(model, { ctx, walker });
      return notes;
    },
    run(model, ctx) {
      const known = counted.get(model);
      counted.delete(model);
      const walker =
        known && known.ctx === ctx ? known.walker : new Walker(model, options, ctx, top, nested);
      const r = walker.run();
      if (r.notes.some((n) => n.level === "error")) return { ok: false, notes: r.notes };
      const notes = r.calls ? [expandedNote(r.calls), ...r.notes] : r.notes;
      return { ok: true, model: r.model, modified: r.modified, notes };
    },
  };
}
