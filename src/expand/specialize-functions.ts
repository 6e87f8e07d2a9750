// Model-local functions specialized per call signature, for lowering (lower-missing.ts): a
// function op inside a local function whose body needs its input types (CastLike needs the
// element type of its target) can only be lowered where the function's calls agree on them. The
// checker types a function's body by its calls (check/instantiate.ts: what all instantiations
// agree on); where the calls of a function that needs it differ in element types (called with
// float and with double), the function is copied once per distinct signature — the element
// types of a call's inputs and outputs, shapes aside — and each call pointed to its copy, so
// every copy's body is typed by calls that agree.
//
// Callers first: a function's calls are grouped only once the functions holding them are typed
// by one signature each (their own calls agree, or they were split in an earlier round and each
// copy is called with one), so a nested function is split in the round after its caller. Only
// the functions asked for and those that call them (at any depth) are looked at; a function whose
// calls all agree keeps its identity, and of one that is split the first signature (in the order
// of its calls, the main graph's first) keeps the name, the others get `name__2`, `name__3`, ...
// Copies are bounded like any expansion (bounds.ts).

import { inferScopeTypes, modelFunctions } from "../check/index.js";
import { functionKey, functionLabel, functionWhere, nodeCount } from "../ir/functions.js";
import { walkGraphNodes } from "../ir/visit.js";
import type { Function, Graph, Model, Node, Type } from "../ir/types.js";
import { mapNodeGraphs, rewriteModel } from "../ir/visit.js";
import type { Note } from "../passes/pass.js";
import type { SchemaRegistry } from "../schema/registry.js";
import { biggest, budgetNotes, tally, type Contributor } from "./bounds.js";
import type { ExpandOptions } from "./context.js";

/**
 * What specializing gave: the model (the input itself when nothing was split) and the copies
 * made (as messages name functions), or a failure.
 */
export type Specialized =
  { ok: true; model: Model; copies: string[] } | { ok: false; notes: Note[] };

/** A call of a local function: the node, the graph holding it, and the function or main graph. */
interface CallSite {
  node: Node;
  owner: Graph | Function;
  top: Graph | Function;
}

/**
 * `model` with the functions of `wanted` (by key, functionKey) and their callers split per
 * element-type signature of their calls, round by round (callers first). Options: the bound.
 */
export function specializeFunctions(
  model: Model,
  wanted: Set<string>,
  registry: SchemaRegistry,
  options: Pick<ExpandOptions, "maxNodes" | "maxMemory"> = {},
): Specialized {
  const want = new Set(wanted);
  let current = model;
  const copies: string[] = [];
  // Each round splits at least one function, a level deeper than the last.
  for (let round = 0; round <= model.functions.length; round++) {
    const split = splitRound(current, want, registry);
    if (!split) break;
    copies.push(...split.copies);
    current = split.model;
    const notes = bound(current, split.added, options);
    if (notes.length) return { ok: false, notes };
  }
  return { ok: true, model: current, copies };
}

