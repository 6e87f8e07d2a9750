// Mutations of model files for fuzzing: byte-level for the binary form (bit flips, inserts,
// deletes, truncation, splices of two models, huge varint lengths, deep nesting, multiplied
// repeated fields, huge flat nodes and initializer lists) and token-level for the text form.
// Every mutation is a pure function of its inputs and a seeded Random, so a case is reproduced
// from its seed alone.

import type { Random } from "../../src/interp/random.js";
import { hugeFlat } from "./flat.js";

export type BinaryMutation =
  | "bitflip"
  | "insert"
  | "delete"
  | "truncate"
  | "splice"
  | "huge-length"
  | "deep-nesting"
  | "repeat-field"
  | "overwrite-varint"
  | "huge-flat";

export const BINARY_MUTATIONS: BinaryMutation[] = [
  "bitflip",
  "insert",
  "delete",
  "truncate",
  "splice",
  "huge-length",
  "deep-nesting",
  "repeat-field",
  "overwrite-varint",
  "huge-flat",
];

const INTERESTING_BYTES = [0x00, 0x01, 0x7f, 0x80, 0xff, 0x08, 0x0a, 0x12, 0x1a, 0x22, 0x3a];

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function varint(n: number): Uint8Array {
  const bytes: number[] = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    bytes.push(b);
  } while (v > 0n);
  return Uint8Array.from(bytes);
}

/** Offsets of length-delimited fields at the top level of a message (tag, length, payload). */
function topLevelFields(buf: Uint8Array): { start: number; lenAt: number; end: number }[] {
  const out: { start: number; lenAt: number; end: number }[] = [];
  let i = 0;
  const readVarint = (): number | undefined => {
    let v = 0;
    let mul = 1;
    for (let k = 0; k < 10 && i < buf.length; k++) {
      const b = buf[i++]!;
      v += (b & 0x7f) * mul;
      mul *= 128;
      if ((b & 0x80) === 0) return v;
    }
    return undefined;
  };
  while (i < buf.length) {
    const start = i;
    const tag = readVarint();
    if (tag === undefined) break;
    const wire = tag & 7;
    if (wire === 0) {
      if (readVarint() === undefined) break;
    } else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else if (wire === 2) {
      const lenAt = i;
      const len = readVarint();
      if (len === undefined || i + len > buf.length) break;
      i += len;
      out.push({ start, lenAt, end: i });
    } else break;
  }
  return out;
}

export function mutateBinary(
  input: Uint8Array,
  other: Uint8Array,
  kind: BinaryMutation,
  rng: Random,
): Uint8Array {
  const buf = new Uint8Array(input);
  const at = (n = buf.length) => rng.int(Math.max(1, n));
  switch (kind) {
    case "huge-flat":
      return hugeFlat(input, rng);
    case "bitflip": {
      const flips = 1 + rng.int(8);
      for (let k = 0; k < flips && buf.length; k++) buf[at()]! ^= 1 << rng.int(8);
      return buf;
    }
    case "insert": {
      const i = at(buf.length + 1);
      const n = 1 + rng.int(16);
      const ins = Uint8Array.from({ length: n }, () =>
        rng.chance(0.5) ? rng.pick(INTERESTING_BYTES) : rng.int(256),
      );
      return concat(buf.subarray(0, i), ins, buf.subarray(i));
    }
    case "delete": {
      const i = at();
      const n = 1 + rng.int(Math.min(64, Math.max(1, buf.length - i)));
      return concat(buf.subarray(0, i), buf.subarray(i + n));
    }
    case "truncate":
      return buf.subarray(0, at());
    case "splice": {
      const i = at();
      const j = rng.int(Math.max(1, other.length));
      return concat(buf.subarray(0, i), other.subarray(j));
    }
    case "huge-length": {
      // A length prefix that claims far more bytes than the file has.
      const fields = topLevelFields(buf);
      const huge = varint(rng.pick([0x7fffffff, 0xffffffff, 2 ** 40, 2 ** 53 - 1, 1e9]));
      if (fields.length === 0) return concat(Uint8Array.of(0x3a), huge, buf);
      const f = rng.pick(fields);
      let lenEnd = f.lenAt;
      while (lenEnd < buf.length && buf[lenEnd]! & 0x80) lenEnd++;
      return concat(buf.subarray(0, f.lenAt), huge, buf.subarray(lenEnd + 1));
    }
    case "deep-nesting": {
      // Wraps a field's payload in many levels of the same field number (graph in graph ...).
      const depth = rng.pick([100, 1000, 10000, 100000]);
      const tag = rng.pick([0x3a, 0x0a, 0x12, 0x2a]);
      let inner: Uint8Array = buf.subarray(0, Math.min(buf.length, 64));
      for (let d = 0; d < depth; d++)
        inner = concat(Uint8Array.of(tag), varint(inner.length), inner);
      return concat(buf, inner);
    }
    case "repeat-field": {
      const fields = topLevelFields(buf);
      if (fields.length === 0) return buf;
      const f = rng.pick(fields);
      const copies = rng.pick([2, 10, 1000, 20000]);
      const field = buf.subarray(f.start, f.end);
      const rep = new Uint8Array(field.length * copies);
      for (let c = 0; c < copies; c++) rep.set(field, c * field.length);
      return concat(buf.subarray(0, f.end), rep, buf.subarray(f.end));
    }
    case "overwrite-varint": {
      // An interesting integer (huge dims, negative counts, opset versions) over a varint.
      const i = at();
      const v = varint(rng.pick([0, 1, 127, 128, 2 ** 31 - 1, 2 ** 32, 2 ** 53 - 1, 100000]));
      let end = i;
      while (end < buf.length && buf[end]! & 0x80) end++;
      return concat(buf.subarray(0, i), v, buf.subarray(Math.min(buf.length, end + 1)));
    }
  }
}

