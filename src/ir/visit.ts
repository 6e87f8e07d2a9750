// The graph visitor: rewriting node lists, nodes' subgraphs (If/Loop/Scan bodies, any graph
// attribute, at any depth), graphs and function bodies without mutating them. Each function
// returns the very object it was given when nothing in it changed, and copies only the path to
// what did: unchanged nodes, attributes and subgraphs are shared. A GraphScope says where a graph
// is (a label for messages, built only when read) and which graphs enclose it (outer names).

import { nodeLabel } from "../errors.js";
import { functionWhere } from "./functions.js";
import type { Tensor } from "./tensor.js";
import { hasGraphAttribute } from "./traverse.js";
import type { Attribute, Function, Graph, Model, Node } from "./types.js";

/** Where a subgraph sits: node `index` of the graph around it, its attribute, its place `k` in a GRAPHS list. */
export interface SubgraphSite {
  node: Node;
  index: number;
  attribute: string;
  k?: number;
}

/**
 * A graph or function body being visited: where it is, and the graphs around it. Subgraphs see
 * the names of the graphs that enclose them (outer scope); a function body sees none.
 */
export class GraphScope {
  private whereText: string | undefined;
  private whereOf: (() => string) | undefined;
  private defined: Set<string> | undefined;
  readonly depth: number;

  constructor(
    readonly owner: Graph | Function,
    where: string | (() => string),
    readonly parent?: GraphScope,
    /** For a subgraph: the node of the parent graph that holds it, and where (see child). */
    readonly site?: SubgraphSite,
  ) {
    if (typeof where === "string") this.whereText = where;
    else this.whereOf = where;
    this.depth = parent ? parent.depth + 1 : 0;
  }

  /** The scope of a model's main graph ("graph"). */
  static main(model: Pick<Model, "graph">): GraphScope {
    return new GraphScope(model.graph, "graph");
  }

  /** The scope of a local function's body ("function 'domain.Name'"). */
  static function(f: Function): GraphScope {
    return new GraphScope(f, () => functionWhere(f));
  }

  /**
   * Where the graph is, for messages: "graph", "function 'f'", or for a subgraph the node and
   * attribute holding it, "graph > node 'n3' (If) then_branch" (GRAPHS: "body[1]").
   */
  get where(): string {
    if (this.whereText === undefined) {
      this.whereText = this.whereOf!();
      this.whereOf = undefined;
    }
    return this.whereText;
  }

  /** The outermost scope: the main graph's or the function body's that this graph is inside. */
  get root(): GraphScope {
    let s: GraphScope = this;
    while (s.parent) s = s.parent;
    return s;
  }

  /** Where a node of this graph is: "graph > node 'n3' (ReduceSum)". */
  nodeWhere(node: Node, index: number): string {
    return `${this.where} > ${nodeLabel(node, index)}`;
  }

  /** The scope of a graph held by attribute `attribute` of node `index` (`k`: its place in GRAPHS). */
  child(g: Graph, node: Node, index: number, attribute: string, k?: number): GraphScope {
    return new GraphScope(
      g,
      () => `${this.nodeWhere(node, index)} ${attribute}${k === undefined ? "" : `[${k}]`}`,
      this,
      k === undefined ? { node, index, attribute } : { node, index, attribute, k },
    );
  }

  /**
   * Whether the graph itself defines the name: a graph input, an initializer (dense or sparse),
   * a function input, or an output of one of its nodes (as it was when first asked).
   */
  defines(name: string): boolean {
    if (!this.defined) {
      const d = (this.defined = new Set<string>());
      const o = this.owner;
      if ("initializers" in o) {
        for (const v of o.inputs) d.add(v.name);
        for (const t of o.initializers) d.add(t.name);
        for (const s of o.sparseInitializers) d.add(s.values.name);
      } else for (const n of o.inputs) d.add(n);
      for (const n of o.nodes) for (const out of n.outputs) if (out !== "") d.add(out);
    }
    return this.defined.has(name);
  }

  /** The scope that defines the name: this one, else the nearest enclosing one; else undefined. */
  definer(name: string): GraphScope | undefined {
    for (let s: GraphScope | undefined = this; s; s = s.parent) if (s.defines(name)) return s;
    return undefined;
  }
}

