// Tensor element values as text, and back, bit-exactly.
//
// How each element type is written (compatible with ONNX's own printer/parser where they agree):
// - float, double, complex: the shortest decimal that reads back to the same bits at that width,
//   always with a '.' or exponent; inf, -inf, nan, -nan. A NaN with any other payload is written
//   nan(0x<bits>) (an extension: ONNX's syntax has no form for NaN payloads).
// - float16, bfloat16: the value in the same decimal form. An integer literal is the bit pattern
//   (that is what ONNX's printer writes and its parser reads), so NaN payloads other than the
//   canonical quiet NaN are written as their bit pattern.
// - float8 and float4 types: the bit pattern, as an integer (ONNX's convention).
// - integer types: the value; int4/uint4/int2/uint2 one value per element (packed in raw data).
// - bool: 0 or 1 (the stored byte). string: a quoted string (UTF-8; an element that is not
//   valid UTF-8 is refused, never replaced).

import * as dtype from "../ir/dtype.js";
import type { Tensor, TensorData } from "../ir/tensor.js";
import { DataType } from "../ir/types.js";
import { OnnxError } from "../errors.js";
import { quote } from "./syntax.js";

const scratch = new DataView(new ArrayBuffer(8));

function withPoint(s: string): string {
  return /[.eE]/.test(s) ? s : s + ".0";
}

/** The shortest decimal (fewest significant digits) that `roundTrips` accepts. */
function shortest(v: number, roundTrips: (d: number) => boolean): string {
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  for (let p = 1; p <= 17; p++) {
    const d = Number(v.toPrecision(p));
    if (roundTrips(d)) return withPoint(String(d));
  }
  return withPoint(String(v));
}

const hex = (v: number | bigint, width: number): string =>
  "0x" + v.toString(16).padStart(width, "0");

export function formatFloat32Bits(bits: number): string {
  bits >>>= 0;
  if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x7fffff) !== 0) {
    if (bits === 0x7fc00000) return "nan";
    if (bits === 0xffc00000) return "-nan";
    return `nan(${hex(bits, 8)})`;
  }
  scratch.setUint32(0, bits, true);
  const v = scratch.getFloat32(0, true);
  return shortest(v, (d) => Math.fround(d) === v);
}

const F64_QNAN = 0x7ff8000000000000n;
const F64_SIGN = 0x8000000000000000n;

export function formatFloat64Bits(bits: bigint): string {
  scratch.setBigUint64(0, bits, true);
  const v = scratch.getFloat64(0, true);
  if (Number.isNaN(v)) {
    if (bits === F64_QNAN) return "nan";
    if (bits === (F64_QNAN | F64_SIGN)) return "-nan";
    return `nan(${hex(bits, 16)})`;
  }
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  return withPoint(String(v));
}

/** A 16-bit float format: where its exponent and fraction bits are, its quiet NaN, its conversions. */
interface HalfFormat {
  exponent: number;
  fraction: number;
  qnan: number;
  toNumber(bits: number): number;
  toBits(v: number): number;
}

const FLOAT16: HalfFormat = {
  exponent: 0x7c00,
  fraction: 0x3ff,
  qnan: 0x7e00,
  toNumber: dtype.float16BitsToNumber,
  toBits: dtype.numberToFloat16Bits,
};

const BFLOAT16: HalfFormat = {
  exponent: 0x7f80,
  fraction: 0x7f,
  qnan: 0x7fc0,
  toNumber: dtype.bfloat16BitsToNumber,
  toBits: dtype.numberToBfloat16Bits,
};

/** The shortest decimal; a NaN other than the quiet ones as its bit pattern. */
function formatHalfBits(bits: number, f: HalfFormat): string {
  if ((bits & f.exponent) === f.exponent && (bits & f.fraction) !== 0) {
    if (bits === f.qnan) return "nan";
    if (bits === (f.qnan | 0x8000)) return "-nan";
    return String(bits);
  }
  const v = f.toNumber(bits);
  return shortest(v, (d) => f.toBits(d) === bits);
}

export const formatFloat16Bits = (bits: number): string => formatHalfBits(bits, FLOAT16);
export const formatBfloat16Bits = (bits: number): string => formatHalfBits(bits, BFLOAT16);

/** A FLOAT attribute (a JS number holding a float32 value). */
export function formatFloatNumber(v: number): string {
  if (Number.isNaN(v)) return "nan";
  if (Math.fround(v) === v) return shortest(v, (d) => Math.fround(d) === v);
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  return withPoint(String(v));
}

