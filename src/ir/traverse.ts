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

function* attributeTensors(a: Attribute): Generator<Tensor> {
  if (a.value === undefined) return;
  switch (a.type) {
    case "TENSOR":
      yield a.value;
      break;
    case "TENSORS":
      yield* a.value;
      break;
    case "SPARSE_TENSOR":
      yield a.value.values;
      yield a.value.indices;
      break;
    case "SPARSE_TENSORS":
      for (const s of a.value) {
        yield s.values;
        yield s.indices;
      }
      break;
    default:
  }
}

/** Every tensor: initializers, sparse initializers, tensor attributes, in every graph and function. */
export function* walkTensors(model: Model): Generator<Tensor> {
  for (const g of walkGraphs(model)) {
    yield* g.initializers;
    for (const s of g.sparseInitializers) {
      yield s.values;
      yield s.indices;
    }
  }
  for (const { node } of walkNodes(model))
    for (const a of node.attributes) yield* attributeTensors(a);
  for (const f of model.functions) for (const a of f.attributeProtos) yield* attributeTensors(a);
}
