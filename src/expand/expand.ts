// The expansion pass: every call of a function op is replaced by its body, recursively, until no
// selected function op is left. Function ops are the operator versions that have a body
// (hasFunctionBody) and the model-local functions (FunctionProto); calls are found in the main
// graph, in If/Loop/Scan bodies at any depth, and inside the local functions that stay.
//
// Work goes in rounds. A round infers the types of the model's values once (check/'s inference)
// and replaces every selected call it finds by the call's body, renamed into the caller's scope
// (inline.ts). The bodies it puts in are not looked into in the same round: when they hold
// selected calls themselves (Celu's body calls Elu, a local function calls another), the next
// round, with fresh types, does. A round that puts in no such call is the last. Local functions
// no longer called are removed and opset imports are trimmed to the domains still used.
//
// A version that is not a function but whose later version is (ReduceLogSum-13, whose version
// 18 is) is lowered through the opset converter: the node is converted up to that version,
// expanded, and the result converted back to the model's opset (lowerByConversion). A body
// written for another opset than the caller's is converted the same way when an op it uses
// means something else at the caller's opset.

import { OnnxError, nodeLabel } from "../errors.js";
import { inferScopeTypes } from "../check/index.js";
import { conversionError, convertModel } from "../convert/index.js";
import { graph } from "../ir/builder.js";
import { NameScope } from "../ir/graph.js";
import { bindRefs } from "../ir/rewrite.js";
import {
  attributeGraphs,
  hasGraphAttribute,
  someGraphNode,
  walkGraphNodes,
} from "../ir/traverse.js";
import type {
  Attribute,
  Function,
  Graph,
  Model,
  Node,
  OpsetId,
  Type,
  ValueInfo,
} from "../ir/types.js";
import {
  failOnErrors,
  type Note,
  type Pass,
  type PassContext,
  type PassResult,
} from "../passes/pass.js";
import { functionBody, hasFunctionBody, type FunctionBody } from "../schema/body.js";
import { normaliseDomain, type SchemaRegistry } from "../schema/registry.js";
import type { OpVersion } from "../schema/types.js";
import { callPrefix, inlineBody } from "./inline.js";
import { OpSet, opName, type OpSelector } from "./select.js";

/** Converts a model to an opset of ai.onnx (the converter's pass, as a function). */
export type OpsetConverter = (model: Model, opset: number, ctx: PassContext) => Model;

export interface ExpandOptions {
  /** Expand only these ops (function ops and local functions named here). */
  only?: OpSelector[];
  /** Expand every function op but these. */
  keep?: OpSelector[];
  /**
   * A backend's op list: expand exactly the ops it lacks, and fail (naming every node) when
   * something it lacks cannot be expanded.
   */
  targetOps?: OpSelector[];
  /** Allow loops (Scan) where a body has a loop-free form (see BodyContext.preferLoops). */
  preferLoops?: boolean;
  /**
   * Lowers older versions and bodies written for other opsets (default: the opset converter,
   * src/convert; null: none, and such nodes are reported and left as they are).
   */
  converter?: OpsetConverter | null;
}

/** The expansion pass. Never mutates its input. */
/** The opset converter, all or nothing: a blocked step is an error naming the node. */
export const convertOpset: OpsetConverter = (model, opset, ctx) => {
  const r = convertModel(model, opset, { registry: ctx.registry });
  if (!r.model) throw conversionError(r);
  return r.model;
};

export function expandPass(options: ExpandOptions = {}): Pass {
  return {
    name: "expand",
    run: (model, ctx) => expandModel(model, options, ctx),
  };
}

const MAX_ROUNDS = 64;

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

const fkey = (domain: string, name: string, overload?: string) =>
  `${normaliseDomain(domain)}\u0000${name}\u0000${overload ?? ""}`;
const fname = (f: { domain: string; name: string; overload?: string }) =>
  `${f.domain ? `${f.domain}.` : ""}${f.name}${f.overload ? `:${f.overload}` : ""}`;

type Plan =
  | { kind: "local"; fn: Function }
  | { kind: "schema"; op: OpVersion }
  | { kind: "older"; op: OpVersion; later: OpVersion };

/** A graph with its subgraphs, or a local function: where calls are expanded. */
interface Unit {
  where: string;
  opsets: Map<string, number>;
  /** Imports the bodies put in need and the unit lacked. */
  added: Map<string, number>;
  scope: () => NameScope;
  typeOf: (name: string) => Type | undefined;
  /** Constants (initializers) visible to the unit's nodes, for the converter. */
  constant: (name: string) => Graph["initializers"][number] | undefined;
}

