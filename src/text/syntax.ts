// Small facts of the text syntax shared by printer and parser: names, quoting, keywords.

import { OnnxError } from "../errors.js";
import type { AttrType } from "../ir/types.js";

/** Words that start a type (or a float) where a name could stand; names spelled so are quoted. */
const RESERVED = new Set([
  "float",
  "uint8",
  "int8",
  "uint16",
  "int16",
  "int32",
  "int64",
  "string",
  "bool",
  "float16",
  "double",
  "uint32",
  "uint64",
  "complex64",
  "complex128",
  "bfloat16",
  "float8e4m3fn",
  "float8e4m3fnuz",
  "float8e5m2",
  "float8e5m2fnuz",
  "uint4",
  "int4",
  "float4e2m1",
  "float8e8m0",
  "uint2",
  "int2",
  "undefined",
  "seq",
  "map",
  "optional",
  "sparse_tensor",
  "opaque",
  "tensor",
]);

const FLOAT_WORDS = new Set(["inf", "infinity", "nan"]);

export function isFloatWord(word: string): boolean {
  // Only 3- and 8-letter words can be one (no lower-casing of every name printed).
  return (word.length === 3 || word.length === 8) && FLOAT_WORDS.has(word.toLowerCase());
}

export function isPlainId(s: string): boolean {
  const n = s.length;
  if (n === 0) return false;
  const c = s.charCodeAt(0);
  if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) return false;
  for (let i = 1; i < n; i++) {
    const d = s.charCodeAt(i);
    if (!((d >= 65 && d <= 90) || (d >= 97 && d <= 122) || d === 95 || (d >= 48 && d <= 57)))
      return false;
  }
  return true;
}

/**
 * A string literal. '"' and '\' are escaped with a backslash, as the reference parser expects;
 * control characters other than tab, newline and carriage return are written \xHH (an extension
 * the lexer reads; raw, they would make the text look like binary data). A lone UTF-16 surrogate
 * has no UTF-8 form: the string is refused rather than written changed.
 */
export function quote(s: string): string {
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s))
    throw new OnnxError(
      "E_UNSUPPORTED",
      `the string '${s}' holds a lone UTF-16 surrogate, which has no UTF-8 form; ONNX text cannot hold it`,
    );
  return (
    '"' +
    s.replace(/["\\\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, (c) =>
      c === '"' || c === "\\" ? "\\" + c : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
    ) +
    '"'
  );
}

/** A name as written where a quoted name is allowed: bare when that cannot be misread. */
export function printName(s: string): string {
  return isPlainId(s) && !RESERVED.has(s) && !isFloatWord(s) ? s : quote(s);
}

/** A domain or other dotted name: bare when every part is a plain identifier. */
export function printDotted(s: string): string {
  return s.split(".").every((p) => isPlainId(p)) ? s : quote(s);
}

export const ATTR_TYPE_NAMES: Record<AttrType, string> = {
  UNDEFINED: "undefined",
  FLOAT: "float",
  INT: "int",
  STRING: "string",
  TENSOR: "tensor",
  GRAPH: "graph",
  SPARSE_TENSOR: "sparse_tensor",
  TYPE_PROTO: "type_proto",
  FLOATS: "floats",
  INTS: "ints",
  STRINGS: "strings",
  TENSORS: "tensors",
  GRAPHS: "graphs",
  SPARSE_TENSORS: "sparse_tensors",
  TYPE_PROTOS: "type_protos",
};

export const ATTR_TYPE_BY_NAME: Map<string, AttrType> = new Map(
  (Object.entries(ATTR_TYPE_NAMES) as [AttrType, string][])
    .filter(([k]) => k !== "UNDEFINED")
    .map(([k, v]) => [v, k]),
);

export function isTypeKeyword(word: string): boolean {
  return RESERVED.has(word);
}

/**
 * Attribute types whose values hold no tensors or graphs: an attribute of one reads the same
 * wherever it stands, so the parser and the decoder (io/shared-attributes.ts) share repeats.
 */
export const PLAIN_ATTR_TYPES: ReadonlySet<AttrType> = new Set<AttrType>([
  "FLOAT",
  "INT",
  "STRING",
  "FLOATS",
  "INTS",
  "STRINGS",
]);
