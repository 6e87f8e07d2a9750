// A model's local functions as a table: each function's key and label, the function a node
// calls, the call graph among them (callees, a callee-first order, what the main graph reaches,
// cycles), and each function's size in nodes, as it is and once its calls are inlined. Nothing
// here recurses along calls: a chain of calls may be deeper than the call stack.

import { normaliseDomain } from "./opsets.js";
import { someGraphNode } from "./visit.js";
import type { Function, Graph, Model, Node } from "./types.js";

/** What names a function (or a call of one): domain, name and overload. */
export interface FunctionId {
  domain: string;
  name: string;
  overload?: string;
}

/** The key of a model-local function (or a call to one): domain (normalised), name, overload. */
export const functionKey = (domain: string, name: string, overload?: string): string =>
  `${normaliseDomain(domain)}\u0000${name}\u0000${overload ?? ""}`;

/**
 * How a model-local function is named in messages and diffs: "domain.Name:overload" (ai.onnx,
 * written "" or "ai.onnx", and an absent overload left out).
 */
export const functionLabel = (f: FunctionId): string => {
  const d = normaliseDomain(f.domain);
  return `${d ? `${d}.` : ""}${f.name}${f.overload ? `:${f.overload}` : ""}`;
};

/** Where a function is, for messages: "function 'domain.Name'". */
export const functionWhere = (f: FunctionId): string => `function '${functionLabel(f)}'`;

/** A cycle of calls as messages show it: "'f' -> 'g' -> 'f'". */
export const cyclePath = (cycle: readonly FunctionId[]): string =>
  [...cycle, cycle[0]!].map((f) => `'${functionLabel(f)}'`).join(" -> ");

/** How many nodes a graph or function body holds, those of its subgraphs at any depth included. */
export function nodeCount(owner: Graph | Function): number {
  let n = 0;
  someGraphNode(owner, () => void n++);
  return n;
}

/**
 * A model's nodes counted two ways, as every command and the page say them: `main`, the main
 * graph's own node list (what a pane draws); `all`, every graph (the main graph's subgraphs at
 * any depth, and every model-local function's body with its subgraphs).
 */
export function modelNodeCounts(model: Model): { main: number; all: number } {
  let all = nodeCount(model.graph);
  for (const f of model.functions) all += nodeCount(f);
  return { main: model.graph.nodes.length, all };
}

/**
 * Whether (domain, name) is an operator of the opset a model imports for that domain. Where it
 * is, the operator wins over a local function of that name: every call runs the operator (as
 * onnxruntime does), and the function can never be called. The schema registry knows; a layer
 * above ir/ builds the predicate (check/'s `modelFunctions`).
 */
export type IsOperator = (domain: string, name: string) => boolean;

/**
 * The local functions of a model, by key; the first definition of a key counts. With an
 * `isOperator` predicate, a function whose (domain, name) is an operator is shadowed: listed,
 * but no node calls it.
 */
export class FunctionTable {
  private readonly byKey = new Map<string, Function>();
  /** The functions' names: most nodes are told apart from calls by their op type alone. */
  private readonly names = new Set<string>();
  /** Each key's function, in the order of the model. */
  readonly functions: Function[] = [];
  /** Later definitions of a key already defined (a model error the checker reports). */
  readonly duplicates: Function[] = [];
  /** Functions whose (domain, name) is an operator of the imported opset: never called. */
  readonly shadowed: Function[] = [];
  private calls: Map<Function, Function[]> | undefined;
  private readonly counts = new Map<Function, number>();

  constructor(functions: readonly Function[], isOperator?: IsOperator) {
    const shadowed = new Set<string>();
    for (const f of functions) {
      const k = functionKey(f.domain, f.name, f.overload);
      if (this.byKey.has(k) || shadowed.has(k)) {
        this.duplicates.push(f);
        continue;
      }
      this.functions.push(f);
      if (isOperator?.(normaliseDomain(f.domain), f.name)) {
        shadowed.add(k);
        this.shadowed.push(f);
        continue;
      }
      this.byKey.set(k, f);
      this.names.add(f.name);
    }
  }

  get size(): number {
    return this.functions.length;
  }

  /** The function of this domain, name and overload (none when an operator shadows it). */
  lookup(domain: string, name: string, overload?: string): Function | undefined {
    if (!this.names.has(name)) return undefined;
    return this.byKey.get(functionKey(domain, name, overload));
  }

  /** The local function a node calls, if any. */
  called(node: Pick<Node, "domain" | "opType" | "overload">): Function | undefined {
    return this.lookup(node.domain, node.opType, node.overload);
  }