/**
 * The attribute with each graph it holds (GRAPH, GRAPHS) replaced by f(graph, k), `k` the
 * graph's place in a GRAPHS list (undefined for GRAPH). The attribute itself when none changed.
 */
export function mapAttributeGraphs(
  a: Attribute,
  f: (g: Graph, k: number | undefined) => Graph,
): Attribute {
  if (a.type === "GRAPH" && a.value) {
    const g = f(a.value, undefined);
    return g === a.value ? a : { ...a, value: g };
  }
  if (a.type === "GRAPHS" && a.value) {
    const list = a.value;
    let out: Graph[] | undefined;
    for (let k = 0; k < list.length; k++) {
      const g = f(list[k]!, k);
      if (g !== list[k]) (out ??= list.slice())[k] = g;
    }
    return out ? { ...a, value: out } : a;
  }
  return a;
}

/**
 * The node with each graph of its attributes replaced by f(graph, attribute, k) (see
 * mapAttributeGraphs). The node itself when none changed; nothing is allocated when the node
 * holds no graph.
 */
export function mapNodeGraphs(
  n: Node,
  f: (g: Graph, a: Attribute, k: number | undefined) => Graph,
): Node {
  const list = n.attributes;
  let out: Attribute[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!;
    if (a.type !== "GRAPH" && a.type !== "GRAPHS") continue;
    const b = mapAttributeGraphs(a, (g, k) => f(g, a, k));
    if (b !== a) (out ??= list.slice())[i] = b;
  }
  return out ? { ...n, attributes: out } : n;
}

/** The node with each of its subgraphs replaced by f(graph, the subgraph's scope). */
export function visitSubgraphs(
  n: Node,
  index: number,
  scope: GraphScope,
  f: (g: Graph, scope: GraphScope) => Graph,
): Node {
  return mapNodeGraphs(n, (g, a, k) => f(g, scope.child(g, n, index, a.name, k)));
}

/**
 * The list with each node replaced by what f gives for it: the node itself (kept), another node,
 * or a list of nodes (none: removed). The list itself when every node was kept.
 */
export function mapNodes(
  nodes: Node[],
  f: (node: Node, index: number) => Node | readonly Node[],
): Node[] {
  let out: Node[] | undefined;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    const r = f(n, i);
    if (r === n) {
      if (out) out.push(n);
      continue;
    }
    out ??= nodes.slice(0, i);
    if (Array.isArray(r)) for (const x of r as readonly Node[]) out.push(x);
    else out.push(r as Node);
  }
  return out ?? nodes;
}

/**
 * What a rewrite does with one node (its subgraphs already rewritten): gives it back (kept),
 * another node, or a list of nodes. `original` is the node as the list held it, before its
 * subgraphs were rewritten (labels of messages name it); `scope` is the graph holding it.
 */
export type NodeRewrite = (
  node: Node,
  index: number,
  scope: GraphScope,
  original: Node,
) => Node | readonly Node[];

/**
 * A walk over graphs that carries state per scope (the main graph, each local function's body,
 * each subgraph at any depth), in the spirit of TypeScript's visitEachChild: what the walk asks
 * of each scope, each node and each node list. Every part is optional.
 */
export interface ScopeVisitor<S> {
  /**
   * The state of a scope, made as the walk enters it: for a root scope (the main graph, a
   * function body: `parent` undefined) and for each subgraph (from the state of the graph that
   * holds it). Without it, every scope has the state the walk was given.
   */
  enter?(scope: GraphScope, parent: S | undefined): S;
  /** Each node, its subgraphs already walked (see NodeRewrite), with its graph's state. */
  node?(
    node: Node,
    index: number,
    scope: GraphScope,
    state: S,
    original: Node,
  ): Node | readonly Node[];
  /** Each node list once its nodes are walked: the list to keep (the same list: unchanged). */
  nodes?(nodes: Node[], scope: GraphScope, state: S): Node[];
}

/**
 * A node list walked with a visitor: the subgraphs of each node first (each in its own scope,
 * its state from `enter`), then the node, then the list. Nodes the visitor gives back are not
 * looked into again. Shares what does not change (see mapNodes).
 */
