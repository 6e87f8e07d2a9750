// Type strings as schemas write them ("tensor(float)", "seq(tensor(int64))", ...), and the
// small algebra of shapes the checker needs: merging what is declared with what is inferred.

import { dtypeByName, dtypeName } from "../ir/dtype.js";
import type { Dim, TensorType, Type } from "../ir/types.js";
import { broadcastSymbols } from "./dim-expr.js";

/** The schema spelling of a type, or undefined when the type is not (fully) known. */
export function typeString(t: Type | undefined): string | undefined {
  if (!t) return undefined;
  switch (t.kind) {
    case "tensor":
    case "sparse_tensor":
      return t.elemType ? `${t.kind}(${dtypeName(t.elemType)})` : undefined;
    case "sequence": {
      const e = typeString(t.elem);
      return e ? `seq(${e})` : undefined;
    }
    case "optional": {
      const e = typeString(t.elem);
      return e ? `optional(${e})` : undefined;
    }
    case "map": {
      const v = typeString(t.value);
      return v && t.keyType ? `map(${dtypeName(t.keyType)}, ${v})` : undefined;
    }
    default:
      return undefined;
  }
}

/** Parses a schema type string back into a Type (no shape). Undefined when not understood. */
export function parseTypeString(s: string): Type | undefined {
  const m = /^([a-z_]+)\((.*)\)$/.exec(s.replace(/\s+/g, ""));
  if (!m) return undefined;
  const [, head, body] = m as unknown as [string, string, string];
  switch (head) {
    case "tensor":
    case "sparse_tensor": {
      const d = dtypeByName(body);
      return d ? { kind: head, elemType: d.id } : undefined;
    }
    case "seq": {
      const e = parseTypeString(body);
      return e ? { kind: "sequence", elem: e } : undefined;
    }
    case "optional": {
      const e = parseTypeString(body);
      return e ? { kind: "optional", elem: e } : undefined;
    }
    case "map": {
      const comma = body.indexOf(",");
      const key = dtypeByName(body.slice(0, comma));
      const value = parseTypeString(body.slice(comma + 1));
      return key && value ? { kind: "map", keyType: key.id, value } : undefined;
    }
    default:
      return undefined;
  }
}

export function isTensor(t: Type | undefined): t is TensorType {
  return t !== undefined && t.kind === "tensor";
}

export function tensorOf(elemType: number, shape?: Dim[]): TensorType {
  return shape ? { kind: "tensor", elemType, shape } : { kind: "tensor", elemType };
}

/**
 * The most specific type both a and b are instances of (an If's two branches; the calls of one
 * function): the element type when they share it (else 0), and the shape when they share the
 * rank, each dimension where they agree (else unknown). Tensors only: any other type is a's. An
 * absent type is taken as no information (the other's).
 */
export function joinTypes(a: Type | undefined, b: Type | undefined): Type | undefined {
  if (!a || !b) return a ?? b;
  if (isTensor(a) && isTensor(b)) {
    const elemType = a.elemType === b.elemType ? a.elemType : 0;
    if (!a.shape || !b.shape || a.shape.length !== b.shape.length) return tensorOf(elemType);
    return tensorOf(
      elemType,
      a.shape.map((d, i) => (d === b.shape![i] ? d : null)),
    );
  }
  return a;
}

export function formatShape(shape: Dim[] | undefined): string {
  if (!shape) return "[?]";
  return `[${shape.map((d) => (d === null ? "?" : String(d))).join(",")}]`;
}

/** A readable form for messages: float[2,3], int64[?], seq(tensor(float)). */
export function describeType(t: Type | undefined): string {
  if (!t) return "unknown";
  if (t.kind === "tensor") {
    const elem = t.elemType ? dtypeName(t.elemType) : "?";
    return t.shape ? `${elem}${formatShape(t.shape)}` : elem;
  }
  return typeString(t) ?? t.kind;
}

