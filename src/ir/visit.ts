// The one module of graph walks. Reading: every graph of a model (main, If/Loop/Scan bodies, any
// graph attribute, at any depth), every function, every node and every tensor. Rewriting: node
// lists, nodes' subgraphs, graphs and function bodies without mutating them; each function
// returns the very object it was given when nothing in it changed, and copies only the path to
// what did: unchanged nodes, attributes and subgraphs are shared. A GraphScope says where a graph
// is (a label for messages, built only when read) and which graphs enclose it (outer names).
// Renaming: one renamer (renameNodes), and replaceUses / renameValues on it.
// Every walk keeps its own stack: none recurses along the nesting of graphs, which a model may
// make deeper than the call stack.

import { nodeLabel } from "../errors.js";
import { graph } from "./builder.js";
import { functionKey, functionWhere } from "./functions.js";
import type { Tensor } from "./tensor.js";
import type { Attribute, Function, Graph, Model, Node } from "./types.js";

/** The graphs an attribute holds. */
export function attributeGraphs(a: Attribute): Graph[] {
  if (a.type === "GRAPH" && a.value) return [a.value];
  if (a.type === "GRAPHS" && a.value) return a.value;
  return [];
}

/** Whether a node holds a graph (If/Loop/Scan bodies, any graph attribute). */
export function hasGraphAttribute(n: Node): boolean {
  for (const a of n.attributes) if (a.type === "GRAPH" || a.type === "GRAPHS") return true;
  return false;
}

/** The graphs a node holds, in attribute order (a GRAPHS list in its order). */
export function nodeGraphs(n: Node): Graph[] {
  const attrs = n.attributes;
  let out: Graph[] | undefined;
  for (let j = 0; j < attrs.length; j++) {
    const a = attrs[j]!;
    if (a.type === "GRAPH" || a.type === "GRAPHS")
      for (const g of attributeGraphs(a)) (out ??= []).push(g);
  }
  return out ?? NONE;
}
const NONE: Graph[] = [];

/** Anything with a node list: a graph, a function body. */
export interface NodeList {
  nodes: Node[];
}

export interface NodeVisit {
  node: Node;
  /** The graph or function whose node list holds the node. */
  owner: Graph | Function;
  /** Index of the node in its owner's node list. */
  index: number;
  /** Nesting depth: 0 for the main graph and function bodies. */
  depth: number;
}

/** Every node of a graph, then of its subgraphs (depth-first, in node order). */
export function* walkGraphNodes(g: Graph | Function, depth = 0): Generator<NodeVisit> {
  const stack: { owner: Graph | Function; i: number; depth: number }[] = [
    { owner: g, i: 0, depth },
  ];
  while (stack.length) {
    const f = stack[stack.length - 1]!;
    if (f.i >= f.owner.nodes.length) {
      stack.pop();
      continue;
    }
    const index = f.i++;
    const node = f.owner.nodes[index]!;
    yield { node, owner: f.owner, index, depth: f.depth };
    const subs = nodeGraphs(node);
    for (let k = subs.length - 1; k >= 0; k--)
      stack.push({ owner: subs[k]!, i: 0, depth: f.depth + 1 });
  }
}

/**
 * walkGraphNodes as a plain callback (no visit object per node): for passes over every node of
 * a large model. `f` returning true stops the walk; the result says whether it was stopped.
 */
export function someGraphNode<O extends NodeList>(
  g: O,
  f: (node: Node, owner: O | Graph, index: number) => boolean | void,
): boolean {
  let owner: O | Graph = g;
  let nodes = g.nodes;
  let i = 0;
  // The lists and places to come back to: a subgraph's walk ends where its node's left off.
  const stack: (number | O | Graph)[] = [];
  for (;;) {
    if (i >= nodes.length) {
      // The graphs still to walk come first on the stack, then the place to resume.
      const top = stack.pop();
      if (top === undefined) return false;
      if (typeof top === "number") {
        i = top;
        owner = stack.pop() as O | Graph;
        nodes = owner.nodes;
      } else {
        owner = top;
        nodes = top.nodes;
        i = 0;
      }
      continue;
    }
    const node = nodes[i]!;
    if (f(node, owner, i)) return true;
    i++;
    const attrs = node.attributes;
    if (attrs.length && hasGraphAttribute(node)) {
      const subs = nodeGraphs(node);
      stack.push(owner, i);
      for (let k = subs.length - 1; k >= 0; k--) stack.push(subs[k]!);
      i = nodes.length;
    }
  }
}