export function expandModel(
  model: Model,
  options: ExpandOptions = {},
  ctx: PassContext,
): PassResult {
  return new Expander(model, options, ctx).run();
}

class Expander {
  private readonly registry: SchemaRegistry;
  private readonly functions = new Map<string, Function>();
  /** The op types of the local functions: most nodes are told apart by this alone. */
  private readonly functionNames = new Set<string>();
  private readonly hasRefs = new Map<Function, boolean>();
  private readonly opFormals = new Map<
    OpVersion,
    { variadic: boolean; inputs: string[]; outputs: string[] }
  >();
  private readonly only?: OpSet;
  private readonly keep?: OpSet;
  private readonly target?: OpSet;
  private readonly report: Note[] = [];
  private readonly noted = new Set<string>();
  private calls = 0;
  private readonly bodies = new Map<string, FunctionBody>();
  /** Per opset map, domain and op type: the plan (schema ops are decided once each). */
  private readonly plans = new WeakMap<
    Map<string, number>,
    Map<string, Map<string, { plan: Plan | undefined }>>
  >();

  private readonly converter?: OpsetConverter;

  constructor(
    private readonly model: Model,
    private readonly options: ExpandOptions,
    private readonly ctx: PassContext,
  ) {
    this.registry = ctx.registry;
    if (options.converter !== null) this.converter = options.converter ?? convertOpset;
    for (const f of model.functions) {
      this.functions.set(fkey(f.domain, f.name, f.overload), f);
      this.functionNames.add(f.name);
    }
    if (options.only) this.only = new OpSet(options.only, this.registry);
    if (options.keep) this.keep = new OpSet(options.keep, this.registry);
    if (options.targetOps) this.target = new OpSet(options.targetOps, this.registry);
  }

  run(): PassResult {
    this.checkCycles();
    let current = this.model;
    let changed = false;
    for (let round = 0; ; round++) {
      if (round >= MAX_ROUNDS)
        throw new OnnxError(
          "E_UNSUPPORTED",
          `expansion did not end after ${MAX_ROUNDS} rounds: a function body calls its own op`,
        );
      const r = this.round(current);
      current = r.model;
      changed ||= r.changed;
      if (!r.pending) break;
    }
    if (changed) current = this.tidy(current);
    if (this.target) this.checkTarget(current);
    failOnErrors("expand", this.report);
    if (this.calls > 0)
      this.report.unshift({
        level: "info",
        message: `expanded ${this.calls} call${this.calls === 1 ? "" : "s"}`,
      });
    return { model: current, changed, report: this.report };
  }

  // ---- what to expand ----

  private selected(domain: string, op: string, since?: number): boolean {
    if (this.only && !this.only.has(domain, op, since)) return false;
    if (this.keep && this.keep.has(domain, op, since)) return false;
    if (this.target && this.target.has(domain, op, since)) return false;
    return true;
  }

  private localFunction(node: Node): Function | undefined {
    if (!this.functionNames.has(node.opType)) return undefined;
    return this.functions.get(fkey(node.domain, node.opType, node.overload));
  }

  /** The function's nodes bound to a call's attributes (its own nodes when it has no references). */
  private bound(fn: Function, call: Attribute[]): Node[] {
    let refs = this.hasRefs.get(fn);
    if (refs === undefined) {
      refs = false;
      bindRefs(fn.nodes, () => {
        refs = true;
        return undefined;
      });
      this.hasRefs.set(fn, refs);
    }
    return refs ? bindFunctionAttributes(fn, call) : fn.nodes;
  }

  private plan(node: Node, opsets: Map<string, number>): Plan | undefined {
    if (this.functions.size) {
      const fn = this.localFunction(node);
      if (fn) return this.selected(fn.domain, fn.name) ? { kind: "local", fn } : undefined;
    }
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
    const node = { opType };
    const op = this.registry.tryResolve(domain, node.opType, opset);
    if (!op || !this.selected(domain, node.opType, op.since)) return undefined;
    if (hasFunctionBody(op)) return { kind: "schema", op };
    const later = this.registry
      .versions(domain, node.opType)
      .find((v) => v.since > op.since && (v.function || v.body !== undefined));
    if (later && hasFunctionBody(later)) return { kind: "older", op, later };
    if (op.function && this.only === undefined && this.target === undefined)
      this.noteOnce(`nobody:${op.name}-${op.since}`, {
        level: "warning",
        message: `${opName(domain, op.name, op.since)} is a function op, but no body for it is known yet: left as it is`,
      });
    return undefined;
  }