/** Number of stored scalars: elements, or two per element for complex types. */
export function scalarCount(t: { dataType: number; dims: number[] }): number {
  let n = 1;
  for (const d of t.dims) n *= d;
  return t.dataType === DataType.COMPLEX64 || t.dataType === DataType.COMPLEX128 ? n * 2 : n;
}

/**
 * The tensor's data as little-endian raw_data bytes, read bit-exactly from whichever field holds
 * it (read from its file when it is stored in one). Undefined for strings and for external data
 * whose file was never opened.
 */
export function tensorBytes(t: Tensor): Uint8Array | undefined {
  return t.data.kind === "string" || !t.readable ? undefined : t.rawBytes();
}

/**
 * Strings of a string tensor. ONNX text holds UTF-8 only: an element that is not valid UTF-8 is
 * refused, never printed with replacement characters that would read back as other data.
 */
export function tensorStrings(t: Tensor): string[] {
  const d = t.data;
  if (d.kind !== "string") return [];
  const dec = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  return d.values.map((b, i) => {
    try {
      return dec.decode(b);
    } catch {
      throw new OnnxError(
        "E_UNSUPPORTED",
        `string tensor '${t.name}' element ${i} is not valid UTF-8, which ONNX text cannot hold (the binary .onnx form can)`,
      );
    }
  });
}

function subByteBits(dataType: number): number {
  const size = dtype.dtypeInfo(dataType)?.size ?? 1;
  return size < 1 ? Math.round(size * 8) : 0;
}

type ScalarText = (view: DataView, i: number) => string;
const float32Text: ScalarText = (v, i) => formatFloat32Bits(v.getUint32(i * 4, true));
const float64Text: ScalarText = (v, i) => formatFloat64Bits(v.getBigUint64(i * 8, true));
/** uint8, bool, the float8 types: the byte. */
const byteText: ScalarText = (v, i) => String(v.getUint8(i));

/** The text of scalar i of a type, in raw little-endian data (byteText for the types not here). */
const SCALAR_TEXT: Partial<Record<number, ScalarText>> = {
  [DataType.FLOAT]: float32Text,
  [DataType.COMPLEX64]: float32Text,
  [DataType.DOUBLE]: float64Text,
  [DataType.COMPLEX128]: float64Text,
  [DataType.FLOAT16]: (v, i) => formatFloat16Bits(v.getUint16(i * 2, true)),
  [DataType.BFLOAT16]: (v, i) => formatBfloat16Bits(v.getUint16(i * 2, true)),
  [DataType.INT8]: (v, i) => String(v.getInt8(i)),
  [DataType.INT16]: (v, i) => String(v.getInt16(i * 2, true)),
  [DataType.UINT16]: (v, i) => String(v.getUint16(i * 2, true)),
  [DataType.INT32]: (v, i) => String(v.getInt32(i * 4, true)),
  [DataType.UINT32]: (v, i) => String(v.getUint32(i * 4, true)),
  [DataType.INT64]: (v, i) => v.getBigInt64(i * 8, true).toString(),
  [DataType.UINT64]: (v, i) => v.getBigUint64(i * 8, true).toString(),
};

/** The literal text of each stored scalar. */
export function elementTexts(t: Tensor, where?: string): string[] {
  if (t.data.kind === "string") return tensorStrings(t).map(quote);
  const bytes = tensorBytes(t);
  if (!bytes) throw new Error("external tensor has no elements to print");
  const n = scalarCount(t);
  const type = t.dataType;
  const info = dtype.dtypeInfo(type);
  if (!info)
    throw new OnnxError(
      "E_UNSUPPORTED",
      `tensor '${t.name}' has unknown element type ${type}`,
      where,
    );
  if (!Number.isSafeInteger(n) || n < 0)
    throw new OnnxError(
      "E_MODEL",
      `tensor '${t.name}' has an invalid shape [${t.dims.join(",")}]`,
      where,
    );
  if (t.data.kind === "none" && n > 0) return [];
  const sub = subByteBits(type);
  const need = sub
    ? Math.ceil((n * sub) / 8)
    : n * (type === DataType.COMPLEX64 ? 4 : type === DataType.COMPLEX128 ? 8 : info.size);
  // More data than the shape holds would be dropped without a word: refuse that too.
  if (bytes.length !== need)
    throw new OnnxError(
      "E_MODEL",
      `tensor '${t.name}' (${t.describe()}) holds ${bytes.length} bytes of data, ${need} needed`,
      where,
    );
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: string[] = new Array(n);
  if (sub) {
    const perByte = 8 / sub;
    const mask = (1 << sub) - 1;
    const signed = type === DataType.INT4 || type === DataType.INT2;
    for (let i = 0; i < n; i++) {
      let v = (bytes[Math.floor(i / perByte)]! >> ((i % perByte) * sub)) & mask;
      if (signed && v >= 1 << (sub - 1)) v -= 1 << sub;
      out[i] = String(v);
    }
    return out;
  }
  const text = SCALAR_TEXT[type] ?? byteText;
  for (let i = 0; i < n; i++) out[i] = text(view, i);
  return out;
}

