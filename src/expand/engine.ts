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

import { OnnxError } from "../errors.js";
import { functionKey } from "../ir/functions.js";
import { inferScopeTypes, modelFunctions } from "../check/index.js";
import { graph } from "../ir/builder.js";
import type { Function, Graph, MetadataProps, Model, Node, Type, ValueInfo } from "../ir/types.js";
import { GraphScope, rewriteNodes, someGraphNode, visitModel } from "../ir/visit.js";
import { callPrefix, inlineBody, type BodyNodes } from "../inline/inline.js";
import { markRecord, originRecord, schemaFunctionName } from "../inline/origin.js";
import type { Note, Pass, PassContext } from "../passes/pass.js";
import { hasFunctionBody, type FunctionBody } from "../schema/body.js";
import { normaliseDomain, type SchemaRegistry } from "../schema/registry.js";
import type { OpVersion } from "../schema/types.js";
import { biggest, budgetNotes, tally, type Contributor } from "../inline/bounds.js";
import {
  attempt,
  type CallFailure,
  type CallOutcome,
  convertOpset,
  expandedNote,
  type FunctionTable,
  functionOpsets,
  functionWhere,
  makeUnit,
  Notes,
  noteOutcome,
  opsetMap,
  Selection,
  withImports,
  type ExpandOptions,
  type OpsetConverter,
  type CallSite,
  type Replacement,
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

/** What replaces a call of an op: its body (a schema function op), or a lowering through a later version. */
type Decision =
  { kind: "schema"; op: OpVersion } | { kind: "older"; op: OpVersion; later: OpVersion };

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
 * What a walk works out once and reuses (memos, not decisions): the units, the bodies by key, the
 * bodies with their calls expanded, sizes, what each op is (per opset map), the model's types, and
 * the notes so far. The plan hands it from the count to the run, which reads it only to avoid
 * working the same thing out twice.
 */
interface WalkCache {
  /** The units of the main graph and the local functions. */
  units: Map<Graph | Function, Unit>;
  /** The checker's types of the model (inferred once, when a call first needs them). */
  types: () => ScopeTypes;
  /** Bodies by body key (bodyKey): calls that look alike share one. */
  bodies: Map<string, FunctionBody>;
  /** Bodies with the calls inside expanded, per body and opset map. */
  expanded: Map<FunctionBody, Map<Map<string, number>, Expanded>>;
  /** Nodes of each expanded body's list, subgraphs included. */
  sizes: Map<Node[], number>;
  /** Per opset map, domain and op type: the decision (schema ops are decided once each). */
  decisions: Map<Map<string, number>, Map<string, Map<string, { decision?: Decision }>>>;
  notes: Notes;
}

/**
 * What the plan says of one call of the model (a node of its own, at any depth): replaced by its
 * schema body (instantiated for it: `body`, or why it cannot be: `failure`), replaced by lowering
 * through a later version, or kept, with the reason as an id. The run applies it as it stands.
 */
export type CallPlan =
  | { action: "expand"; kind: "schema"; op: OpVersion; body: FunctionBody }
  | { action: "expand"; kind: "older"; op: OpVersion; later: OpVersion }
  | { action: "keep"; reason: "needs-converter"; op: OpVersion; later: OpVersion }
  | { action: "keep"; reason: "failed"; failure: CallFailure };

/**
 * What count() found, for run() to apply: the nodes the result will have and the op whose calls
 * make the most of them (the bound, bounds.ts), and the decision for each call of the model's own
 * nodes (a node with none is kept: not a call of the kinds asked). `cache` holds what the count
 * worked out (types, bodies) for the run to reuse.
 */
export interface ExpansionPlan {
  total: number;
  top?: Contributor;
  /** Calls to replace at the top (the model's own nodes); none: the run has nothing to do. */
  planned: number;
  /** The decision per call of the model's own nodes, by node. */
  calls: Map<Node, CallPlan>;
  cache: WalkCache;
}

/** Calls replaced, counted as a walk goes (the walk's own, or a shared body's). */
interface Tally {
  calls: number;
}

/** Whether a call reads a constant of its unit (inference could use its value). */
const readsConstant = (node: Node, unit: Unit): boolean =>
  node.inputs.some((x) => x !== "" && unit.constant(x) !== undefined);

/** Replaces the calls of the given kinds in a model: count() plans, run() applies. Never mutates its input. */
export class Walker {
  private readonly registry: SchemaRegistry;
  private readonly selection: Selection;
  private readonly functions: FunctionTable;
  private readonly converter?: OpsetConverter;
  private readonly fit: FitContext;
  private readonly state: WalkCache;
  /** How origins name each op's body (mark()). */
  private readonly originNames = new Map<OpVersion, { domain: string; name: string }>();

  constructor(
    private readonly model: Model,
    private readonly options: ExpandOptions,
    private readonly ctx: PassContext,
    private readonly top: Kinds,
    private readonly nested: Kinds,
    state?: WalkCache,
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
    let analysis: ScopeTypes | undefined;
    this.state = state ?? {
      units: new Map(),
      types: () => (analysis ??= inferScopeTypes(model, { registry: this.registry }) as ScopeTypes),
      bodies: new Map(),
      expanded: new Map(),
      sizes: new Map(),
      decisions: new Map(),
      notes: new Notes(),
    };
  }

  /** The unit of the main graph or of a local function (made once). */
  private unitOf(owner: Graph | Function): Unit {
    let unit = this.state.units.get(owner);
    if (!unit) {
      const opsets = functionOpsets(owner, opsetMap(this.model.opsetImports));
      const where = owner === this.model.graph ? "graph" : functionWhere(owner as Function);
      unit = makeUnit(where, owner, opsets, this.state.types);
      if (owner !== this.model.graph) {
        const f = owner as Function;
        unit.function = functionKey(f.domain, f.name, f.overload);
      }
      this.state.units.set(owner, unit);
    }
    return unit;
  }

  /** The unit of a scope of the model: its root's (a unit covers a graph with its subgraphs). */
  private readonly enter = (scope: GraphScope, parent: Unit | undefined): Unit =>
    parent ?? this.unitOf(scope.owner);

  /**
   * The plan: the nodes the walk's result will have, counted before any call is replaced, and
   * the op whose calls make the most of them (the bound, bounds.ts). A call counts as its body
   * instantiated for its key (op version, input types, plain attributes), with the calls inside
   * expanded as run() will (the expanded body is kept in the plan, so run() reuses it).
   * Estimates: a call whose body needs converting or has constant inputs counts its body's own
   * nodes; an older version counts the body of the version it is lowered through; a call whose
   * body cannot be made counts as one node (the run reports why, on the node).
   */
  count(): ExpansionPlan {
    // Per decision first (decisions are shared by the calls of one op), then by the op's name.
    const byDecision = new Map<Decision, { domain: string; calls: number; nodes: number }>();
    const calls = new Map<Node, CallPlan>();
    let total = 0;
    visitModel<Unit>(this.model, {
      enter: this.enter,
      node: (node, index, scope, unit) => {
        const d = this.decide(node, unit.opsets, this.top);
        if (!d) {
          total += 1;
          return node;
        }
        const n = this.callSize(node, d, unit, calls, {
          label: () => scope.nodeWhere(node, index),
          function: unit.function,
        });
        total += n;
        const c = byDecision.get(d);
        if (c) {
          c.calls++;
          c.nodes += n;
        } else byDecision.set(d, { domain: normaliseDomain(node.domain), calls: 1, nodes: n });
        return node;
      },
    });
    const by = new Map<string, Contributor>();
    let planned = 0;
    for (const [d, c] of byDecision) {
      tally(by, opName(c.domain, d.op.name, d.op.since), c.calls, c.nodes);
      planned += c.calls;
    }
    const top = biggest(by.values());
    return { total, ...(top ? { top } : {}), planned, calls, cache: this.state };
  }

  /**
   * How many nodes replacing one call puts in (count()); the call's decision goes in `calls`: a
   * schema call's with the body instantiated for it, or the failure to make it.
   */
  private callSize(
    node: Node,
    d: Decision,
    unit: Unit,
    calls: Map<Node, CallPlan>,
    site: CallSite,
  ): number {
    const op = d.kind === "schema" ? d.op : d.later;
    if (d.kind === "older")
      calls.set(
        node,
        this.converter && normaliseDomain(node.domain) === ""
          ? { action: "expand", kind: "older", op: d.op, later: d.later }
          : { action: "keep", reason: "needs-converter", op: d.op, later: d.later },
      );
    let nodes: Node[] = [];
    const made = attempt(() => {
      const body = this.body(op, node, unit);
      nodes = bodyNodes(op, body).nodes;
      if (d.kind === "schema") {
        calls.set(node, { action: "expand", kind: "schema", op, body });
        if (!readsConstant(node, unit) && fitsAsIs(body.opsetImports, unit.opsets, true))
          // Counted without adding imports: the run adds them to the unit.
          nodes = this.expandedBody(op, body, node, { ...unit, added: new Map() }, site).body.nodes;
      }
      return undefined;
    });
    if (made !== undefined && "failure" in made) {
      // The run reports it (on the node); as a count, the call stays one node.
      if (d.kind === "schema")
        calls.set(node, { action: "keep", reason: "failed", failure: made.failure });
      return 1;
    }
    let n = this.state.sizes.get(nodes);
    if (n === undefined) {
      n = 0;
      someGraphNode({ nodes } as Graph, () => void n!++);
      this.state.sizes.set(nodes, n);
    }
    return n;
  }

  /**
   * The model with the calls replaced as `plan` (count()) decided them, each call's decision
   * applied as it stands; without a plan, each call decided as the walk reaches it.
   */
  run(plan?: ExpansionPlan): WalkResult {
    const model = this.model;
    const notes = this.state.notes;
    const tally: Tally = { calls: 0 };
    if (plan && plan.planned === 0) return { model, modified: false, notes: notes.list, calls: 0 };
    const out = visitModel<Unit>(model, {
      enter: this.enter,
      node: (node, index, scope, unit, original) => {
        const site = { label: () => scope.nodeWhere(original, index), function: unit.function };
        if (!plan) return this.replace(node, unit, this.top, site, tally);
        const p = plan.calls.get(original);
        return p ? this.apply(node, p, unit, site, tally) : node;
      },
    });
    const main = this.unitOf(model.graph);
    if (out === model && main.added.size === 0)
      return { model, modified: false, notes: notes.list, calls: tally.calls };
    const functions = out.functions.map((f, i) => {
      const unit = this.unitOf(model.functions[i]!);
      if (f === model.functions[i] || !unit.added.size) return f;
      return {
        ...f,
        opsetImports: withImports(
          f.opsetImports.length ? f.opsetImports : model.opsetImports,
          unit.added,
        ),
      };
    });
    const result: Model = {
      ...out,
      functions: out.functions === model.functions ? model.functions : functions,
      opsetImports: main.added.size
        ? withImports(model.opsetImports, main.added)
        : model.opsetImports,
    };
    return { model: result, modified: true, notes: notes.list, calls: tally.calls };
  }

  // ---- what to replace ----

  private decide(node: Node, opsets: Map<string, number>, kinds: Kinds): Decision | undefined {
    if (this.functions.size && this.functions.called(node)) return undefined;
    // Schema ops: one decision per (domain, op, opset); lookups of strings the model holds.
    const decisions = this.state.decisions;
    let byDomain = decisions.get(opsets);
    if (!byDomain) decisions.set(opsets, (byDomain = new Map()));
    let byOp = byDomain.get(node.domain);
    if (!byOp) byDomain.set(node.domain, (byOp = new Map()));
    let known = byOp.get(node.opType);
    if (known === undefined) {
      const domain = normaliseDomain(node.domain);
      const opset = opsets.get(domain);
      const decision =
        opset === undefined ? undefined : this.schemaDecision(domain, node.opType, opset);
      byOp.set(node.opType, (known = decision ? { decision } : {}));
    }
    const d = known.decision;
    return d && kinds[d.kind] ? d : undefined;
  }

  private schemaDecision(domain: string, opType: string, opset: number): Decision | undefined {
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
      this.state.notes.once(`nobody:${op.name}-${op.since}`, {
        level: "warning",
        message: `${opName(domain, op.name, op.since)} is a function op, but no body for it is known yet: left as it is`,
      });
    return undefined;
  }

  /** Whether any node (at any depth) of a list is to be replaced. */
  private anyPlanned(nodes: Node[], opsets: Map<string, number>, kinds: Kinds): boolean {
    return someGraphNode({ nodes }, (n) => {
      const d = this.decide(n, opsets, kinds);
      return d !== undefined && (d.kind !== "older" || this.converter !== undefined);
    });
  }

  // ---- walking ----

  /** A node as the walk leaves it, decided as the walk reaches it: the node itself, or what replaces it. */
  private replace(
    node: Node,
    unit: Unit,
    kinds: Kinds,
    site: CallSite,
    tally: Tally,
  ): Node | Node[] {
    const d = this.decide(node, unit.opsets, kinds);
    if (!d) return node;
    return this.outcome(node, this.expandCall(node, d, unit, site, tally), site);
  }

  /** A call of the model as its plan says: the plan's body or failure used, nothing decided again. */
  private apply(node: Node, p: CallPlan, unit: Unit, site: CallSite, tally: Tally): Node | Node[] {
    let r: CallOutcome;
    if (p.action === "keep")
      r = p.reason === "failed" ? { failure: p.failure } : this.needsConverter(node, p, site);
    else if (p.kind === "schema") r = this.expandSchema(node, p.op, p.body, unit, site, tally);
    else r = this.expandOlder(node, p, unit, tally);
    return this.outcome(node, r, site);
  }

  /** The node as an outcome leaves it (noted where it fails or is blocked). */
  private outcome(node: Node, r: CallOutcome, site: CallSite): Node | Node[] {
    const named = this.selection.only !== undefined;
    return noteOutcome(this.state.notes, named, r, site, !!this.options.leaveUnbuilt) ?? node;
  }

  /** The nodes of a list (a body, a replacement) with their calls replaced, labelled below `where`. */
  private expandNodes(
    nodes: Node[],
    owner: Graph,
    unit: Unit,
    where: string,
    tally: Tally,
  ): Node[] {
    return rewriteNodes(nodes, new GraphScope(owner, where), (node, index, scope, original) =>
      this.replace(
        node,
        unit,
        this.nested,
        { label: () => scope.nodeWhere(original, index), function: unit.function },
        tally,
      ),
    );
  }

  // ---- one call ----

  /** A call decided as the walk reaches it (a body's, or a walk without a plan). */
  private expandCall(
    node: Node,
    d: Decision,
    unit: Unit,
    site: CallSite,
    tally: Tally,
  ): CallOutcome {
    if (d.kind === "older") {
      const p = { op: d.op, later: d.later };
      return this.converter && normaliseDomain(node.domain) === ""
        ? this.expandOlder(node, p, unit, tally)
        : this.needsConverter(node, p, site);
    }
    let body: FunctionBody | undefined;
    const made = attempt(() => {
      body = this.body(d.op, node, unit);
      return undefined;
    });
    return body ? this.expandSchema(node, d.op, body, unit, site, tally) : made;
  }

  /** A call of a schema function op replaced by its body (instantiated for it). */
  private expandSchema(
    node: Node,
    op: OpVersion,
    body: FunctionBody,
    unit: Unit,
    site: CallSite,
    tally: Tally,
  ): CallOutcome {
    return attempt(() => {
      let nodes: Node[];
      // The common case: a body that needs no conversion, and a call without constant inputs
      // (whose values inference could use): the calls inside are expanded once per body, in
      // terms of its formals.
      if (fitsAsIs(body.opsetImports, unit.opsets, true) && !readsConstant(node, unit)) {
        // Once per body and opsets (the plan keeps it, and the unit gets the imports it needs).
        const done = this.expandedBody(op, body, node, unit, site);
        tally.calls += 1 + done.calls;
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
      nodes = inlineBody(node, bodyNodes(op, body), unit.scope(), callPrefix(node, op.name));
      this.mark(nodes, node, op);
      const fitted = fitOpsets(this.fit, node, nodes, body.opsetImports, unit, true);
      if (!Array.isArray(fitted)) return fitted;
      tally.calls++;
      return this.expandInside(node, fitted, unit, site, tally);
    });
  }

  /** An older version that is not a function left as it is: it needs the opset converter (noted once per node). */
  private needsConverter(
    node: Node,
    p: { op: OpVersion; later: OpVersion },
    site: CallSite,
  ): CallOutcome {
    const domain = normaliseDomain(node.domain);
    const where = site.label();
    this.state.notes.once(`older:${where}`, {
      level: "warning",
      where,
      message: `${opName(domain, p.op.name, p.op.since)} is not a function; it expands through ${opName(domain, p.later.name, p.later.since)}, which needs the opset converter: left as it is`,
    });
    return undefined;
  }

  /** A call of an older version lowered through its later one (by conversion, up and down). */
  private expandOlder(
    node: Node,
    p: { op: OpVersion; later: OpVersion },
    unit: Unit,
    tally: Tally,
  ): CallOutcome {
    const domain = normaliseDomain(node.domain);
    return attempt(() => {
      const lowered = lowerByConversion(this.fit, node, p.later, unit, {
        // The op expanded at its later version is this call: its nodes are marked once, below.
        up: (m) => {
          const r = this.sub(m, { only: [{ domain, op: p.op.name }], origin: false }, ALL_KINDS);
          const error = r.notes.find((n) => n.level === "error");
          if (error) throw new OnnxError("E_UNSUPPORTED", error.message);
          return r.model;
        },
        // What the lowered body holds is replaced as inside any body (the nested kinds).
        down: (m) => {
          const r = this.sub(m, this.options, this.nested);
          for (const n of r.notes) this.state.notes.push(n);
          tally.calls += r.calls;
          return { model: r.model, added: new Map() };
        },
      });
      if (!Array.isArray(lowered)) return lowered;
      tally.calls++;
      this.mark(lowered, node, p.op);
      return lowered;
    });
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

  /** A walk of another model (a lowered node) with these options, planned as it goes. */
  private sub(model: Model, options: ExpandOptions, kinds: Kinds): WalkResult {
    const opts: ExpandOptions = { ...options };
    if (this.options.origin === false) opts.origin = false;
    if (this.options.preferLoops !== undefined) opts.preferLoops = this.options.preferLoops;
    if (this.options.standardQuantOps !== undefined)
      opts.standardQuantOps = this.options.standardQuantOps;
    if (this.options.converter !== undefined) opts.converter = this.options.converter;
    return new Walker(model, opts, this.ctx, kinds, kinds).run();
  }

  /**
   * The calls inside a replacement replaced in turn (callee-first: before the walk goes on).
   * Its values are typed by inferring the replacement alone, its inputs typed as in the caller.
   */
  private expandInside(
    call: Node,
    nodes: Node[],
    unit: Unit,
    site: CallSite,
    tally: Tally,
  ): Node[] {
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
      function: unit.function,
      added: unit.added,
      scope: unit.scope,
      typeOf: (name) => inner.typeOf(name) ?? unit.typeOf(name),
      constant: unit.constant,
    };
    return this.expandNodes(nodes, g, body, site.label(), tally);
  }

  /**
   * A schema body with the calls it holds expanded (callee-first), in terms of its formals: its
   * inputs typed as the call's, the rest inferred. Once per body (bodies are shared by calls
   * with the same op, input types and plain attributes) and opset map; the imports it needs are
   * added to the unit.
   */
  private expandedBody(
    op: OpVersion,
    body: FunctionBody,
    call: Node,
    unit: Unit,
    site: CallSite,
  ): Expanded {
    const expanded = this.state.expanded;
    let byOpsets = expanded.get(body);
    if (!byOpsets) expanded.set(body, (byOpsets = new Map()));
    let e = byOpsets.get(unit.opsets);
    if (!e) {
      const formal = bodyNodes(op, body);
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
        inner.function = unit.function;
        // The body's own tally: every call of it adds the calls it holds.
        const mine: Tally = { calls: 0 };
        const nodes = this.expandNodes(formal.nodes, g, inner, site.label(), mine);
        e = { body: { ...formal, nodes }, calls: mine.calls, added: inner.added };
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
   * that look alike (the same op, types and plain attribute values: the same body key) share one.
   */
  private body(op: OpVersion, call: Node, unit: Unit): FunctionBody {
    const n = bodyArity(op, call);
    const key = bodyKey(op, call, unit.typeOf, n.inputs, n.outputs);
    const bodies = this.state.bodies;
    let body = key !== undefined ? bodies.get(key) : undefined;
    if (!body) {
      body = callBody(
        op,
        call,
        call.inputs.map((x) => (x === "" ? undefined : unit.typeOf(x))),
        {
          ...(this.options.preferLoops !== undefined
            ? { preferLoops: this.options.preferLoops }
            : {}),
          ...(this.options.standardQuantOps !== undefined
            ? { standardQuantOps: this.options.standardQuantOps }
            : {}),
        },
      );
      if (key !== undefined) bodies.set(key, body);
    }
    return body;
  }
}

/** Both kinds of call; schema function ops only; older versions only. */
export const ALL_KINDS: Kinds = { schema: true, older: true };
export const SCHEMA: Kinds = { schema: true, older: false };
export const OLDER: Kinds = { schema: false, older: true };

/**
 * A pass that walks the model replacing the calls of these kinds. Its precondition counts the
 * nodes the result will have and refuses a count over budget (bounds.ts); the plan of that count
 * (with the bodies it instantiated) is what the run applies (the manager hands it over in the
 * pass context).
 */
export function walkerPass(
  name: string,
  options: ExpandOptions,
  top: Kinds,
  nested: Kinds,
): Pass<ExpansionPlan> {
  return {
    name,
    requires(model, ctx) {
      const plan = new Walker(model, options, ctx, top, nested).count();
      return { notes: budgetNotes(plan.total, plan.top, options), plan };
    },
    run(model, ctx) {
      const plan = ctx.plan ?? new Walker(model, options, ctx, top, nested).count();
      const r = new Walker(model, options, ctx, top, nested, plan.cache).run(plan);
      if (r.notes.some((n) => n.level === "error")) return { ok: false, notes: r.notes };
      const notes = r.calls ? [expandedNote(r.calls), ...r.notes] : r.notes;
      return { ok: true, model: r.model, modified: r.modified, notes };
    },
  };
}