  /** Whether any node (at any depth) of a list is to be expanded. */
  private anyPlanned(nodes: Node[], opsets: Map<string, number>): boolean {
    for (const n of nodes) {
      const p = this.plan(n, opsets);
      if (p && (p.kind !== "older" || this.converter)) return true;
      for (const a of n.attributes)
        for (const g of attributeGraphs(a)) if (this.anyPlanned(g.nodes, opsets)) return true;
    }
    return false;
  }

  // ---- one round ----

  private round(model: Model): { model: Model; changed: boolean; pending: boolean } {
    const state = { pending: false };
    let analysis: Map<Graph | Function, Map<string, Type>> | undefined;
    const types = () =>
      (analysis ??= inferScopeTypes(model, { registry: this.registry }) as Map<
        Graph | Function,
        Map<string, Type>
      >);

    const modelOpsets = opsetMap(model.opsetImports);
    const main = this.unit("graph", model.graph, modelOpsets, types);
    const mainGraph = this.expandGraph(model.graph, main, "graph", state);

    // Local functions still called (from the graph or from each other) are expanded inside.
    const functions: Function[] = [];
    let functionsChanged = false;
    const byKey = new Map(model.functions.map((f) => [fkey(f.domain, f.name, f.overload), f]));
    const done = new Set<Function>();
    const queue: Function[] = [];
    const reach = (nodes: Node[]) => {
      if (byKey.size === 0) return;
      someGraphNode(graph({ nodes }), (node) => {
        if (!this.functionNames.has(node.opType)) return;
        const f = byKey.get(fkey(node.domain, node.opType, node.overload));
        if (f && !done.has(f)) {
          done.add(f);
          queue.push(f);
        }
      });
    };
    reach((mainGraph ?? model.graph).nodes);
    const replaced = new Map<Function, Function>();
    while (queue.length) {
      const f = queue.shift()!;
      const opsets = f.opsetImports.length ? opsetMap(f.opsetImports) : modelOpsets;
      const unit = this.unit(`function '${fname(f)}'`, f, opsets, types);
      const nodes = this.expandNodes(f.nodes, unit, `function '${fname(f)}'`, state);
      let g = f;
      if (nodes) {
        g = { ...f, nodes };
        if (unit.added.size)
          g.opsetImports = withImports(
            f.opsetImports.length ? f.opsetImports : model.opsetImports,
            unit.added,
          );
        functionsChanged = true;
      }
      replaced.set(f, g);
      reach(g.nodes);
    }
    for (const f of model.functions) {
      const g = replaced.get(f);
      if (g) functions.push(g);
      else functionsChanged = true; // no longer called: removed
    }

    if (!mainGraph && !functionsChanged && main.added.size === 0)
      return { model, changed: false, pending: false };
    const out: Model = {
      ...model,
      graph: mainGraph ?? model.graph,
      functions,
      opsetImports: main.added.size
        ? withImports(model.opsetImports, main.added)
        : model.opsetImports,
    };
    return { model: out, changed: true, pending: state.pending };
  }

  private unit(
    where: string,
    owner: Graph | Function,
    opsets: Map<string, number>,
    types: () => Map<Graph | Function, Map<string, Type>>,
  ): Unit {
    let scope: NameScope | undefined;
    let merged: Map<string, Type> | undefined;
    let consts: Map<string, Graph["initializers"][number]> | undefined;
    const typeMap = (): Map<string, Type> => {
      if (merged) return merged;
      const all = types();
      const own = all.get(owner) ?? new Map<string, Type>();
      // Subgraphs' values join the owner's (names are unique across them); without subgraphs
      // the owner's map is used as it is.
      let copy: Map<string, Type> | undefined;
      someGraphNode(owner, (node) => {
        for (const a of node.attributes)
          for (const g of attributeGraphs(a))
            for (const [k, v] of all.get(g) ?? []) {
              copy ??= new Map(own);
              if (!copy.has(k)) copy.set(k, v);
            }
      });
      merged = copy ?? own;
      return merged;
    };
    return {
      where,
      opsets,
      added: new Map(),
      scope: () => (scope ??= new NameScope(owner)),
      typeOf: (name) => typeMap().get(name),
      constant: (name) => {
        if (!consts) {
          consts = new Map();
          if ("initializers" in owner) for (const t of owner.initializers) consts.set(t.name, t);
        }
        return consts.get(name);
      },
    };
  }