/** Every graph a graph or function holds, at any depth, before the graphs inside it (pre-order). */
export function subgraphsOf(g: NodeList): Graph[] {
  const out: Graph[] = [];
  const stack: NodeList[] = [g];
  while (stack.length) {
    const top = stack.pop()!;
    if (top !== g) out.push(top as Graph);
    const nodes = top.nodes;
    const mark = stack.length;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      if (n.attributes.length && hasGraphAttribute(n)) for (const s of nodeGraphs(n)) stack.push(s);
    }
    // The first subgraph is walked first.
    reverseFrom(stack, mark);
  }
  return out;
}

function reverseFrom<T>(list: T[], from: number): void {
  for (let a = from, b = list.length - 1; a < b; a++, b--) {
    const t = list[a]!;
    list[a] = list[b]!;
    list[b] = t;
  }
}

/** How many graphs the nodes of `g` hold, at any depth (walkGraphs' count below `g`). */
export function countSubgraphs(g: Graph | Function): number {
  let n = 0;
  someGraphNode(g, (node) => {
    if (node.attributes.length && hasGraphAttribute(node)) n += nodeGraphs(node).length;
  });
  return n;
}

/** Every node in the model: main graph, subgraphs, and model-local functions. */
export function* walkNodes(model: Model): Generator<NodeVisit> {
  yield* walkGraphNodes(model.graph);
  for (const f of model.functions) yield* walkGraphNodes(f);
}

/** Every graph in the model, the main graph first. */
export function* walkGraphs(model: Model): Generator<Graph> {
  yield model.graph;
  yield* subgraphsOf(model.graph);
  for (const f of model.functions) yield* subgraphsOf(f);
}

/** The tensors an attribute holds, added to `out`. */
function attributeTensors(a: Attribute, out: Tensor[]): void {
  if (a.value === undefined) return;
  switch (a.type) {
    case "TENSOR":
      out.push(a.value);
      break;
    case "TENSORS":
      for (let i = 0; i < a.value.length; i++) out.push(a.value[i]!);
      break;
    case "SPARSE_TENSOR":
      out.push(a.value.values, a.value.indices);
      break;
    case "SPARSE_TENSORS":
      for (let i = 0; i < a.value.length; i++) out.push(a.value[i]!.values, a.value[i]!.indices);
      break;
    default:
  }
}

/** The initializers of `g` and of every graph inside it, in walkGraphs' order. */
function graphTensors(g: Graph | Function, out: Tensor[]): void {
  const own = (x: Graph) => {
    for (let i = 0; i < x.initializers.length; i++) out.push(x.initializers[i]!);
    for (let i = 0; i < x.sparseInitializers.length; i++)
      out.push(x.sparseInitializers[i]!.values, x.sparseInitializers[i]!.indices);
  };
  if ("initializers" in g) own(g);
  for (const sub of subgraphsOf(g)) own(sub);
}

/** The attribute tensors of the nodes of `g`, each node's before its subgraphs', as walkNodes meets them. */
function nodeTensors(g: Graph | Function, out: Tensor[]): void {
  someGraphNode(g, (node) => {
    const attrs = node.attributes;
    for (let j = 0; j < attrs.length; j++) {
      const a = attrs[j]!;
      if (
        a.type !== "GRAPH" &&
        a.type !== "GRAPHS" &&
        a.type !== "INT" &&
        a.type !== "INTS" &&
        a.type !== "FLOAT"
      )
        attributeTensors(a, out);
    }
  });
}

/**
 * Every tensor: initializers, sparse initializers, tensor attributes, in every graph and function.
 * A list made with plain loops (a large model has many nodes and few tensors, and generators
 * cost an object at every level for every node).
 */
export function walkTensors(model: Model): Tensor[] {
  const out: Tensor[] = [];
  graphTensors(model.graph, out);
  for (const f of model.functions) graphTensors(f, out);
  nodeTensors(model.graph, out);
  for (const f of model.functions) nodeTensors(f, out);
  for (const f of model.functions) for (const a of f.attributeProtos) attributeTensors(a, out);
  return out;
}

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
/** A node's key within its graph, as nodeLabel names it: its name, else its index; its op. */
const nodeKey = (node: Node, index: number): unknown[] =>
  node.name
    ? ["name", node.name, node.domain, node.opType]
    : ["index", index, node.domain, node.opType];

export class GraphScope {
  private whereText: string | undefined;
  private whereOf: (() => string) | undefined;
  private defined: Set<string> | undefined;
  private pathOf: readonly unknown[] | undefined;
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

