// Values and nodes as the diff compares them: types and tensors as short text, a fingerprint of a
// tensor's contents, attributes as sorted lines, nodes as NodeRefs.

import type { ByteRange, Tensor } from "../ir/tensor.js";
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

/** Stored tensor data (a range of a file) is read this much at a time. */
const CHUNK = 8 << 20;

/** The bytes of a tensor whose data is in a file, a chunk at a time. */
function eachChunk(r: ByteRange, f: (b: Uint8Array) => void): void {
  for (let at = 0; at < r.length; at += CHUNK)
    f(r.source.read(r.offset + at, Math.min(CHUNK, r.length - at)));
}

/** How a tensor's data is compared: raw data wherever it is, typed values, or unread entries. */
function dataKind(t: Tensor): string {
  const k = t.data.kind;
  return k === "lazy" || (k === "external" && t.readable) ? "raw" : k;
}

/**
 * A fingerprint of a tensor's contents (dtype, dims, bytes or values); data in a file is read a
 * chunk at a time (bounded memory), and hashes as the same bytes in memory would. External data
 * whose file was never opened is known by its entries only.
 */
export function tensorKey(t: Tensor): string {
  const d = t.data;
  let h = 2166136261;
  const bytes = (b: Uint8Array) => {
    for (let i = 0; i < b.length; i++) {
      h ^= b[i]!;
      h = Math.imul(h, 16777619);
    }
  };
  const r = t.range;
  if (r) eachChunk(r, bytes);
  else if (d.kind === "raw") bytes(d.bytes);
  else if (d.kind === "external")
    return `${t.dataType}:${t.dims.join(",")}:external:${d.baseDir ?? ""}:${d.entries.map((e) => e.join("=")).join(";")}`;
  else if (d.kind !== "none" && d.kind !== "lazy") {
    const values = d.values as ArrayLike<unknown>;
    for (let i = 0; i < values.length; i++)
      for (const c of String(values[i])) {
        h ^= c.charCodeAt(0) & 0xff;
        h = Math.imul(h, 16777619);
      }
  }
  return `${t.dataType}:${t.dims.join(",")}:${dataKind(t)}:${h >>> 0}`;
}

/**
 * Whether two tensors hold the same contents. The same range of the same file is equal without
 * reading; other data in files is compared a chunk at a time.
 */
export function sameTensor(a: Tensor, b: Tensor): boolean {
  // A transform shares the tensors it does not change: the same object is the same contents.
  if (a === b) return true;
  if (a.dataType !== b.dataType || a.dims.length !== b.dims.length) return false;
  if (a.dims.some((d, i) => d !== b.dims[i])) return false;
  const ra = a.range;
  const rb = b.range;
  if (
    ra &&
    rb &&
    ra.source.key === rb.source.key &&
    ra.offset === rb.offset &&
    ra.length === rb.length
  )
    return true;
  if (!ra && !rb) return tensorKey(a) === tensorKey(b);
  if (dataKind(a) !== "raw" || dataKind(b) !== "raw") return tensorKey(a) === tensorKey(b);
  if (a.byteLength !== b.byteLength) return false;
  // One or both in a file: compare chunk by chunk.
  const n = a.byteLength;
  for (let at = 0; at < n; at += CHUNK) {
    const len = Math.min(CHUNK, n - at);
    const x = slice(a, at, len);
    const y = slice(b, at, len);
    for (let i = 0; i < len; i++) if (x[i] !== y[i]) return false;
  }
  return true;
}

/** Bytes [at, at + len) of a tensor's raw data, read from its file when it is stored in one. */
function slice(t: Tensor, at: number, len: number): Uint8Array {
  const r = t.range;
  if (r) return r.source.read(r.offset + at, len);
  return t.rawBytes().subarray(at, at + len);
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