  /** The graph with its calls expanded; undefined when nothing changed. */
  private expandGraph(
    g: Graph,
    unit: Unit,
    where: string,
    state: { pending: boolean },
  ): Graph | undefined {
    const nodes = this.expandNodes(g.nodes, unit, where, state);
    return nodes ? { ...g, nodes } : undefined;
  }

  private expandNodes(
    nodes: Node[],
    unit: Unit,
    where: string,
    state: { pending: boolean },
  ): Node[] | undefined {
    let out: Node[] | undefined;
    for (let i = 0; i < nodes.length; i++) {
      const original = nodes[i]!;
      // Labels are made only when something is reported (or a subgraph names its place).
      let labelText: string | undefined;
      const label = () => (labelText ??= `${where} > ${nodeLabel(original, i)}`);
      const node = hasGraphAttribute(original)
        ? this.expandSubgraphs(original, unit, label(), state)
        : original;
      let replacement: Node[] | undefined;
      const plan = this.plan(node, unit.opsets);
      if (plan) {
        try {
          replacement = this.expandCall(node, plan, unit, label);
        } catch (e) {
          if (!(e instanceof OnnxError)) throw e;
          // A body the converter cannot bring to this opset (it needs an op the opset lacks):
          // the call is not expandable here. Left as it is unless --only asked for it by name;
          // under --target-ops the target check then reports it if the backend lacks it.
          const inexpressible = "plan" in e && this.only === undefined;
          this.report.push({
            level: inexpressible ? "warning" : "error",
            where: label(),
            message: inexpressible ? `left as it is: ${e.message}` : e.message,
          });
        }
      }
      if (replacement) {
        this.calls++;
        if (!state.pending && this.anyPlanned(replacement, unit.opsets)) state.pending = true;
        out ??= nodes.slice(0, i);
        for (const r of replacement) out.push(r);
      } else if (node !== original || out) {
        out ??= nodes.slice(0, i);
        out.push(node);
      }
    }
    return out;
  }

  /** The node with calls inside its subgraphs expanded (the node itself when none changed). */
  private expandSubgraphs(
    node: Node,
    unit: Unit,
    label: string,
    state: { pending: boolean },
  ): Node {
    let attrs: Attribute[] | undefined;
    node.attributes.forEach((a, i) => {
      let b: Attribute = a;
      if (a.type === "GRAPH" && a.value) {
        const g = this.expandGraph(a.value, unit, `${label} ${a.name}`, state);
        if (g) b = { ...a, value: g };
      } else if (a.type === "GRAPHS" && a.value) {
        const gs = a.value.map((g, k) =>
          this.expandGraph(g, unit, `${label} ${a.name}[${k}]`, state),
        );
        if (gs.some((g) => g)) b = { ...a, value: gs.map((g, k) => g ?? a.value![k]!) };
      }
      if (b !== a) (attrs ??= node.attributes.slice())[i] = b;
    });
    return attrs ? { ...node, attributes: attrs } : node;
  }

  // ---- one call ----

  private expandCall(node: Node, plan: Plan, unit: Unit, where: () => string): Node[] | undefined {
    switch (plan.kind) {
      case "local":
        return this.inlineLocal(node, plan.fn, unit, where);
      case "schema": {
        const op = plan.op;
        const { variadic, inputs, outputs } = this.formals(op);
        const body = this.body(op, node, unit, variadic);
        // Ops with variadic formals: the body names its formals per position of the call.
        if (variadic && (!body.inputs || !body.outputs))
          throw new OnnxError(
            "E_UNSUPPORTED",
            `the body of ${op.name}-${op.since} does not name its variadic inputs and outputs`,
          );
        const nodes = inlineBody(
          node,
          {
            inputs: body.inputs ?? inputs,
            outputs: body.outputs ?? outputs,
            nodes: body.nodes,
          },
          unit.scope(),
          callPrefix(node, op.name),
        );
        return this.fitOpsets(node, nodes, body.opsetImports, unit, where, true);
      }
      case "older":
        return this.lowerByConversion(node, plan.op, plan.later, unit, where);
    }
  }

