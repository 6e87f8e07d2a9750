// Walking a model: every graph (main, If/Loop/Scan bodies, any graph attribute), every function,
// every node and every tensor.

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
  for (let i = 0; i < g.nodes.length; i++) {
    const node = g.nodes[i]!;
    yield { node, owner: g, index: i, depth };
    for (const a of node.attributes)
      for (const sub of attributeGraphs(a)) yield* walkGraphNodes(sub, depth + 1);
  }
}

/**
 * walkGraphNodes as a plain callback (no visit object per node): for passes over every node of
 * a large model. `f` returning true stops the walk; the result says whether it was stopped.
 */
export function someGraphNode(
  g: Graph | Function,
  f: (node: Node, owner: Graph | Function, index: number) => boolean | void,
): boolean {
  const nodes = g.nodes;
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    if (f(node, g, i)) return true;
    const attrs = node.attributes;
    for (let j = 0; j < attrs.length; j++) {
      const a = attrs[j]!;
      if (a.type === "GRAPH" || a.type === "GRAPHS")
        for (const sub of attributeGraphs(a)) if (someGraphNode(sub, f)) return true;
    }
  }
  return false;
}

/** How many graphs the nodes of `g` hold, at any depth (walkGraphs' count below `g`). */
export function countSubgraphs(g: Graph | Function): number {
  let n = 0;
  forSubgraphs(g, (sub) => {
    n += 1 + countSubgraphs(sub);
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
  function* inGraph(g: Graph | Function): Generator<Graph> {
    if ("initializers" in g) yield g;
    for (const n of g.nodes)
      for (const a of n.attributes) for (const sub of attributeGraphs(a)) yield* inGraph(sub);
  }
  yield* inGraph(model.graph);
  for (const f of model.functions) yield* inGraph(f);
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
  if ("initializers" in g) {
    for (let i = 0; i < g.initializers.length; i++) out.push(g.initializers[i]!);
    for (let i = 0; i < g.sparseInitializers.length; i++)
      out.push(g.sparseInitializers[i]!.values, g.sparseInitializers[i]!.indices);
  }
  forSubgraphs(g, (sub) => graphTensors(sub, out));
}

/** The attribute tensors of the nodes of `g`, each node's before its subgraphs', as walkNodes meets them. */
function nodeTensors(g: Graph | Function, out: Tensor[]): void {
  const nodes = g.nodes;
  for (let i = 0; i < nodes.length; i++) {
    const attrs = nodes[i]!.attributes;
    let graphs = false;
    for (let j = 0; j < attrs.length; j++) {
      const a = attrs[j]!;
      if (a.type === "GRAPH" || a.type === "GRAPHS") graphs = true;
      else if (a.type !== "INT" && a.type !== "INTS" && a.type !== "FLOAT")
        attributeTensors(a, out);
    }
    if (graphs)
      for (let j = 0; j < attrs.length; j++)
        for (const sub of attributeGraphs(attrs[j]!)) nodeTensors(sub, out);
  }
}

/** Calls `f` on each graph the nodes of `g` hold, in node order. */
function forSubgraphs(g: Graph | Function, f: (sub: Graph) => void): void {
  const nodes = g.nodes;
  for (let i = 0; i < nodes.length; i++) {
    const attrs = nodes[i]!.attributes;
    for (let j = 0; j < attrs.length; j++) {
      const a = attrs[j]!;
      if (a.type === "GRAPH" || a.type === "GRAPHS") for (const sub of attributeGraphs(a)) f(sub);
    }
  }
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