/** Splits ONNX text into tokens (identifiers, numbers, strings, punctuation) and the gaps between. */
export function tokenize(text: string): string[] {
  return (
    text.match(/"(?:[^"\\]|\\.)*"|[A-Za-z_][\w.]*|-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\s+|./gs) ?? []
  );
}

const TEXT_INSERTS = [
  "<",
  ">",
  "{",
  "}",
  "[",
  "]",
  "(",
  ")",
  ",",
  "=",
  ":",
  "@",
  '"',
  "float",
  "int64",
  "seq(float)",
  "Loop",
  "If",
  "graph",
  "opset_import:",
  "\n",
  "-1",
  "0",
  "2147483647",
  "99999999999999999999",
  "1e308",
  "NaN",
  "inf",
];

export function mutateText(text: string, other: string, rng: Random): string {
  const toks = tokenize(text);
  if (toks.length === 0) return rng.pick(TEXT_INSERTS);
  const i = rng.int(toks.length);
  const kind = rng.int(7);
  switch (kind) {
    case 0: // delete a run of tokens
      toks.splice(i, 1 + rng.int(4));
      break;
    case 1: // duplicate a run
      toks.splice(i, 0, ...toks.slice(i, i + 1 + rng.int(6)));
      break;
    case 2: // insert something syntactic
      toks.splice(i, 0, rng.pick(TEXT_INSERTS));
      break;
    case 3: {
      // replace a number by an interesting one
      const nums = toks.map((t, k) => (/^-?\d/.test(t) ? k : -1)).filter((k) => k >= 0);
      const k = nums.length ? rng.pick(nums) : i;
      toks[k] = rng.pick(["0", "-1", "-2147483648", "2147483647", "4294967296", "1e9", "3.5"]);
      break;
    }
    case 4: {
      // swap two identifiers (breaks references, op names, types)
      const ids = toks.map((t, k) => (/^[A-Za-z_]/.test(t) ? k : -1)).filter((k) => k >= 0);
      if (ids.length >= 2) {
        const a = rng.pick(ids);
        const b = rng.pick(ids);
        [toks[a], toks[b]] = [toks[b]!, toks[a]!];
      }
      break;
    }
    case 5: {
      // splice with another model's text
      const ot = tokenize(other);
      toks.splice(i, toks.length - i, ...ot.slice(rng.int(Math.max(1, ot.length))));
      break;
    }
    default: {
      // deep nesting of brackets
      const depth = rng.pick([50, 500, 5000, 50000]);
      toks.splice(i, 0, "[".repeat(depth) + "]".repeat(rng.chance(0.5) ? depth : 0));
    }
  }
  return toks.join("");
}