  /** The op's formal names, and whether any formal is variadic (computed once per op). */
  private formals(op: OpVersion): { variadic: boolean; inputs: string[]; outputs: string[] } {
    let f = this.opFormals.get(op);
    if (!f) {
      f = {
        variadic:
          op.inputs.some((x) => x.option === "variadic") ||
          op.outputs.some((x) => x.option === "variadic"),
        inputs: op.inputs.map((x) => x.name),
        outputs: op.outputs.map((x) => x.name),
      };
      this.opFormals.set(op, f);
    }
    return f;
  }

  /**
   * The op's body for these input types and attributes. Bodies are parsed from text, so calls
   * that look alike (the same op, types and plain attribute values) share one.
   */
  private body(op: OpVersion, call: Node, unit: Unit, variadic: boolean): FunctionBody {
    const nIn = variadic ? Math.max(op.inputs.length, call.inputs.length) : op.inputs.length;
    const nOut = variadic ? Math.max(op.outputs.length, call.outputs.length) : op.outputs.length;
    const key = bodyKey(op, call, unit.typeOf, nIn, nOut);
    let body = key !== undefined ? this.bodies.get(key) : undefined;
    if (!body) {
      const present = (n: number, given: string[]) =>
        Array.from({ length: n }, (_, i) => (given[i] ?? "") !== "");
      body = functionBody(op, {
        inputTypes: call.inputs.map((n) => (n === "" ? undefined : unit.typeOf(n))),
        attributes: call.attributes,
        inputPresent: present(nIn, call.inputs),
        outputPresent: present(nOut, call.outputs),
        ...(this.options.preferLoops !== undefined
          ? { preferLoops: this.options.preferLoops }
          : {}),
      });
      if (key !== undefined) this.bodies.set(key, body);
    }
    return body;
  }

  private inlineLocal(
    node: Node,
    fn: Function,
    unit: Unit,
    where: () => string,
  ): Node[] | undefined {
    const bound = this.bound(fn, node.attributes);
    const nodes = inlineBody(
      node,
      { inputs: fn.inputs, outputs: fn.outputs, nodes: bound },
      unit.scope(),
      callPrefix(node, fn.name),
    );
    return this.fitOpsets(node, nodes, fn.opsetImports, unit, where);
  }

  /**
   * Body nodes written for `imports` made valid in the unit: a domain the unit lacks is imported;
   * a domain imported at another version needs nothing when every op of the body means the same
   * at both (or when a schema body is written for an older opset: its ops keep their meaning),
   * else the body is converted (or, without a converter, refused for this node).
   */
  private fitOpsets(
    call: Node,
    nodes: Node[],
    imports: OpsetId[],
    unit: Unit,
    where: () => string,
    schemaBody = false,
  ): Node[] | undefined {
    // The common cases: a schema body for opsets the caller has (at a version no older), or
    // a body written for exactly the caller's opsets.
    if (
      imports.every((o) => {
        const have = unit.opsets.get(normaliseDomain(o.domain));
        return have !== undefined && (have === o.version || (schemaBody && have > o.version));
      })
    )
      return nodes;
    const body = opsetMap(imports);
    const used = new Set<string>();
    for (const { node } of walkGraphNodes(graph({ nodes }))) used.add(normaliseDomain(node.domain));
    let convertFrom: number | undefined;
    for (const d of used) {
      const want = body.get(d);
      const have = unit.opsets.get(d) ?? unit.added.get(d);
      if (want === undefined) continue; // the caller's own imports apply (local functions without imports)
      if (have === undefined) {
        unit.added.set(d, want);
        continue;
      }
      // A schema body keeps its meaning at every later opset (src/schema/body.ts).
      if (want === have || (schemaBody && want < have)) continue;
      const differs = [...walkGraphNodes(graph({ nodes }))].find(({ node }) => {
        if (normaliseDomain(node.domain) !== d || this.localFunction(node)) return false;
        const a = this.registry.tryResolve(d, node.opType, want);
        const b = this.registry.tryResolve(d, node.opType, have);
        return a?.since !== b?.since;
      });
      if (!differs) continue;
      if (d !== "" || !this.converter) {
        const op = differs.node.opType;
        throw new OnnxError(
          "E_UNSUPPORTED",
          `the body is written for opset ${want} of ${d === "" ? "ai.onnx" : d}, and ${op} means something else at the caller's opset ${have}${d === "" ? " (the opset converter is needed)" : ""}`,
        );
      }
      convertFrom = want;
    }
    if (convertFrom === undefined) return nodes;
    return this.convertNodes(call, nodes, convertFrom, unit.opsets.get("")!, unit, where);
  }

