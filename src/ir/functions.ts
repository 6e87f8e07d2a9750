// A model's local functions as a table: each function's key and label, the function a node
// calls, the call graph among them, its cycles, and each function's size in nodes.

import { normaliseDomain } from "./opsets.js";
import { someGraphNode } from "./traverse.js";
import type { Function, Graph, Node } from "./types.js";

/** What names a function (or a call of one): domain, name and overload. */
export interface FunctionId {
  domain: string;
  name: string;
  overload?: string;
}

/** The key of a model-local function (or a call to one): domain (normalised), name, overload. */
export const functionKey = (domain: string, name: string, overload?: string): string =>
  `${normaliseDomain(domain)}\u0000${name}\u0000${overload ?? ""}`;

/** How a model-local function is named in messages: "domain.Name:overload". */
export const functionLabel = (f: FunctionId): string =>
  `${f.domain ? `${f.domain}.` : ""}${f.name}${f.overload ? `:${f.overload}` : ""}`;

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
   * from the one first entered; the call back to it is implied (see cyclePath).
   */
  cycles(): Function[][] {
    const found: Function[][] = [];
    const state = new Map<Function, 1 | 2>();
    const stack: Function[] = [];
    const seen = new Set<string>();
    const visit = (f: Function): void => {
      state.set(f, 1);
      stack.push(f);
      for (const g of this.callees(f)) {
        const s = state.get(g);
        if (s === 1) {
          const cycle = stack.slice(stack.indexOf(g));
          const id = cycle
            .map((x) => functionKey(x.domain, x.name, x.overload))
            .sort()
            .join("\u0001");
          if (!seen.has(id)) {
            seen.add(id);
            found.push(cycle);
          }
        } else if (s === undefined) visit(g);
      }
      stack.pop();
      state.set(f, 2);
    };
    for (const f of this.functions) if (!state.has(f)) visit(f);
    return found;
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
