// Checking one node: which operator it calls, its attributes, its input and output counts and
// types, then its outputs inferred (by the op's rule, or the called function's body) and defined
// in the scope. A node alike one already analysed that reported nothing reuses its outputs.

import { nodeLabel } from "../errors.js";
import { resolveRef } from "../ir/rewrite.js";
import { attributeGraphs } from "../ir/visit.js";
import type { Attribute, Dim, Function, Node, Type } from "../ir/types.js";
import { normaliseDomain } from "../schema/registry.js";
import type { OpVersion } from "../schema/types.js";
import type { Analyzer } from "./analyze.js";
import { checkArity, checkCallArity, checkFormalType, formalAt, type Bindings } from "./arity.js";
import { checkAttributes } from "./attributes.js";
import type { ConstVal } from "./consts.js";
import type { MemoEntry } from "./memo.js";
import type { Report } from "./report.js";
import { noteRuntimeOp, resolveSchema } from "./resolve.js";
import { checkKernelAttributes, hasKernelRules } from "./kernel-attributes.js";
import { ruleFor } from "./rules/index.js";
import { define, type Ctx, type Scope } from "./scope.js";
import { isTensor, mergeTypes, parseTypeString } from "./types.js";

/**
 * Checks one node and defines its outputs in the scope: each step below, in this order. A node
 * alike one already analysed (see MemoKeys.memoKey) that reported nothing reuses its output types: only
 * what depends on the scope (undefined inputs, declared types, duplicate names) is redone.
 */
export function analyzeNode(
  an: Analyzer,
  node: Node,
  index: number,
  scope: Scope,
  ctx: Ctx,
  declared: Map<string, Type | undefined>,
  later: { has(name: string): boolean },
): void {
  // One small object per node; its label and report function are made only when something is
  // reported (most nodes have nothing to say), and the inputs are read into arrays reused from
  // node to node until the node is found to need its own (not in the memo).
  const at = new NodeAt(node, index, scope, ctx);
  const read = readInputs(node, scope, later, at, SCRATCH);
  if (scope.misordered) return;
  const key = an.inst.active ? undefined : an.keys.memoKey(node, ctx.opsets, read);
  const hit = key !== undefined ? an.memo.get(key) : undefined;
  if (hit) {
    defineOutputs(an, at, hit, hit.bound, true, hit.outputs, undefined, declared, hit);
    return;
  }
  // Analysing the node may analyse others (subgraphs, function bodies): its inputs are copied.
  const n = node.inputs.length;
  const inputs: NodeInputs = {
    types: read.types.slice(0, n),
    consts: read.consts.slice(0, n),
    syms: read.syms.slice(0, n),
  };
  const report = at.report;
  const before = ctx.sink.length;
  const fn = an.functions.called(node);
  const schema = fn
    ? undefined
    : resolveSchema(an.registry, node, ctx.opsets, ctx.fn ? "function" : "model", report);
  if (schema?.registeredBy) noteRuntimeOp(an, schema, ctx.opsets);
  const opv = schema ? `${node.opType}-${schema.since}` : node.opType;
  const callee: Callee = { schema, fn, opv };
  checkAttributes(node, { schema, opv, callee: fn, within: ctx.fn }, report);
  const sig = checkSignature(at, callee, inputs.types);
  const inferred = inferOutputs(an, at, callee, sig, inputs);
  const outputs = formalOutputs(node, schema, sig.bound, inferred.outputs);
  let entry: MemoEntry | undefined;
  if (
    key !== undefined &&
    ctx.sink.length === before &&
    !inferred.outConsts.some((k) => k) &&
    !inferred.outSyms.some((k) => k)
  ) {
    entry = { schema, opv, bound: new Map(sig.bound), outputs, merged: new Map() };
    an.memo.set(key, entry);
  }
  defineOutputs(an, at, callee, sig.bound, sig.inputsTyped, outputs, inferred, declared, entry);
}

/** The arrays readInputs fills for analyzeNode, reused from node to node (see there). */
const SCRATCH: NodeInputs = { types: [], consts: [], syms: [] };

/**
 * The types, constant values and known shape values of a node's inputs, written into `into` at
 * their indices (what it held past them is left: readers go by the node's input count; emptying
 * the arrays would free and regrow them each time); reports undefined ones.
 */
function readInputs(
  node: Node,
  scope: Scope,
  later: { has(name: string): boolean },
  at: NodeAt,
  into: NodeInputs,
): NodeInputs {
  const { types, consts, syms } = into;
  const names = node.inputs;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    // One lookup for a value of this scope with a known type (the common case).
    const own = name === "" ? undefined : scope.types.get(name);
    const owner = own !== undefined ? scope : name === "" ? undefined : scope.owner(name);
    if (owner !== scope && scope.inOrder && name !== "" && later.has(name)) {
      // Defined by this or a later node: not the order topologicalOrder gives.
      scope.misordered = true;
      break;
    }
    if (!owner) {
      if (name !== "" && !later.has(name)) {
        at.report(
          "undefined-value",
          `input '${name}' is not defined: no graph input, initializer or node output has this name`,
        );
      }
      types[i] = undefined;
      consts[i] = undefined;
      syms[i] = undefined;
      continue;
    }
    types[i] = own ?? owner.types.get(name);
    // Most values are neither constants nor shapes: skip the lookups while there are none.
    consts[i] = owner.consts.size ? owner.consts.get(name) : undefined;
    syms[i] = owner.syms.size ? owner.syms.get(name) : undefined;
  }
  return into;
}