  /** The functions f calls (in its subgraphs too), each once, in the order of their first call. */
  callees(f: Function): Function[] {
    this.calls ??= new Map();
    let list = this.calls.get(f);
    if (!list) {
      const out: Function[] = [];
      if (this.byKey.size)
        someGraphNode(f, (node) => {
          const g = this.called(node);
          if (g && !out.includes(g)) out.push(g);
        });
      this.calls.set(f, (list = out));
    }
    return list;
  }

  /**
   * Every cycle of calls, each once (whichever function it is found from), in the order a
   * depth-first walk from the functions in model order finds them. A cycle lists its functions
   * from the one first entered; the call back to it is implied (see cyclePath). The walk keeps
   * its own stack: a chain of calls may be deeper than the call stack.
   */
  cycles(): Function[][] {
    const found: Function[][] = [];
    const seen = new Set<string>();
    this.depthFirst((path, g) => {
      const cycle = path.slice(path.indexOf(g));
      const id = cycle
        .map((x) => functionKey(x.domain, x.name, x.overload))
        .sort()
        .join("\u0001");
      if (!seen.has(id)) {
        seen.add(id);
        found.push(cycle);
      }
    });
    return found;
  }

  /**
   * The functions callee-first: each after every function it calls (a post-order of the walk
   * from the functions in model order, callees in the order of their first call); undefined when
   * calls form a cycle.
   */
  order(): Function[] | undefined {
    if (this.ordered === undefined) {
      const out: Function[] = [];
      let cyclic = false;
      this.depthFirst(
        () => void (cyclic = true),
        (f) => void out.push(f),
      );
      this.ordered = cyclic ? null : out;
    }
    return this.ordered ?? undefined;
  }
  private ordered: Function[] | null | undefined;

  /**
   * A depth-first walk of the call graph from each function in model order, with an explicit
   * stack: `back(path, g)` for a call back to a function on the path (a cycle), `done(f)` when
   * every function f calls has been walked.
   */
  private depthFirst(
    back: (path: Function[], g: Function) => void,
    done?: (f: Function) => void,
  ): void {
    const state = new Map<Function, 1 | 2>();
    const path: Function[] = [];
    const next: number[] = [];
    for (const root of this.functions) {
      if (state.has(root)) continue;
      state.set(root, 1);
      path.push(root);
      next.push(0);
      while (path.length) {
        const top = path.length - 1;
        const f = path[top]!;
        const callees = this.callees(f);
        if (next[top]! < callees.length) {
          const g = callees[next[top]!++]!;
          const s = state.get(g);
          if (s === 1) back(path, g);
          else if (s === undefined) {
            state.set(g, 1);
            path.push(g);
            next.push(0);
          }
          continue;
        }
        path.pop();
        next.pop();
        state.set(f, 2);
        done?.(f);
      }
    }
  }

  /**
   * The local functions a graph calls, directly or through other functions (subgraphs
   * included): for a model's main graph, the functions that are ever called.
   */
  reachable(from: Graph): Set<Function> {
    const seen = new Set<Function>();
    if (this.byKey.size === 0) return seen;
    const queue: Function[] = [];
    const add = (f: Function | undefined): void => {
      if (f && !seen.has(f)) {
        seen.add(f);
        queue.push(f);
      }
    };
    someGraphNode(from, (node) => add(this.called(node)));
    while (queue.length) for (const g of this.callees(queue.pop()!)) add(g);
    return seen;
  }

  /**
   * Each function's node count once the calls `selected` picks are inlined, at any depth (such
   * a call counts as its callee's count; any other node as one): callee-first over order().
   * Empty when calls form a cycle.
   */
  inlinedSizes(selected: (f: Function) => boolean = () => true): Map<Function, number> {
    const sizes = new Map<Function, number>();
    for (const f of this.order() ?? []) sizes.set(f, this.inlinedSize(f, sizes, selected));
    return sizes;
  }

  /**
   * The node count of a graph or function body once the calls `selected` picks are inlined,
   * given the callees' counts (`sizes`, see inlinedSizes; a callee without one counts as
   * Infinity).
   */
  inlinedSize(
    owner: Graph | Function,
    sizes: ReadonlyMap<Function, number>,
    selected: (f: Function) => boolean = () => true,
  ): number {
    let n = 0;
    someGraphNode(owner, (node) => {
      const f = this.called(node);
      n += f && selected(f) ? (sizes.get(f) ?? Infinity) : 1;
    });
    return n;
  }

  /**
   * The nodes of f's body, those of its subgraphs at any depth included (calls count as one
   * node each): what putting the body in for a call adds, before its own calls are expanded.
   */
  nodeCount(f: Function): number {
    let n = this.counts.get(f);
    if (n === undefined) this.counts.set(f, (n = nodeCount(f)));
    return n;
  }
}
