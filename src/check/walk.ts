// Walking graphs and function bodies: their inputs, initializers and declared types defined in
// a scope (the enclosing graph's visible to subgraphs), their nodes analysed in dependency order
// (the stored order while it is one), their outputs checked, and the types found recorded.
// A walk of its own rather than the shared visitor's (ir/visit.ts): nodes go in dependency order,
// not stored order, each scope carries the values defined so far, and a subgraph is analysed
// when its node is, with the types its node gives it.

import { OnnxError } from "../errors.js";
import { outerNamesUsedBy, topologicalOrder } from "../ir/graph.js";
import { hasGraphAttribute } from "../ir/visit.js";
import type { Function, Graph, Type } from "../ir/types.js";
import type { Analyzer } from "./analyze.js";
import { constFromTensor } from "./consts.js";
import { analyzeNode } from "./node.js";
import { define, Scope, type Ctx } from "./scope.js";
import { tensorDataProblem } from "../ir/tensor-data.js";
import { isTensor, mergeTypes, tensorOf } from "./types.js";

/** Checks a function body; returns the types of its outputs. */
export function analyzeBody(
  an: Analyzer,
  f: Function,
  inputTypes: (Type | undefined)[] | undefined,
  ctx: Ctx,
): (Type | undefined)[] {
  const scope = new Scope();
  const vi = new Map(f.valueInfo.map((v) => [v.name, v.type] as const));
  f.inputs.forEach((name, i) => {
    define(
      scope,
      name,
      mergeTypes(vi.get(name), inputTypes?.[i]).type,
      "function input",
      ctx,
      ctx.where,
    );
  });
  analyzeNodes(an, f, scope, ctx, vi);
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
  if (ctx.record) record(an, f, scope);
  return outs;
}

export function record(an: Analyzer, owner: Graph | Function, scope: Scope): void {
  // The scope is complete here: its map is kept as it is unless some value has no type.
  let complete = true;
  for (const v of scope.types.values())
    if (!v) {
      complete = false;
      break;
    }
  if (complete) {
    an.setTypes(owner, scope.types as Map<string, Type>);
    return;
  }
  const m = new Map<string, Type>();
  for (const [k, v] of scope.types) if (v) m.set(k, v);
  an.setTypes(owner, m);
}

/** Checks a graph; returns the types of its outputs. `provided`: input types a node passes to a subgraph. */
export function analyzeGraph(
  an: Analyzer,
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
    if (m.conflict && loose && isTensor(v.type) && isTensor(p) && v.type.elemType === p.elemType) {
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
    define(scope, v.name, m.type, "a graph input", ctx, gWhere);
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
    define(scope, t.name, type, "an initializer", ctx, gWhere);
    const k = constFromTensor(t);
    if (k) scope.consts.set(t.name, k);
  }
  for (const s of g.sparseInitializers) {
    define(
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
  analyzeNodes(an, g, scope, ctx, declared);
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
  if (ctx.record) record(an, g, scope);
  return outs;
}

export function analyzeNodes(
  an: Analyzer,
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
  if (analyzeInOrder(an, owner, scope, ctx, declared, later)) return;
  let order: number[];
  try {
    order = topologicalOrder(owner);
  } catch (e) {
    if (!(e instanceof OnnxError)) throw e;
    const msg = e.where ? e.message.slice(e.where.length + 2) : e.message;
    ctx.sink.push({
      code: "cycle",
      where: ctx.where || ("name" in owner && owner.name ? `graph '${owner.name}'` : "main graph"),
      message: msg,
    });
    order = owner.nodes.map((_, i) => i);
  }
  scope.order = order;
  for (const i of order) analyzeNode(an, owner.nodes[i]!, i, scope, ctx, declared, later);
}

/**
 * Most graphs are stored in order, and topologicalOrder then keeps it: the nodes are analysed
 * in their stored order while that is seen to be the order it gives, that is while no node
 * reads a value that it or a later node defines (a value not yet defined that some node
 * defines, or a node output defined twice). When one does, everything the nodes did is undone
 * (scope, problems, recorded scopes; the memos hold facts that do not depend on order) and
 * false is returned: the caller analyses them in topological order.
 */
function analyzeInOrder(
  an: Analyzer,
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
  const recorded = an.types.size;
  scope.order = undefined;
  scope.inOrder = true;
  scope.misordered = false;
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    // Inputs are seen to by readInputs, which stops the node at the first one ahead.
    if (hasGraphAttribute(node))
      for (const name of outerNamesUsedBy(node))
        if (!scope.types.has(name) && later.has(name)) scope.misordered = true;
    if (!scope.misordered) analyzeNode(an, node, i, scope, ctx, declared, later);
    if (!scope.misordered) continue;
    // Undo: values and scopes are dropped in the reverse of the order they were added.
    const added = [...scope.types.keys()].slice(typesSize);
    for (const name of added) scope.types.delete(name);
    scope.consts.clear();
    for (const [k, v] of consts) scope.consts.set(k, v);
    scope.syms.clear();
    for (const [k, v] of syms) scope.syms.set(k, v);
    ctx.sink.length = problems;
    const owners = [...an.types.keys()].slice(recorded);
    for (const o of owners) an.types.delete(o);
    scope.inOrder = false;
    scope.misordered = false;
    return false;
  }
  scope.inOrder = false;
  return true;
}