  /**
   * An older version lowered through the converter: the node alone in a model at the unit's
   * opset, converted up to the version that has a body, expanded, and converted back.
   */
  private lowerByConversion(
    node: Node,
    op: OpVersion,
    later: OpVersion,
    unit: Unit,
    where: () => string,
  ): Node[] | undefined {
    const domain = normaliseDomain(node.domain);
    if (!this.converter || domain !== "") {
      this.noteOnce(`older:${where()}`, {
        level: "warning",
        where: where(),
        message: `${opName(domain, op.name, op.since)} is not a function; it expands through ${opName(domain, later.name, later.since)}, which needs the opset converter: left as it is`,
      });
      return undefined;
    }
    const here = unit.opsets.get("")!;
    const sub = this.subModel(node, unit, here);
    const up = this.converter(sub.model, later.since, this.ctx);
    const expanded = expandModel(
      up,
      {
        only: [{ domain, op: op.name }],
        ...(this.options.preferLoops !== undefined
          ? { preferLoops: this.options.preferLoops }
          : {}),
      },
      this.ctx,
    ).model;
    const down = this.converter(expanded, here, this.ctx);
    return this.splice(node, down, sub.shared, unit, later.name);
  }

  /** Body nodes written for ai.onnx `from` converted to `to`, in the caller's names. */
  private convertNodes(
    call: Node,
    nodes: Node[],
    from: number,
    to: number,
    unit: Unit,
    where: () => string,
  ): Node[] {
    const sub = this.subModel(call, unit, from);
    sub.model.graph.nodes = nodes;
    const down = this.converter!(sub.model, to, this.ctx);
    void where;
    return this.splice(call, down, sub.shared, unit, call.opType);
  }

  /** A model holding just the call (typed inputs, the unit's constants it reads as initializers). */
  private subModel(node: Node, unit: Unit, opset: number): { model: Model; shared: Set<string> } {
    const inputs: ValueInfo[] = [];
    const initializers: Graph["initializers"] = [];
    const shared = new Set<string>();
    for (const name of node.inputs) {
      if (name === "" || shared.has(name)) continue;
      shared.add(name);
      const c = unit.constant(name);
      if (c) initializers.push(c);
      else {
        const type = unit.typeOf(name);
        inputs.push(type ? { name, type } : { name });
      }
    }
    const outputs = node.outputs
      .filter((o) => o !== "")
      .map((name) => {
        const type = unit.typeOf(name);
        return type ? { name, type } : { name };
      });
    return {
      model: {
        irVersion: this.model.irVersion,
        opsetImports: [{ domain: "", version: opset }],
        graph: graph({ nodes: [node], inputs, outputs, initializers }),
        functions: [],
      },
      shared,
    };
  }

  /** A converted sub-model's nodes put in place of the call, intermediate names made fresh. */
  private splice(call: Node, m: Model, shared: Set<string>, unit: Unit, fallback: string): Node[] {
    const g = m.graph;
    const extra = g.initializers.filter((t) => !shared.has(t.name));
    const consts: Node[] = extra.map((t) => ({
      opType: "Constant",
      domain: "",
      inputs: [],
      outputs: [t.name],
      attributes: [{ name: "value", type: "TENSOR", value: t }],
    }));
    const formals = [...shared];
    return inlineBody(
      { ...call, inputs: formals },
      { inputs: formals, outputs: call.outputs, nodes: [...consts, ...g.nodes] },
      unit.scope(),
      callPrefix(call, fallback),
      { prefixed: false },
    );
  }

  // ---- checks and tidying ----

  private noteOnce(key: string, note: Note): void {
    if (this.noted.has(key)) return;
    this.noted.add(key);
    this.report.push(note);
  }