  /** The scope of a bare node list, outside any graph ("nodes"): for walks over a list alone. */
  static nodes(nodes: Node[]): GraphScope {
    return new GraphScope(graph({ nodes }), "nodes");
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
    // A subgraph's label is made from its parent's.
    if (this.whereText === undefined)
      this.outward(
        (s) => s.whereText === undefined,
        (s) => {
          s.whereText = s.whereOf!();
          s.whereOf = undefined;
        },
      );
    return this.whereText!;
  }

  /** The outermost scope: the main graph's or the function body's that this graph is inside. */
  get root(): GraphScope {
    let s: GraphScope = this;
    while (s.parent) s = s.parent;
    return s;
  }

  /**
   * The graph's place as a value: its root (["graph"], or ["function", key] for a local function)
   * and, per enclosing node, the node's id, the attribute and its place in GRAPHS. Made without
   * recursing through the enclosing scopes.
   */
  get path(): readonly unknown[] {
    if (this.pathOf === undefined)
      this.outward(
        (s) => s.pathOf === undefined,
        (s) => {
          const site = s.site;
          if (s.parent && site)
            s.pathOf = [
              ...s.parent.pathOf!,
              nodeKey(site.node, site.index),
              site.attribute,
              site.k ?? -1,
            ];
          else if ("initializers" in s.owner) s.pathOf = [s.where];
          else s.pathOf = ["function", functionKey(s.owner.domain, s.owner.name, s.owner.overload)];
        },
      );
    return this.pathOf!;
  }

  /**
   * `make` applied to this scope and the enclosing ones that are `missing` what it makes,
   * outermost first: what a scope makes from its parent's, made without recursing through a deep
   * nesting.
   */
  private outward(missing: (s: GraphScope) => boolean, make: (s: GraphScope) => void): void {
    const pending: GraphScope[] = [];
    for (let s: GraphScope | undefined = this; s && missing(s); s = s.parent) pending.push(s);
    for (let i = pending.length - 1; i >= 0; i--) make(pending[i]!);
  }

