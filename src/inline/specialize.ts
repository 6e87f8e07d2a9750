// Model-local functions specialized per call signature. The checker types a function's body by
// its calls (check/instantiate.ts: what all instantiations agree on), so where the calls of a
// function differ — called with float and with double, or with a rank-3 and a rank-4 input — its
// body is typed only as far as they agree, and a step that needs more (CastLike's target type
// when its function op is lowered, an adapter that needs an element type or a rank, such as
// Softmax-13's axis going down to 11) cannot be taken there. Copying the function once per
// distinct signature of its calls, and pointing each call at its copy, types every copy's body
// by calls that agree. Used by the converter (src/convert/convert-model.ts: a conversion blocked
// inside local functions is tried again on the copies) and by the lowering of missing function
// ops (src/expand/lower-missing.ts).
//
// A signature is the element types of a call's inputs and outputs (`level: "elem"`), plus their
// ranks ("rank"), plus their dims ("shape"); callers ask for the coarsest that lets the step
// through, so a function is not copied for differences its body does not care about.
//
// Callers first: a function's calls are grouped only once the functions holding them are typed
// by one signature each (their own calls agree, or they were split in an earlier round and each
// copy is called with one), so a nested function is split in the round after its caller. Only
// the functions asked for and those that call them (at any depth) are looked at; a function whose
// calls all agree keeps its identity, and of one that is split the first signature (in the order
// of its calls, the main graph's first) keeps the name, the others get `name__2`, `name__3`, ...
// (A function called once is typed by that call already: it is never copied.) Copies are bounded
// like any expansion (bounds.ts).

import { inferScopeTypes, modelFunctions } from "../check/index.js";
import { functionKey, functionLabel, functionWhere, nodeCount } from "../ir/functions.js";
import { walkGraphNodes } from "../ir/visit.js";
import type { Function, Graph, Model, Node, Type } from "../ir/types.js";
import { mapNodeGraphs, rewriteModel } from "../ir/visit.js";
import type { Note } from "../passes/pass.js";
import type { SchemaRegistry } from "../schema/registry.js";
import { biggest, budgetNotes, tally, type Budget, type Contributor } from "./bounds.js";

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

/** What a call signature tells apart: element types; and ranks; and dims too. */
export type SignatureLevel = "elem" | "rank" | "shape";

/** The levels from the coarsest, each telling apart what the one before it does and more. */
export const SIGNATURE_LEVELS: readonly SignatureLevel[] = ["elem", "rank", "shape"];

export interface SpecializeOptions extends Budget {
  /** What a signature tells apart (default "elem"). */
  level?: SignatureLevel;
}

/**
 * `model` with the functions of `wanted` (by key, functionKey) and their callers split per
 * signature of their calls (`options.level`), round by round (callers first), within the bound.
 */
export function specializeFunctions(
  model: Model,
  wanted: Set<string>,
  registry: SchemaRegistry,
  options: SpecializeOptions = {},
): Specialized {
  const want = new Set(wanted);
  let current = model;
  const copies: string[] = [];
  // Each round splits at least one function, a level deeper than the last.
  for (let round = 0; round <= model.functions.length; round++) {
    const split = splitRound(current, want, registry, options.level ?? "elem");
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
  level: SignatureLevel,
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
  const valueKey = (owner: Graph | Function, name: string) =>
    name === "" ? "-" : typeKey(types.get(owner)?.get(name), level);
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
        ...c.node.inputs.map((x) => valueKey(c.owner, x)),
        "->",
        ...c.node.outputs.map((x) => valueKey(c.owner, x)),
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

/**
 * A type as a signature of `level` sees it: its element types, and its rank or dims as asked;
 * "?" for what is not known.
 */
function typeKey(t: Type | undefined, level: SignatureLevel): string {
  if (!t) return "?";
  switch (t.kind) {
    case "tensor":
    case "sparse_tensor": {
      const elem = `${t.kind === "tensor" ? "t" : "s"}${t.elemType || "?"}`;
      if (level === "elem") return elem;
      if (!t.shape) return `${elem}[?]`;
      if (level === "rank") return `${elem}[r${t.shape.length}]`;
      return `${elem}${JSON.stringify(t.shape)}`;
    }
    case "sequence":
      return `seq(${typeKey(t.elem, level)})`;
    case "optional":
      return `opt(${typeKey(t.elem, level)})`;
    case "map":
      return `map(${t.keyType},${typeKey(t.value, level)})`;
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
  options: Budget,
): Note[] {
  let total = nodeCount(model.graph);
  for (const f of model.functions) total += nodeCount(f);
  const by = new Map<string, Contributor>();
  for (const [f, [k, n]] of added) tally(by, functionWhere(f), k, n);
  return budgetNotes(total, biggest(by.values()), options);
}
