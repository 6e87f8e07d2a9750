// Binding a function body to its call: @ref attributes replaced by what the call gives, in
// subgraphs too. Inlining, the interpreter and the checker share it. Like the visitor
// (visit.ts), it returns what it was given when nothing changed.

import { mapNodeGraphs, mapNodes } from "./visit.js";
import type { Attribute, Graph, Node } from "./types.js";

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
    const bound = mapNodes(g.nodes, bindNode);
    return bound === g.nodes ? g : { ...g, nodes: bound };
  };
  const bindNode = (n: Node): Node => {
    const m = mapNodeGraphs(n, bindGraph);
    if (!m.attributes.some((a) => a.refAttrName !== undefined)) return m;
    const attributes: Attribute[] = [];
    for (const a of m.attributes) {
      if (a.refAttrName === undefined) attributes.push(a);
      else {
        const b = resolveRef(a, lookup(a.refAttrName, a));
        if (b) attributes.push(b);
      }
    }
    return { ...m, attributes };
  };
  return mapNodes(nodes, bindNode);
}