export function visitNodes<S>(
  nodes: Node[],
  scope: GraphScope,
  state: S,
  v: ScopeVisitor<S>,
): Node[] {
  const out = mapNodes(nodes, (n, i) => {
    const node = hasGraphAttribute(n)
      ? visitSubgraphs(n, i, scope, (g, s) => {
          const sub = visitNodes(g.nodes, s, v.enter ? v.enter(s, state) : state, v);
          return sub === g.nodes ? g : { ...g, nodes: sub };
        })
      : n;
    return v.node ? v.node(node, i, scope, state, n) : node;
  });
  return v.nodes ? v.nodes(out, scope, state) : out;
}

/**
 * The model walked with a visitor (visitNodes): the main graph, then each local function in
 * model order, each a root scope whose state `enter` makes. The model itself when nothing
 * changed; a function whose nodes changed is copied with its new nodes (anything else about it
 * is the caller's to change).
 */
export function visitModel<S>(model: Model, v: ScopeVisitor<S>, state?: S): Model {
  const root = (scope: GraphScope): S => (v.enter ? v.enter(scope, undefined) : state!);
  const main = GraphScope.main(model);
  const nodes = visitNodes(model.graph.nodes, main, root(main), v);
  let functions: Function[] | undefined;
  model.functions.forEach((fn, i) => {
    const scope = GraphScope.function(fn);
    const fnodes = visitNodes(fn.nodes, scope, root(scope), v);
    if (fnodes !== fn.nodes) (functions ??= model.functions.slice())[i] = { ...fn, nodes: fnodes };
  });
  if (nodes === model.graph.nodes && !functions) return model;
  return {
    ...model,
    graph: nodes === model.graph.nodes ? model.graph : { ...model.graph, nodes },
    functions: functions ?? model.functions,
  };
}

/**
 * Every node of a list and of its subgraphs at any depth, rewritten: the subgraphs of a node
 * first (each in its own scope), then the node (visitNodes with `f` alone).
 */
export function rewriteNodes(nodes: Node[], scope: GraphScope, f: NodeRewrite): Node[] {
  return visitNodes(nodes, scope, undefined, {
    node: (n, i, s, _, original) => f(n, i, s, original),
  });
}

/** The graph with every node rewritten (see rewriteNodes); the graph itself when none changed. */
export function rewriteGraph(g: Graph, scope: GraphScope, f: NodeRewrite): Graph {
  const nodes = rewriteNodes(g.nodes, scope, f);
  return nodes === g.nodes ? g : { ...g, nodes };
}

/**
 * The model with every node rewritten: the main graph's, then each local function's (see
 * rewriteNodes). The model itself when nothing changed.
 */
export function rewriteModel(model: Model, f: NodeRewrite): Model {
  return visitModel(model, { node: (n, i, s, _, original) => f(n, i, s, original) }, undefined);
}

/** How to rename: every value name (also "" if it may stand there), and each non-empty node name. */
export interface Renaming {
  value: (name: string) => string;
  node: (name: string) => string;
}

/**
 * The node with its inputs, outputs, subgraphs and name renamed. Names are asked for in a fixed
 * order (inputs, outputs, subgraphs, then the node's name), so fresh names come out the same
 * every time.
 */
export function renameNode(n: Node, r: Renaming): Node {
  const copy: Node = {
    ...n,
    inputs: n.inputs.map(r.value),
    outputs: n.outputs.map(r.value),
    attributes: n.attributes.map((a) => mapAttributeGraphs(a, (g) => renameGraph(g, r))),
  };
  if (n.name) copy.name = r.node(n.name);
  return copy;
}

/** The graph with every name in it renamed: inputs, outputs, value_info, initializers, nodes. */
export function renameGraph(g: Graph, r: Renaming): Graph {
  return {
    ...g,
    inputs: g.inputs.map((v) => ({ ...v, name: r.value(v.name) })),
    outputs: g.outputs.map((v) => ({ ...v, name: r.value(v.name) })),
    valueInfo: g.valueInfo.map((v) => ({ ...v, name: r.value(v.name) })),
    initializers: g.initializers.map((t) => {
      const c = Object.assign(Object.create(Object.getPrototypeOf(t) as object), t) as Tensor;
      c.name = r.value(t.name);
      return c;
    }),
    nodes: g.nodes.map((n) => renameNode(n, r)),
  };
}
