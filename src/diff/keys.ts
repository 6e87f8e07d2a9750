// Values and nodes as the diff compares them: types and tensors as short text, a fingerprint of a
// tensor's contents, attributes as sorted lines, nodes as NodeRefs.

import type { Tensor } from "../ir/tensor.js";
import type { Attribute, Node, Type } from "../ir/types.js";
import { normaliseDomain } from "../schema/registry.js";
import { printAttribute, printType } from "../text/print.js";
import type { NodeRef } from "./types.js";

export function typeText(t: Type | undefined): string {
  return t ? printType(t) : "?";
}

export function tensorText(t: Tensor): string {
  return `${t.dataType}[${t.dims.join(",")}]`;
}

/** A cheap fingerprint of a tensor's contents (dtype, dims, bytes or values). */
export function tensorKey(t: Tensor): string {
  const d = t.data as { kind: string; bytes?: Uint8Array; values?: ArrayLike<unknown> };
  let h = 2166136261;
  const mix = (x: number) => {
    h ^= x & 0xff;
    h = Math.imul(h, 16777619);
  };
  if (d.bytes) for (let i = 0; i < d.bytes.length; i++) mix(d.bytes[i]!);
  else if (d.values)
    for (let i = 0; i < d.values.length; i++)
      for (const c of String(d.values[i])) mix(c.charCodeAt(0));
  return `${t.dataType}:${t.dims.join(",")}:${d.kind}:${h >>> 0}`;
}

export function attrLines(n: Node): string[] {
  return n.attributes.map((a) => attrText(a)).sort();
}

function attrText(a: Attribute): string {
  if (a.type === "GRAPH" && a.value) return `${a.name}: graph (${a.value.nodes.length} nodes)`;
  if (a.type === "GRAPHS" && a.value) return `${a.name}: graphs (${a.value.length})`;
  if (a.type === "TENSOR" && a.value && a.value.dims.reduce((x, y) => x * y, 1) > 16)
    return `${a.name}: tensor ${tensorText(a.value)} #${tensorKey(a.value)}`;
  try {
    return printAttribute(a);
  } catch {
    return `${a.name}: ${a.type}`;
  }
}

export function opOf(n: Node): string {
  const d = normaliseDomain(n.domain);
  return `${d ? `${d}.` : ""}${n.opType}${n.overload ? `:${n.overload}` : ""}`;
}

export function ref(n: Node, index: number): NodeRef {
  const r: NodeRef = {
    index,
    op: opOf(n),
    inputs: n.inputs,
    outputs: n.outputs,
    attributes: n.attributes.map(attrText),
  };
  if (n.name) r.name = n.name;
  return r;
}