  /** A cycle of local function calls is an error naming it. */
  private checkCycles(): void {
    const state = new Map<Function, 1 | 2>();
    const stack: Function[] = [];
    const visit = (f: Function): void => {
      state.set(f, 1);
      stack.push(f);
      for (const { node } of walkGraphNodes(f)) {
        const g = this.localFunction(node);
        if (!g) continue;
        const s = state.get(g);
        if (s === 1) {
          const cycle = [...stack.slice(stack.indexOf(g)), g].map((x) => `'${fname(x)}'`);
          throw new OnnxError(
            "E_MODEL",
            `local functions call each other in a cycle (${cycle.join(" -> ")}); they cannot be expanded`,
          );
        }
        if (s === undefined) visit(g);
      }
      stack.pop();
      state.set(f, 2);
    };
    for (const f of this.model.functions) if (!state.has(f)) visit(f);
  }

  /** With a target op list: every node left must be one the backend has. */
  private checkTarget(model: Model): void {
    const seen = new Set<string>();
    const check = (owner: Graph | Function, opsets: Map<string, number>, where: string) => {
      for (const { node, index, owner: o } of walkGraphNodes(owner)) {
        const fn = this.localFunction(node);
        const domain = normaliseDomain(node.domain);
        const op = fn
          ? undefined
          : this.registry.tryResolve(domain, node.opType, opsets.get(domain) ?? 0);
        if (this.target!.has(domain, node.opType, op?.since)) continue;
        const name = opName(domain, node.opType, op?.since);
        const key = `${where}\u0000${name}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const why = fn
          ? "a local function that is kept"
          : op?.function || op?.body
            ? "a function op whose body could not be used here"
            : op
              ? "not a function op"
              : "an op unknown at this opset";
        this.report.push({
          level: "error",
          where: `${where}${o === owner ? "" : " (in a subgraph)"} > ${nodeLabel(node, index)}`,
          message: `${name} is not in the target op list and cannot be lowered to it (${why})`,
        });
      }
    };
    const modelOpsets = opsetMap(model.opsetImports);
    check(model.graph, modelOpsets, "graph");
    for (const f of model.functions)
      check(
        f,
        f.opsetImports.length ? opsetMap(f.opsetImports) : modelOpsets,
        `function '${fname(f)}'`,
      );
  }

  /** Opset imports trimmed to the domains still used (ai.onnx always kept). */
  private tidy(model: Model): Model {
    const usedBy = (owner: Graph | Function): Set<string> => {
      const s = new Set<string>();
      someGraphNode(owner, (node) => void s.add(normaliseDomain(node.domain)));
      return s;
    };
    const used = usedBy(model.graph);
    for (const f of model.functions)
      if (f.opsetImports.length === 0) for (const d of usedBy(f)) used.add(d);
      else {
        const own = new Set(f.opsetImports.map((o) => normaliseDomain(o.domain)));
        for (const d of usedBy(f)) if (!own.has(d)) used.add(d);
      }
    const trim = (imports: OpsetId[], keep: Set<string>) =>
      imports.filter(
        (o) => normaliseDomain(o.domain) === "" || keep.has(normaliseDomain(o.domain)),
      );
    const opsetImports = trim(model.opsetImports, used);
    const functions = model.functions.map((f) => {
      if (f.opsetImports.length === 0) return f;
      const t = trim(f.opsetImports, usedBy(f));
      return t.length === f.opsetImports.length ? f : { ...f, opsetImports: t };
    });
    return { ...model, opsetImports, functions };
  }
}

function opsetMap(imports: OpsetId[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const o of imports) {
    const d = normaliseDomain(o.domain);
    if (!m.has(d)) m.set(d, o.version);
  }
  return m;
}

function withImports(imports: OpsetId[], added: Map<string, number>): OpsetId[] {
  const have = new Set(imports.map((o) => normaliseDomain(o.domain)));
  const out = [...imports];
  for (const [domain, version] of added) if (!have.has(domain)) out.push({ domain, version });
  return out;
}

/**
 * A local function's nodes with its attribute references bound to a call: the call's value,
 * else the function's default, else the attribute is left out. A call that passes an attribute
 * on by reference (inside another function) keeps the reference, to the caller's name.
 */
export function bindFunctionAttributes(fn: Function, call: Attribute[]): Node[] {
  const given = new Map(call.map((a) => [a.name, a] as const));
  const defaults = new Map(fn.attributeProtos.map((a) => [a.name, a] as const));
  return bindRefs(fn.nodes, (ref, a) => {
    const src = given.get(ref) ?? defaults.get(ref);
    if (src && src.type !== a.type)
      throw new OnnxError(
        "E_MODEL",
        `attribute '${ref}' of function '${fname(fn)}' is used as ${a.type}, but the call gives ${src.type}`,
      );
    return src;
  });
}
