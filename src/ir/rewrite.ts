// Rewriting nodes and graphs without mutating them: the primitives that inlining, binding a
// function body to its call, the interpreter and the checker share. Each returns the object it
// was given when nothing changed, so a caller can tell (and share unchanged parts).

import type { Tensor } from "./tensor.js";
import type { Attribute, Graph, Node } from "./types.js";

/** The attribute with each graph it holds (GRAPH, GRAPHS) replaced by f(graph). */
export function mapAttributeGraphs(a: Attribute, f: (g: Graph) => Graph): Attribute {
  if (a.type === "GRAPH" && a.value) {
    const g = f(a.value);
    return g === a.value ? a : { ...a, value: g };
  }
  if (a.type === "GRAPHS" && a.value) {
    const gs = a.value.map(f);
    return gs.every((g, i) => g === a.value![i]) ? a : { ...a, value: gs };
  }
  return a;
}

/** The node with each subgraph of its attributes replaced by f(graph). */
export function mapNodeGraphs(n: Node, f: (g: Graph) => Graph): Node {
  const attributes = n.attributes.map((a) => mapAttributeGraphs(a, f));
  return attributes.every((a, i) => a === n.attributes[i]) ? n : { ...n, attributes };
}

/**
 * A reference attribute (`name = @ref`) bound to what the call gives for `ref`: that value under
 * the attribute's own name; undefined when the call gives nothing (the attribute is left out, so
 * the op's own default applies, as ONNX says). When the call itself passes a reference (it is a
 * node inside a function, `ref = @x`), the result is a reference to `x`: it stays to be resolved
 * against the call of that enclosing function, never silently dropped.
 */
export function resolveRef(ref: Attribute, given: Attribute | undefined): Attribute | undefined {
  if (!given) return undefined;
  if (given.refAttrName !== undefined)
    return { name: ref.name, type: ref.type, refAttrName: given.refAttrName } as Attribute;
  const { refAttrName: _drop, ...value } = given;
  return { ...value, name: ref.name } as Attribute;
}

/**
 * Function body nodes with their `@ref` attributes bound (see resolveRef), in subgraphs too.
 * `lookup(ref, attribute)` says what the call gives for `ref`: its attribute, a default, or
 * undefined. Nodes without references are returned as they are.
 */
export function bindRefs(
  nodes: Node[],
  lookup: (ref: string, a: Attribute) => Attribute | undefined,
): Node[] {
  const bindGraph = (g: Graph): Graph => {
    const bound = bindList(g.nodes);
    return bound === g.nodes ? g : { ...g, nodes: bound };
  };
  const bindNode = (n: Node): Node => {
    if (!n.attributes.some((a) => a.refAttrName !== undefined)) return mapNodeGraphs(n, bindGraph);
    const attributes: Attribute[] = [];
    for (const a of n.attributes) {
      if (a.refAttrName === undefined) attributes.push(mapAttributeGraphs(a, bindGraph));
      else {
        const b = resolveRef(a, lookup(a.refAttrName, a));
        if (b) attributes.push(b);
      }
    }
    return { ...n, attributes };
  };
  const bindList = (list: Node[]): Node[] => {
    const out = list.map(bindNode);
    return out.every((n, i) => n === list[i]) ? list : out;
  };
  return bindList(nodes);
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