  /**
   * A node's id in the model, for matching records of two walks of it (never for reading): the
   * graph's path and the node's own key, as nodeWhere names it (its name, else its place; its op).
   */
  nodeId(node: Node, index: number): string {
    return JSON.stringify([...this.path, nodeKey(node, index)]);
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
  /**
   * Each node before its subgraphs are walked: the node whose subgraphs are walked and that
   * `node` is given (the node itself: unchanged). For what must happen in a node's order before
   * its subgraphs' (a renamer names a node's values before the values of its subgraphs).
   */
  before?(node: Node, index: number, scope: GraphScope, state: S): Node;
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
  /**
   * Each subgraph once its nodes are walked: the graph to put in its place, given its new node
   * list. Without it: the graph with that list (the graph itself when the list is its own).
   */
  graph?(g: Graph, nodes: Node[], scope: GraphScope, state: S): Graph;
}

/** A node list being walked (visitNodes); for a subgraph, the node waiting for it. */
interface ListFrame<S> {
  list: true;
  nodes: Node[];
  scope: GraphScope;
  state: S;
  i: number;
  out: Node[] | undefined;
  graph?: Graph;
  up?: NodeFrame<S>;
}

/** A node whose subgraphs are being walked: they are walked in turn, then the node is rebuilt. */
interface NodeFrame<S> {
  list: false;
  at: ListFrame<S>;
  original: Node;
  node: Node;
  subs: { g: Graph; attribute: string; k: number | undefined }[];
  next: number;
  done: Graph[];
}

/**
 * A node list walked with a visitor: the subgraphs of each node first (each in its own scope,
 * its state from `enter`), then the node, then the list. Nodes the visitor gives back are not
 * looked into again. Shares what does not change (see mapNodes). Keeps its own stack: graphs
 * nested deeper than the call stack walk as well as shallow ones.
 */
export function visitNodes<S>(
  nodes: Node[],
  scope: GraphScope,
  state: S,
  v: ScopeVisitor<S>,
): Node[] {
  const emit = (at: ListFrame<S>, node: Node, original: Node): void => {
    const r = v.node ? v.node(node, at.i, at.scope, at.state, original) : node;
    at.i++;
    if (r === original) {
      if (at.out) at.out.push(original);
      return;
    }
    const out = (at.out ??= at.nodes.slice(0, at.i - 1));
    if (Array.isArray(r)) for (const x of r as readonly Node[]) out.push(x);
    else out.push(r as Node);
  };
  const stack: (ListFrame<S> | NodeFrame<S>)[] = [
    { list: true, nodes, scope, state, i: 0, out: undefined },
  ];
  for (;;) {
    const top = stack[stack.length - 1]!;
    if (top.list) {
      if (top.i < top.nodes.length) {
        const original = top.nodes[top.i]!;
        const n = v.before ? v.before(original, top.i, top.scope, top.state) : original;
        if (n.attributes.length && hasGraphAttribute(n)) {
          const subs: NodeFrame<S>["subs"] = [];
          for (const a of n.attributes) {
            if (a.type === "GRAPH" && a.value)
              subs.push({ g: a.value, attribute: a.name, k: undefined });
            else if (a.type === "GRAPHS" && a.value)
              a.value.forEach((g, k) => subs.push({ g, attribute: a.name, k }));
          }
          stack.push({ list: false, at: top, original, node: n, subs, next: 0, done: [] });
        } else emit(top, n, original);
        continue;
      }
      stack.pop();
      const kept = top.out ?? top.nodes;
      const out = v.nodes ? v.nodes(kept, top.scope, top.state) : kept;
      if (!top.up) return out;
      const g = top.graph!;
      top.up.done.push(
        v.graph
          ? v.graph(g, out, top.scope, top.state)
          : out === g.nodes
            ? g
            : { ...g, nodes: out },
      );
      continue;
    }
    if (top.next < top.subs.length) {
      const s = top.subs[top.next++]!;
      const at = top.at;
      const sub = at.scope.child(s.g, top.node, at.i, s.attribute, s.k);
      stack.push({
        list: true,
        nodes: s.g.nodes,
        scope: sub,
        state: v.enter ? v.enter(sub, at.state) : at.state,
        i: 0,
        out: undefined,
        graph: s.g,
        up: top,
      });
      continue;
    }
    stack.pop();
    let j = 0;
    emit(
      top.at,
      mapNodeGraphs(top.node, () => top.done[j++]!),
      top.original,
    );
  }
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

/**
 * How to rename (renameNodes). A name is either defined by a subgraph among the renamed nodes
 * (its input, initializer or node output: `local`), or not (`value`: what the nodes read and
 * write in the list itself, and what subgraphs read from outside it).
 */
export interface Renaming {
  /** A name no subgraph among the nodes defines: its new name ("" stands for an omitted input). */
  value(name: string): string;
  /** A name the nodes write (an output of a node of the list): its new name; default `value`. */
  output?(name: string): string;
  /** A name a subgraph defines, asked once per subgraph as it is entered; default: kept. */
  local?(name: string): string;
  /** The node's new name, asked after its subgraphs; undefined (or absent): the name is kept. */
  node?(node: Node): string | undefined;
  /** Omitted optional inputs at the end of a node's list are left out rather than written "". */
  trimInputs?: boolean;
  /**
   * A subgraph's value_info naming a value the subgraph does not define is dropped (the graph
   * that defines the value describes it), rather than renamed with it.
   */
  ownValueInfo?: boolean;
}

/** The names one subgraph defines (new names), over those of the subgraphs around it. */
interface RenameScope {
  map: Map<string, string> | undefined;
  parent: RenameScope | undefined;
}

/**
 * The one renamer: the nodes with their inputs, outputs, subgraphs and names renamed. Names are
 * asked for in a fixed order — per node its inputs, its outputs, then each subgraph (the names
 * it defines, its interface, its nodes), then the node's name — so fresh names come out the same
 * every time. A name a subgraph defines is that subgraph's own (`local`); a name it reads from
 * outside follows the list's renaming. Nodes and graphs with nothing renamed are shared.
 */
export function renameNodes(nodes: Node[], r: Renaming): Node[] {
  const lookup = (s: RenameScope | undefined, name: string, write: boolean): string => {
    if (name === "") return "";
    for (; s; s = s.parent) {
      const v = s.map?.get(name);
      if (v !== undefined) return v;
    }
    return write && r.output ? r.output(name) : r.value(name);
  };
  const names = (s: RenameScope | undefined, list: string[], write: boolean): string[] => {
    let out: string[] | undefined;
    for (let i = 0; i < list.length; i++) {
      const x = lookup(s, list[i]!, write);
      if (x !== list[i]) (out ??= list.slice())[i] = x;
    }
    if (r.trimInputs && !write) {
      let end = (out ?? list).length;
      while (end && (out ?? list)[end - 1] === "") end--;
      if (end < (out ?? list).length) out = (out ?? list).slice(0, end);
    }
    return out ?? list;
  };
  const renameTensor = (t: Tensor, s: RenameScope): Tensor => {
    const name = lookup(s, t.name, true);
    if (name === t.name) return t;
    const c = Object.assign(Object.create(Object.getPrototypeOf(t) as object), t) as Tensor;
    c.name = name;
    return c;
  };
  // Each subgraph's interface is renamed as it is entered (its names are asked for first).
  const headers = new Map<RenameScope, Partial<Graph>>();
  return visitNodes<RenameScope | undefined>(nodes, GraphScope.nodes(nodes), undefined, {
    enter(scope, parent) {
      const g = scope.owner as Graph;
      const s: RenameScope = { map: undefined, parent };
      const local = r.local;
      const define = (name: string) => {
        if (name === "") return;
        const map = (s.map ??= new Map());
        if (!map.has(name)) map.set(name, local ? local(name) : name);
      };
      for (const v of g.inputs) define(v.name);
      for (const t of g.initializers) define(t.name);
      for (const t of g.sparseInitializers) define(t.values.name);
      for (const n of g.nodes) for (const o of n.outputs) define(o);
      const header: Partial<Graph> = {};
      const infos = (list: Graph["inputs"]) => {
        let out: Graph["inputs"] | undefined;
        list.forEach((v, i) => {
          const name = lookup(s, v.name, true);
          if (name !== v.name) (out ??= list.slice())[i] = { ...v, name };
        });
        return out ?? list;
      };
      const inputs = infos(g.inputs);
      const outputs = infos(g.outputs);
      const own = r.ownValueInfo ? g.valueInfo.filter((v) => s.map?.has(v.name)) : g.valueInfo;
      const valueInfo = infos(own.length === g.valueInfo.length ? g.valueInfo : own);
      const initializers = g.initializers.map((t) => renameTensor(t, s));
      const sparse = g.sparseInitializers.map((x) => {
        const values = renameTensor(x.values, s);
        return values === x.values ? x : { ...x, values };
      });
      if (inputs !== g.inputs) header.inputs = inputs;
      if (outputs !== g.outputs) header.outputs = outputs;
      if (valueInfo !== g.valueInfo) header.valueInfo = valueInfo;
      if (initializers.some((t, i) => t !== g.initializers[i])) header.initializers = initializers;
      if (sparse.some((t, i) => t !== g.sparseInitializers[i])) header.sparseInitializers = sparse;
      if (Object.keys(header).length) headers.set(s, header);
      return s;
    },
    before(n, _i, _scope, s) {
      const inputs = names(s, n.inputs, false);
      const outputs = names(s, n.outputs, true);
      return inputs === n.inputs && outputs === n.outputs ? n : { ...n, inputs, outputs };
    },
    node(n, _i, _scope, _s) {
      const name = r.node?.(n);
      return name === undefined || name === n.name ? n : { ...n, name };
    },
    graph(g, list, _scope, s) {
      const header = headers.get(s!);
      if (!header && list === g.nodes) return g;
      return { ...g, ...header, nodes: list };
    },
  });
}

/**
 * The graph with every name in it renamed, its own included: its inputs, outputs, value_info and
 * initializers, the names its subgraphs define (by `r.local`, else `r.value`) and its nodes (see
 * renameNodes).
 */
export function renameGraph(g: Graph, r: Renaming): Graph {
  const holder: Node = {
    opType: "",
    domain: "",
    inputs: [],
    outputs: [],
    attributes: [{ name: "g", type: "GRAPH", value: g }],
  };
  const [out] = renameNodes([holder], {
    ...r,
    local: r.local ?? r.value,
    node: (n) => (n === holder ? undefined : r.node?.(n)),
  });
  const a = out!.attributes[0]!;
  return a.type === "GRAPH" ? a.value! : g;
}

/**
 * The nodes with every read of a name of `map` made the name it maps to: their inputs, and what
 * their subgraphs read from outside. What the nodes define is not renamed.
 */
export function replaceUses(nodes: Node[], map: ReadonlyMap<string, string>): Node[] {
  if (!map.size) return nodes;
  return renameNodes(nodes, { value: (x) => map.get(x) ?? x, output: (x) => x });
}

/**
 * The nodes with each value of `map` renamed where it is written (a node's output) and wherever
 * it is read (inputs, and subgraphs reading it from outside).
 */
export function renameValues(nodes: Node[], map: ReadonlyMap<string, string>): Node[] {
  if (!map.size) return nodes;
  return renameNodes(nodes, { value: (x) => map.get(x) ?? x });
}

/** renameValues for one value. */
export function renameValue(nodes: Node[], from: string, to: string): Node[] {
  return renameValues(nodes, new Map([[from, to]]));
}
