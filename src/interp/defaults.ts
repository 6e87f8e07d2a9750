// Attribute defaults the schema states, bound into a node before its kernel runs, so that no
// kernel writes a default of its own: the executor asks `withDefaults(node, version)` and hands
// the kernel the node it returns. The binding is made once per node object and version (a Loop
// body's nodes are bound on the first iteration and found again on the others).

import { attr } from "../ir/builder.js";
import type { Attribute, Node } from "../ir/types.js";
import { firstVersion, versionInForce } from "../schema/facts.js";
import type { OpVersion } from "../schema/types.js";

const bound = new WeakMap<Node, { version: OpVersion; node: Node }>();
let bindings = 0;

/** Whether the node sets attribute `a` itself, with the schema's type and a value. */
function given(node: Node, a: OpVersion["attributes"][number]): boolean {
  return node.attributes.some(
    (x) => x.name === a.name && x.type === a.type && x.value !== undefined,
  );
}

/**
 * The node with every attribute it leaves out, and whose default `version` states, set to that
 * default (FLOAT defaults rounded to float32, as a model would carry them). The same node back
 * when it leaves out none. Cached per node object and version.
 */
export function withDefaults(node: Node, version: OpVersion): Node {
  const hit = bound.get(node);
  if (hit && hit.version === version) return hit.node;
  bindings++;
  let filled: Attribute[] | undefined;
  for (const a of version.attributes) {
    if (a.default === undefined || given(node, a)) continue;
    filled ??= [];
    filled.push(attr(a.name, a.default, a.type));
  }
  let out = node;
  if (filled) {
    const names = new Set(filled.map((a) => a.name));
    // An attribute of the wrong type or without a value gives way to the default, as a kernel
    // reading it by type would have ignored it.
    out = {
      ...node,
      attributes: [...node.attributes.filter((x) => !names.has(x.name)), ...filled],
    };
    bound.set(out, { version, node: out });
  }
  bound.set(node, { version, node: out });
  return out;
}

/**
 * The node with the defaults of its op's version in force at `opset` bound in (the first version
 * before it; the node itself for an op without a schema).
 */
export function nodeWithDefaults(node: Node, opset: number): Node {
  const { domain, opType } = node;
  const v = versionInForce(domain, opType, opset) ?? firstVersion(domain, opType);
  return v ? withDefaults(node, v) : node;
}

/** How many bindings have been made since the process started (a node bound once counts once). */
export function defaultBindings(): number {
  return bindings;
}
