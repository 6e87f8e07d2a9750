// The graphs a graph-local pass works on: the main graph, every subgraph at any depth (If/Loop/
// Scan bodies, any graph attribute) and every model-local function's body, each with the rules
// of its scope. A subgraph reads names of the graphs around it: it may read them, but they are
// not its to fold away, rename or take for constants (another graph defines them), and its own
// inputs (a Loop's iteration count and carried values, a Scan's slices) are never constants. A
// function's body sees only its inputs and attributes (no names from outside, no initializers:
// a constant there is a Constant node). Each subgraph is done before the graph that holds it, so
// a graph sees what its subgraphs read from it once they are simplified.

import { node as makeNode } from "../ir/builder.js";
import { freeNames, NameScope } from "../ir/graph.js";
import { GraphScope, visitNodes } from "../ir/visit.js";
import type { Function, Graph, Model, Node } from "../ir/types.js";
import { countedResult, type Pass } from "./pass.js";

export interface PassScope {
  kind: "main" | "subgraph" | "function";
  /** Where, for notes: "graph", "graph > node 'n3' (If) then_branch", "function 'f'". */
  where: string;
  /** The graph or function as the model holds it (the checker's types are kept by it). */
  owner: Graph | Function;
  /** Names read from the graphs around (a subgraph's); empty for the main graph and functions. */
  outer: ReadonlySet<string>;
  /** The nodes that hold the graph, the innermost first (none for the main graph and functions). */
  sites: readonly Node[];
  /** The graph or function, then each graph around it outward (as the model holds them). */
  owners: readonly (Graph | Function)[];
  /** A name used nowhere in the graph's root (the main graph with its subgraphs, or the function). */
  fresh(base: string): string;
}

const NO_NAMES: ReadonlySet<string> = new Set();

/** A function's body as a graph: its inputs and outputs as value infos without types. */
function functionGraph(fn: Function, nodes: Node[]): Graph {
  return {
    name: fn.name,
    nodes,
    inputs: fn.inputs.map((name) => ({ name })),
    outputs: fn.outputs.map((name) => ({ name })),
    initializers: [],
    sparseInitializers: [],
    valueInfo: fn.valueInfo,
  };
}

/**
 * The model with `f` applied to each graph: every subgraph (innermost first), then the main
 * graph, then each local function's body (given as a graph: functionGraph). `f` gives back the
 * graph (itself when nothing changed). Initializers `f` adds to a function body come back as
 * Constant nodes at its front. `functions: false`: function bodies are left as they are.
 */
export function eachScope(
  model: Model,
  f: (g: Graph, scope: PassScope) => Graph,
  opts: { functions?: boolean } = {},
): Model {
  const rootOf = (root: GraphScope, names: () => NameScope) => {
    return (scope: GraphScope, kind: PassScope["kind"], g: Graph): PassScope => ({
      kind,
      get where() {
        return scope.where;
      },
      owner: scope.owner,
      get outer() {
        return kind === "subgraph" ? freeNames(g) : NO_NAMES;
      },
      get owners() {
        const out: (Graph | Function)[] = [];
        for (let s: GraphScope | undefined = scope; s; s = s.parent) out.push(s.owner);
        return out;
      },
      get sites() {
        const out: Node[] = [];
        for (let s: GraphScope | undefined = scope; s?.site; s = s.parent) out.push(s.site.node);
        return out;
      },
      fresh: (base) => names().fresh(base),
    });
  };
  const walk = (root: GraphScope, nodes: Node[], make: ReturnType<typeof rootOf>): Node[] =>
    visitNodes(nodes, root, undefined, {
      graph(g, list, scope) {
        const sub = list === g.nodes ? g : { ...g, nodes: list };
        return f(sub, make(scope, "subgraph", sub));
      },
    });

  const main = GraphScope.main(model);
  let mainNames: NameScope | undefined;
  const mainMake = rootOf(main, () => (mainNames ??= new NameScope(model.graph)));
  const mainNodes = walk(main, model.graph.nodes, mainMake);
  const g0 = mainNodes === model.graph.nodes ? model.graph : { ...model.graph, nodes: mainNodes };
  const graph = f(g0, mainMake(main, "main", g0));

  let functions: Function[] | undefined;
  if (opts.functions !== false)
    model.functions.forEach((fn, i) => {
      const scope = GraphScope.function(fn);
      let names: NameScope | undefined;
      const make = rootOf(scope, () => (names ??= new NameScope(fn)));
      const nodes = walk(scope, fn.nodes, make);
      const before = functionGraph(fn, nodes);
      const after = f(before, make(scope, "function", before));
      if (after === before && nodes === fn.nodes) return;
      const constants = after.initializers.map((t) =>
        makeNode(
          "Constant",
          [],
          [t.name],
          { value: t },
          { name: (names ??= new NameScope(fn)).fresh(`${t.name}_const`) },
        ),
      );
      (functions ??= model.functions.slice())[i] = {
        ...fn,
        nodes: constants.length ? [...constants, ...after.nodes] : after.nodes,
        valueInfo: after.valueInfo,
      };
    });
  if (graph === model.graph && !functions) return model;
  return { ...model, graph, functions: functions ?? model.functions };
}

/**
 * A pass that is `f` applied to every graph (eachScope) counting what it changes: `f` gives the
 * graph back (itself when nothing changed) and the number of changes it made (0 with it); the
 * count is said by `say` (countedResult).
 */
export function scopePass(
  name: string,
  say: (count: number) => string,
  f: (g: Graph, scope: PassScope) => { graph: Graph; changed: number },
  opts: { functions?: boolean } = {},
): Pass {
  return {
    name,
    run(model) {
      let count = 0;
      const out = eachScope(
        model,
        (g, scope) => {
          const r = f(g, scope);
          count += r.changed;
          return r.graph;
        },
        opts,
      );
      return countedResult(model, out, count, say);
    },
  };
}

/**
 * Whether the checker's shapes hold for every run of the graph: the main graph, and branches of
 * Ifs in it (not a Loop or Scan body, which runs again on values whose shapes may change from
 * one run to the next, nor a function's body, whose shapes are those of one call).
 */
export function shapesKnown(scope: PassScope): boolean {
  if (scope.kind === "function") return false;
  return scope.sites.every((n) => n.opType === "If" && (n.domain ?? "") === "");
}