/** A literal as the parser found it. */
export interface Lit {
  kind: "int" | "float" | "string" | "nan";
  /** int: decimal or 0x hex, maybe with '-'; float: a JS-Number-readable decimal or ±Infinity. */
  text: string;
  pos: number;
  /** nan: the sign, and the payload bits when written nan(0x...). */
  negative?: boolean;
  bits?: bigint;
}

export type LitError = (pos: number, message: string) => OnnxError;

function bigOfInt(text: string): bigint {
  if (text.startsWith("-")) return -BigInt(text.slice(1));
  return BigInt(text);
}

function numberOf(l: Lit): number {
  if (l.kind === "float") return Number(l.text);
  if (l.text.includes("x") || l.text.includes("X")) return Number(bigOfInt(l.text));
  return Number(l.text); // keeps "-0" negative
}

const INT_RANGES: Partial<Record<number, [bigint, bigint]>> = {
  [DataType.INT8]: [-128n, 127n],
  [DataType.UINT8]: [0n, 255n],
  [DataType.INT16]: [-32768n, 32767n],
  [DataType.UINT16]: [0n, 65535n],
  [DataType.INT32]: [-(2n ** 31n), 2n ** 31n - 1n],
  [DataType.UINT32]: [0n, 2n ** 32n - 1n],
  [DataType.INT64]: [-(2n ** 63n), 2n ** 63n - 1n],
  [DataType.UINT64]: [0n, 2n ** 64n - 1n],
  [DataType.BOOL]: [0n, 255n],
  [DataType.INT4]: [-8n, 7n],
  [DataType.UINT4]: [0n, 15n],
  [DataType.INT2]: [-2n, 1n],
  [DataType.UINT2]: [0n, 3n],
  [DataType.FLOAT4E2M1]: [0n, 15n],
  [DataType.FLOAT8E4M3FN]: [0n, 255n],
  [DataType.FLOAT8E4M3FNUZ]: [0n, 255n],
  [DataType.FLOAT8E5M2]: [0n, 255n],
  [DataType.FLOAT8E5M2FNUZ]: [0n, 255n],
  [DataType.FLOAT8E8M0]: [0n, 255n],
};

/** An integer literal checked against a range. */
export function intLit(l: Lit, lo: bigint, hi: bigint, what: string, err: LitError): bigint {
  if (l.kind !== "int") throw err(l.pos, `expected an integer (${what}), found ${describeLit(l)}`);
  const v = bigOfInt(l.text);
  if (v < lo || v > hi) throw err(l.pos, `${l.text} is out of range for ${what} [${lo}, ${hi}]`);
  return v;
}

export function describeLit(l: Lit): string {
  if (l.kind === "string") return `string ${JSON.stringify(l.text)}`;
  if (l.kind === "nan") return "nan";
  return `number ${l.text}`;
}

/** A 32- or 64-bit float format: its quiet NaN, sign bit, all bits, and a number's bits. */
interface WideFormat {
  qnan: bigint;
  sign: bigint;
  mask: bigint;
  toBits(v: number): bigint;
}

const FLOAT32: WideFormat = {
  qnan: 0x7fc00000n,
  sign: 0x80000000n,
  mask: 0xffffffffn,
  toBits: (v) => {
    scratch.setFloat32(0, v, true);
    return BigInt(scratch.getUint32(0, true));
  },
};

const FLOAT64: WideFormat = {
  qnan: F64_QNAN,
  sign: F64_SIGN,
  mask: 2n ** 64n - 1n,
  toBits: (v) => {
    scratch.setFloat64(0, v, true);
    return scratch.getBigUint64(0, true);
  },
};