export interface MergeResult {
  type: Type | undefined;
  /** Why the two types cannot describe the same value; absent when they agree. */
  conflict?: string;
}

/**
 * Combines a declared type (value_info, graph output) with an inferred one: the result has
 * everything either knows. Disagreement on element type, rank or a static dimension is a conflict.
 */
export function mergeTypes(declared: Type | undefined, inferred: Type | undefined): MergeResult {
  if (!declared || declared.kind === "none") return { type: inferred };
  if (!inferred || inferred.kind === "none") return { type: declared };
  if (declared.kind !== inferred.kind) {
    return {
      type: declared,
      conflict: `declared as ${describeType(declared)} but inferred as ${describeType(inferred)}`,
    };
  }
  if (declared.kind === "tensor" && inferred.kind === "tensor") {
    const elemType = declared.elemType || inferred.elemType;
    if (declared.elemType && inferred.elemType && declared.elemType !== inferred.elemType) {
      return {
        type: declared,
        conflict: `declared as ${describeType(declared)} but inferred as ${describeType(inferred)}`,
      };
    }
    const ds = declared.shape;
    const is = inferred.shape;
    if (!ds || !is) return { type: { ...declared, elemType, shape: ds ?? is } };
    if (ds.length !== is.length) {
      return {
        type: declared,
        conflict: `declared with rank ${ds.length} (${formatShape(ds)}) but inferred rank ${is.length} (${formatShape(is)})`,
      };
    }
    const shape: Dim[] = [];
    for (let i = 0; i < ds.length; i++) {
      const a = ds[i]!;
      const b = is[i]!;
      if (typeof a === "number" && typeof b === "number" && a !== b) {
        return {
          type: declared,
          conflict: `declared shape ${formatShape(ds)} but inferred ${formatShape(is)} (dimension ${i})`,
        };
      }
      shape.push(typeof a === "number" ? a : typeof b === "number" ? b : (a ?? b));
    }
    return { type: { ...declared, elemType, shape } };
  }
  const ds = typeString(declared);
  const is = typeString(inferred);
  if (ds && is && ds !== is) {
    return { type: declared, conflict: `declared as ${ds} but inferred as ${is}` };
  }
  return { type: ds ? declared : inferred };
}

/**
 * Whether a conflict mergeTypes reported (as it reads in a problem's message) concerns only
 * the shape: the rank or a static dimension, the element types agreeing.
 */
export const isShapeConflict = (message: string): boolean =>
  /\bdeclared (with rank \d+ \(|shape \[)/.test(message);

/**
 * Multidirectional (numpy) broadcasting of static shapes. Returns the result shape, or a
 * string saying which dimensions clash.
 */
export function broadcastShapes(shapes: Dim[][]): Dim[] | string {
  const rank = shapes.reduce((r, s) => Math.max(r, s.length), 0);
  const out: Dim[] = [];
  for (let k = 0; k < rank; k++) {
    let acc: Dim = 1;
    let first = true;
    for (const s of shapes) {
      const i = s.length - rank + k;
      if (i < 0) continue;
      const d = s[i]!;
      if (first) {
        acc = d;
        first = false;
        continue;
      }
      const r = broadcastDim(acc, d);
      if (r === undefined) {
        return `dimensions ${acc} and ${d} cannot be broadcast (shapes ${shapes.map(formatShape).join(" and ")})`;
      }
      acc = r;
    }
    out.push(acc);
  }
  return out;
}

/** Undefined when two static dimensions clash. */
function broadcastDim(a: Dim, b: Dim): Dim | undefined {
  if (a === b) return a;
  if (a === 1) return b;
  if (b === 1) return a;
  if (typeof a === "number" && typeof b === "number") return undefined;
  // One side known (not 1), the other unknown: a valid model has the other equal or 1.
  if (typeof a === "number") return a;
  if (typeof b === "number") return b;
  return a === null || b === null ? null : broadcastSymbols(a, b);
}