/** One round: the functions ready to split, split; undefined when none is. */
function splitRound(
  model: Model,
  want: Set<string>,
  registry: SchemaRegistry,
): { model: Model; copies: string[]; added: Map<Function, [number, number]> } | undefined {
  const table = modelFunctions(model, registry);
  const reached = table.reachable(model.graph);
  const key = (f: Function) => functionKey(f.domain, f.name, f.overload);

  // The calls of each function reached: in the main graph, then in the functions reached.
  const sites = new Map<Function, CallSite[]>();
  const callers = new Map<Function, Set<Function>>();
  const collect = (top: Graph | Function) => {
    for (const { node, owner } of walkGraphNodes(top)) {
      const f = table.called(node);
      if (!f || !reached.has(f)) continue;
      let list = sites.get(f);
      if (!list) sites.set(f, (list = []));
      list.push({ node, owner, top });
      if (top !== model.graph) {
        let set = callers.get(f);
        if (!set) callers.set(f, (set = new Set()));
        set.add(top as Function);
      }
    }
  };
  collect(model.graph);
  const order = (table.order() ?? []).filter((f) => reached.has(f));
  for (const f of order) collect(f);

  // The functions looked at: those wanted, and whatever calls them, at any depth.
  const needy = new Set<Function>();
  const work = order.filter((f) => want.has(key(f)));
  while (work.length) {
    const f = work.pop()!;
    if (needy.has(f)) continue;
    needy.add(f);
    for (const c of callers.get(f) ?? []) work.push(c);
  }
  if (needy.size === 0) return undefined;

  const types = inferScopeTypes(model, { registry });
  const typeKey = (owner: Graph | Function, name: string) =>
    name === "" ? "-" : elemKey(types.get(owner)?.get(name));
  /** Functions typed by one signature in this round's types. */
  const settled = new Set<Function>();
  /** The functions to split, with the new name of each call whose copy is not the original. */
  const renamed = new Map<Node, string>();
  const made: { from: Function; names: string[] }[] = [];
  const taken = new Set(model.functions.map(key));

  for (let i = order.length - 1; i >= 0; i--) {
    const f = order[i]!;
    if (!needy.has(f)) continue;
    const calls = sites.get(f) ?? [];
    // Its calls are typed by one signature each only where their holders are.
    if (calls.some((c) => c.top !== model.graph && !settled.has(c.top as Function))) continue;
    const groups = new Map<string, CallSite[]>();
    for (const c of calls) {
      const sig = [
        ...c.node.inputs.map((x) => typeKey(c.owner, x)),
        "->",
        ...c.node.outputs.map((x) => typeKey(c.owner, x)),
      ].join(" ");
      const g = groups.get(sig);
      if (g) g.push(c);
      else groups.set(sig, [c]);
    }
    if (groups.size <= 1) {
      settled.add(f);
      continue;
    }
    const names: string[] = [];
    let k = 2;
    for (const group of [...groups.values()].slice(1)) {
      let name: string;
      do name = `${f.name}__${k++}`;
      while (taken.has(functionKey(f.domain, name, f.overload)));
      taken.add(functionKey(f.domain, name, f.overload));
      if (want.has(key(f))) want.add(functionKey(f.domain, name, f.overload));
      names.push(name);
      for (const c of group) renamed.set(c.node, name);
    }
    made.push({ from: f, names });
  }
  if (made.length === 0) return undefined;

  // The calls pointed at their copies (they sit in the main graph and in functions not split).
  const pointed = rewriteModel(model, (node, _i, _s, original) => {
    const name = renamed.get(original);
    return name === undefined ? node : { ...node, opType: name };
  });
  const added = new Map<Function, [copies: number, nodes: number]>();
  const functions: Function[] = [];
  const copies: string[] = [];
  for (const f of pointed.functions) {
    functions.push(f);
    const m = made.find((x) => key(x.from) === key(f));
    if (!m) continue;
    for (const name of m.names) {
      functions.push({ ...f, name, nodes: f.nodes.map(copyNode) });
      copies.push(`'${functionLabel({ ...f, name })}'`);
    }
    added.set(f, [m.names.length, m.names.length * nodeCount(f)]);
  }
  return { model: { ...pointed, functions }, copies, added };
}

/** A type as a signature sees it: its element types, shapes aside; "?" when not known. */
function elemKey(t: Type | undefined): string {
  if (!t) return "?";
  switch (t.kind) {
    case "tensor":
    case "sparse_tensor":
      return `${t.kind === "tensor" ? "t" : "s"}${t.elemType || "?"}`;
    case "sequence":
      return `seq(${elemKey(t.elem)})`;
    case "optional":
      return `opt(${elemKey(t.elem)})`;
    case "map":
      return `map(${t.keyType},${elemKey(t.value)})`;
    default:
      return JSON.stringify(t);
  }
}

/** A node copied with its subgraphs (types are kept per graph object: copies share none). */
function copyNode(n: Node): Node {
  const m = mapNodeGraphs(n, (g) => ({ ...g, nodes: g.nodes.map(copyNode) }));
  return m === n ? { ...n } : m;
}

/** The bound on the model with its copies: its nodes (graph and functions) within budget. */
function bound(
  model: Model,
  added: Map<Function, [copies: number, nodes: number]>,
  options: Pick<ExpandOptions, "maxNodes" | "maxMemory">,
): Note[] {
  let total = nodeCount(model.graph);
  for (const f of model.functions) total += nodeCount(f);
  const by = new Map<string, Contributor>();
  for (const [f, [k, n]] of added) tally(by, functionWhere(f), k, n);
  return budgetNotes(total, biggest(by.values()), options);
}