/** Counts of inputs and outputs, and the input types against the type constraints. */
function checkSignature(
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
function inferOutputs(
  an: Analyzer,
  at: NodeAt,
  { schema, fn }: Callee,
  { arityOk }: Signature,
  inputs: NodeInputs,
): Inferred {
  const { node, scope, ctx } = at;
  const report = at.report;
  const attrOf = (name: string): Attribute | undefined => {
    const a = node.attributes.find((x) => x.name === name);
    if (!a || a.refAttrName === undefined || !ctx.env) return a;
    return resolveRef(a, ctx.env.get(a.refAttrName));
  };
  const out: Inferred = { outputs: [], outConsts: [], outSyms: [] };
  const visited: string[] = [];
  const childWhere = (name: string) => `${at.where()} ${name}`;
  const rule = schema && arityOk && ruleFor(normaliseDomain(node.domain), node.opType);
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
        return an.analyzeGraph(a.value, scope, { ...ctx, where: childWhere(name) }, types, loose);
      },
    });
  } else if (!schema && fn) {
    out.outputs = an.inst
      .instantiate(fn, node, inputs.types, ctx, attrOf, report)
      .slice(0, node.outputs.length);
  }
  // What onnxruntime's kernels refuse of the op's attributes (schema/contrib-attributes.ts).
  if (schema && hasKernelRules(node))
    checkKernelAttributes(node, attrOf, inputs.types, inputs.consts, report);
  for (const a of node.attributes) {
    if (visited.includes(a.name)) continue;
    for (const g of attributeGraphs(a))
      an.analyzeGraph(g, scope, { ...ctx, where: childWhere(a.name) });
  }
  return out;
}

/**
 * The inferred output types with what the rule left open filled in from the schema: formal
 * types, and the types bound to the constraint variables by the inputs. Changes `outputs`.
 */
function formalOutputs(
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
function defineOutputs(
  an: Analyzer,
  at: NodeAt,
  { schema, opv }: { schema?: OpVersion; opv: string },
  bound: Bindings,
  inputsTyped: boolean,
  outputs: (Type | undefined)[],
  inferred: Inferred | undefined,
  declared: Map<string, Type | undefined>,
  entry?: MemoEntry,
): void {
  const { node, scope, ctx } = at;
  // The declared types of the outputs, as a key: "" when there are none, else typeKeys ("-"
  // for none), each followed by ",".
  let dk: string | undefined;
  if (entry) {
    dk = "";
    for (let i = 0; i < node.outputs.length; i++) {
      const name = node.outputs[i]!;
      const d = name === "" ? undefined : declared.get(name);
      if (d === undefined) continue;
      const k = an.keys.typeKey(d);
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
        const kj = dj === undefined ? "-" : an.keys.typeKey(dj);
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
        if (name !== "") define(scope, name, merged[i], at, ctx, at);
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
    if (m.conflict) at.report("type-mismatch", `output '${name}' is ${m.conflict}`);
    else if (schema) {
      const formal = formalAt(schema.outputs, i);
      if (formal && (inputsTyped || !outputs[i]))
        checkFormalType(schema, opv, formal, name, m.type, "output", bound, at.report);
    }
    if (ctx.sink.length !== before) clean = false;
    types[i] = m.type;
    define(scope, name, m.type, at, ctx, at);
    const k = inferred?.outConsts[i];
    if (k && scope.types.get(name) === m.type) scope.consts.set(name, k);
    const sy = inferred?.outSyms[i];
    if (sy && scope.types.get(name) === m.type) scope.syms.set(name, sy);
  });
  if (entry && dk !== undefined && clean) entry.merged.set(dk, types);
}

/** The node being checked, where it is, and how to report at it (both made when first asked). */
class NodeAt {
  private whereText: string | undefined;
  private reportFn: Report | undefined;
  constructor(
    readonly node: Node,
    readonly index: number,
    readonly scope: Scope,
    readonly ctx: Ctx,
  ) {}
  where(): string {
    if (this.whereText === undefined) {
      const label = nodeLabel(this.node, this.index);
      this.whereText = this.ctx.where ? `${this.ctx.where}, ${label}` : label;
    }
    return this.whereText;
  }
  get report(): Report {
    return (this.reportFn ??= (code, message) =>
      this.ctx.sink.push({ code, where: this.where(), message }));
  }
}

/** What the node calls: a schema version or a model-local function (or neither, when unresolved). */
interface Callee {
  schema?: OpVersion;
  fn?: Function;
  /** How it is named in messages ("Op-13", or the op type when unresolved). */
  opv: string;
}

export interface NodeInputs {
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