/** The bits of a literal for a 32- or 64-bit float: nan with its payload, or quiet and signed. */
function floatBits(l: Lit, f: WideFormat, what: string, err: LitError): bigint {
  if (l.kind === "string") throw err(l.pos, `expected a number (${what}), found ${describeLit(l)}`);
  if (l.kind === "nan")
    return l.bits !== undefined ? l.bits & f.mask : f.qnan | (l.negative ? f.sign : 0n);
  return f.toBits(numberOf(l));
}

function floatBits16(l: Lit, f: HalfFormat, what: string, err: LitError): number {
  if (l.kind === "string") throw err(l.pos, `expected a number (${what}), found ${describeLit(l)}`);
  if (l.kind === "nan") {
    if (l.bits !== undefined) return Number(l.bits & 0xffffn);
    return f.qnan | (l.negative ? 0x8000 : 0);
  }
  // An integer is the bit pattern, as ONNX's printer writes these types.
  if (l.kind === "int")
    return Number(intLit(l, -32768n, 65535n, `${what} bit pattern`, err)) & 0xffff;
  return f.toBits(Number(l.text));
}

/** Builds raw tensor data from literals; checks the count. */
export function tensorDataFromLits(
  dataType: number,
  dims: number[],
  lits: Lit[],
  err: LitError,
  at: number,
): TensorData {
  const what = dtype.dtypeName(dataType);
  if (lits.length === 0) return { kind: "none" };
  const n = scalarCount({ dataType, dims });
  if (lits.length !== n)
    throw err(
      lits[Math.min(lits.length, n)]?.pos ?? at,
      `${what}[${dims.join(",")}] needs ${n} value${n === 1 ? "" : "s"}, found ${lits.length}`,
    );
  if (dataType === DataType.STRING) {
    const enc = new TextEncoder();
    return {
      kind: "string",
      values: lits.map((l) => {
        if (l.kind !== "string") throw err(l.pos, `expected a string, found ${describeLit(l)}`);
        return enc.encode(l.text);
      }),
    };
  }
  const info = dtype.dtypeInfo(dataType);
  if (!info) throw err(at, `tensor of unknown element type ${dataType} cannot hold values`);
  const sub = subByteBits(dataType);
  if (sub) {
    const bytes = new Uint8Array(Math.ceil((n * sub) / 8));
    const perByte = 8 / sub;
    const [lo, hi] = INT_RANGES[dataType]!;
    const mask = (1 << sub) - 1;
    lits.forEach((l, i) => {
      const v = Number(intLit(l, lo, hi, what, err)) & mask;
      bytes[Math.floor(i / perByte)]! |= v << ((i % perByte) * sub);
    });
    return { kind: "raw", bytes };
  }
  const width =
    dataType === DataType.COMPLEX64 ? 4 : dataType === DataType.COMPLEX128 ? 8 : info.size;
  const bytes = new Uint8Array(n * width);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < n; i++) {
    const l = lits[i]!;
    switch (dataType) {
      case DataType.FLOAT:
      case DataType.COMPLEX64:
        view.setUint32(i * 4, Number(floatBits(l, FLOAT32, what, err)), true);
        break;
      case DataType.DOUBLE:
      case DataType.COMPLEX128:
        view.setBigUint64(i * 8, floatBits(l, FLOAT64, what, err), true);
        break;
      case DataType.FLOAT16:
        view.setUint16(i * 2, floatBits16(l, FLOAT16, what, err), true);
        break;
      case DataType.BFLOAT16:
        view.setUint16(i * 2, floatBits16(l, BFLOAT16, what, err), true);
        break;
      case DataType.INT64:
      case DataType.UINT64: {
        const [lo, hi] = INT_RANGES[dataType]!;
        view.setBigUint64(i * 8, BigInt.asUintN(64, intLit(l, lo, hi, what, err)), true);
        break;
      }
      default: {
        const range = INT_RANGES[dataType];
        if (!range) throw err(l.pos, `values of ${what} tensors cannot be written in text`);
        const v = Number(
          intLit(
            l,
            range[0],
            range[1],
            info.size === 1 &&
              dataType !== DataType.INT8 &&
              dataType !== DataType.UINT8 &&
              dataType !== DataType.BOOL
              ? `${what} bit pattern`
              : what,
            err,
          ),
        );
        if (info.size === 1) view.setUint8(i, v & 0xff);
        else if (info.size === 2) view.setUint16(i * 2, v & 0xffff, true);
        else view.setUint32(i * 4, v >>> 0, true);
      }
    }
  }
  return { kind: "raw", bytes };
}
