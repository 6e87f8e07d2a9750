// Structural keys: one string for each plain value (numbers, strings, arrays, plain objects,
// types), equal for values alike, so that caches and memos can key by structure.

import type { Type } from "./types.js";

/**
 * A short key for the usual type, a tensor type with fields kind, elemType and maybe shape (in
 * that order, as valueKey keys fields in order), e.g. "T1:4,?,s5:batch,"; else undefined. No
 * valueKey starts with "T" or "S".
 */
export function tensorKey(t: Type): string | undefined {
  if (t.kind !== "tensor" && t.kind !== "sparse_tensor") return undefined;
  if (Object.getPrototypeOf(t) !== Object.prototype) return undefined;
  let n = 0;
  for (const f in t) {
    if (f !== (n === 0 ? "kind" : n === 1 ? "elemType" : n === 2 ? "shape" : undefined))
      return undefined;
    n++;
  }
  const e = t.elemType;
  if (n < 2 || typeof e !== "number" || Object.is(e, -0)) return undefined;
  let k = `${t.kind === "tensor" ? "T" : "S"}${e}`;
  if (n === 2) return k;
  const shape = t.shape;
  if (!Array.isArray(shape)) return undefined;
  k += ":";
  for (const d of shape) {
    if (d === null) k += "?,";
    else if (typeof d === "number" && !Object.is(d, -0)) k += `${d},`;
    else if (typeof d === "string") k += `s${d.length}:${d},`;
    else return undefined;
  }
  return k;
}

/**
 * An unambiguous string for plain data (numbers, bigints, strings, booleans, null, undefined,
 * arrays and plain objects, fields in their order); undefined for anything else.
 */
export function valueKey(v: unknown): string | undefined {
  switch (typeof v) {
    case "number":
      return Object.is(v, -0) ? "d-0" : `d${v}`;
    case "bigint":
      return `b${v}`;
    case "string":
      return `s${v.length}:${v}`;
    case "boolean":
      return v ? "t" : "f";
    case "undefined":
      return "u";
    case "object": {
      if (v === null) return "n";
      if (Array.isArray(v)) {
        let k = "[";
        for (const x of v) {
          const e = valueKey(x);
          if (e === undefined) return undefined;
          k += `${e},`;
        }
        return `${k}]`;
      }
      if (Object.getPrototypeOf(v) !== Object.prototype) return undefined;
      let k = "{";
      for (const f of Object.keys(v)) {
        const e = valueKey((v as Record<string, unknown>)[f]);
        if (e === undefined) return undefined;
        k += `${f.length}:${f}=${e},`;
      }
      return `${k}}`;
    }
    default:
      return undefined;
  }
}

/** A string naming a type by its structure (every field); undefined for a type that is not plain data. */
export function typeKey(t: Type): string | undefined {
  return tensorKey(t) ?? valueKey(t);
}
