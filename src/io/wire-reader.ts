// The wire format's primitives for the model decoder (decode.ts): varints of every width, fixed
// 32/64-bit numbers, length-delimited fields, strings (short ASCII ones through a small table of
// recent strings, since names repeat throughout a model), and skipping fields of any wire type as
// protobuf readers do. Failures are WireErrors, described by the caller in one line.

import { MAX_NESTING } from "../proto/wire.js";

/** A decoding failure, in protobuf readers' words (proto/wire.ts describeDecodeError reads them). */
export class WireError extends Error {}

export const VARINT = 0;
export const FIXED64 = 1;
export const LEN = 2;
export const FIXED32 = 5;

const utf8 = new TextDecoder();
const STRING_TABLE_MASK = 4095;
const TWO32 = 4294967296;

/** An ASCII run of 1 to 16 bytes as a string, made in one step (no intermediate strings). */
// prettier-ignore
function asciiShort(b: Uint8Array, s: number, n: number): string {
  const c = String.fromCharCode;
  switch (n) {
    case 1: return c(b[s]!);
    case 2: return c(b[s]!, b[s + 1]!);
    case 3: return c(b[s]!, b[s + 1]!, b[s + 2]!);
    case 4: return c(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!);
    case 5: return c(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!);
    case 6: return c(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!);
    case 7: return c(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!);
    case 8: return c(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!);
    case 9: return c(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!);
    case 10: return c(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!);
    case 11: return c(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!);
    case 12: return c(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!);
    case 13: return c(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!, b[s + 12]!);
    case 14: return c(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!, b[s + 12]!, b[s + 13]!);
    case 15: return c(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!, b[s + 12]!, b[s + 13]!, b[s + 14]!);
    case 16: return c(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!, b[s + 12]!, b[s + 13]!, b[s + 14]!, b[s + 15]!);
    default: return "";
  }
}

/** Node's Buffer reads Latin-1 (ASCII here) in one native call; elsewhere TextDecoder does. */
type Latin1 = Uint8Array & { latin1Slice?: (start: number, end: number) => string };

/** BigInts of small magnitude, made once (attribute ints are mostly small; a bigint is immutable). */
const SMALL = 1024;
const SMALL_BIGINTS: readonly bigint[] = Array.from({ length: SMALL }, (_, i) => BigInt(i));
const SMALL_NEGATIVE_BIGINTS: readonly bigint[] = Array.from({ length: SMALL }, (_, i) =>
  BigInt(-i),
);

/**
 * A stack the decoders collect a repeated field on: each message takes its items off as an array
 * of exactly their number (an array grown by push from empty holds room for 16), so a node's
 * inputs, outputs and attributes cost what they hold. Nested messages use the stack above the
 * items of the message that holds them and give it back as they found it.
 */
export class Stack<T> {
  private readonly items: T[] = [];
  top = 0;
  push(v: T): void {
    this.items[this.top++] = v;
  }
  /** Whether the items from `from` on are those of `list`, in order (the lengths agree). */
  matches(from: number, list: readonly T[]): boolean {
    const items = this.items;
    for (let i = 0; i < list.length; i++) if (items[from + i] !== list[i]) return false;
    return true;
  }
  /** The items from `from` on, as an array of their own; the stack drops back to `from`. */
  take(from: number): T[] {
    const items = this.items;
    const n = this.top - from;
    this.top = from;
    // Short lists as literals: V8 then learns that they live on and makes them in the old
    // generation directly (allocation-site pretenuring), instead of copying them at each scavenge.
    switch (n) {
      case 0:
        return [];
      case 1:
        return [items[from]!];
      case 2:
        return [items[from]!, items[from + 1]!];
      case 3:
        return [items[from]!, items[from + 1]!, items[from + 2]!];
      default:
        return items.slice(from, from + n);
    }
  }
}

/** The reader: a buffer, a position, and (passed to each call) the end of the message being read. */
export class WireReader {
  pos = 0;
  private readonly view: DataView;
  constructor(
    readonly buf: Uint8Array,
    protected readonly baseDir: string | undefined,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  outOfRange(need: number, end: number): never {
    throw new WireError(`index out of range: ${this.pos} + ${need} > ${end}`);
  }

  /** A varint's low 32 bits as an unsigned number; the rest of a longer varint is skipped. */
  u32(end: number): number {
    const buf = this.buf;
    let pos = this.pos;
    if (pos >= end) this.outOfRange(1, end);
    let b = buf[pos++]!;
    if (b < 128) {
      this.pos = pos;
      return b;
    }
    let v = b & 127;
    for (let shift = 7; shift < 35; shift += 7) {
      if (pos >= end) this.outOfRange(1, end);
      b = buf[pos++]!;
      v |= (b & 127) << shift;
      if (b < 128) {
        this.pos = pos;
        return v >>> 0;
      }
    }
    for (let i = 0; i < 5; i++) {
      if (pos >= end) this.outOfRange(1, end);
      if (buf[pos++]! < 128) {
        this.pos = pos;
        return v >>> 0;
      }
    }
    throw new WireError("invalid varint encoding");
  }

  private hi = 0;
  /** A 64-bit varint: returns the low 32 bits (unsigned) and leaves the high 32 bits in `hi`. */
  private u64(end: number): number {
    const buf = this.buf;
    let pos = this.pos;
    let lo = 0;
    let hi = 0;
    let b = 0;
    let i = 0;
    for (; i < 4; i++) {
      if (pos >= end) this.outOfRange(1, end);
      b = buf[pos++]!;
      lo |= (b & 127) << (i * 7);
      if (b < 128) {
        this.pos = pos;
        this.hi = 0;
        return lo >>> 0;
      }
    }
    if (pos >= end) this.outOfRange(1, end);
    b = buf[pos++]!;
    lo |= (b & 127) << 28;
    hi = (b & 127) >> 4;
    if (b >= 128) {
      for (i = 0; i < 5; i++) {
        if (pos >= end) this.outOfRange(1, end);
        b = buf[pos++]!;
        hi |= (b & 127) << (i * 7 + 3);
        if (b < 128) break;
      }
      if (b >= 128) throw new WireError("invalid varint encoding");
    }
    this.pos = pos;
    this.hi = hi >>> 0;
    return lo >>> 0;
  }

  i32(end: number): number {
    return this.u64(end) | 0;
  }
  /** An int64 as a number (exact below 2^53, as Long.toNumber gives). */
  i64num(end: number): number {
    const lo = this.u64(end);
    return (this.hi | 0) * 4294967296 + lo;
  }
  i64(end: number): bigint {
    const lo = this.u64(end);
    const hi = this.hi;
    if (hi === 0) return lo < SMALL ? SMALL_BIGINTS[lo]! : BigInt(lo);
    if (hi === 0xffffffff && lo > 0xffffffff - SMALL) return SMALL_NEGATIVE_BIGINTS[TWO32 - lo]!;
    return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo));
  }
  u64big(end: number): bigint {
    const lo = this.u64(end);
    const hi = this.hi;
    if (hi === 0) return lo < SMALL ? SMALL_BIGINTS[lo]! : BigInt(lo);
    return (BigInt(hi) << 32n) | BigInt(lo);
  }
  f32(end: number): number {
    if (this.pos + 4 > end) this.outOfRange(4, end);
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }
  f64(end: number): number {
    if (this.pos + 8 > end) this.outOfRange(8, end);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** A length prefix: the end of the field it announces. */
  len(end: number): number {
    const n = this.u32(end);
    if (this.pos + n > end) this.outOfRange(n, end);
    return this.pos + n;
  }
  bytes(end: number): Uint8Array {
    const stop = this.len(end);
    const b = this.buf.subarray(this.pos, stop);
    this.pos = stop;
    return b;
  }
  /**
   * A string field. Short ASCII strings go through a small table of recent strings by hash (names
   * of ops, attributes and values repeat throughout a model), so a repeat costs no allocation.
   */
  string(end: number): string {
    const stop = this.len(end);
    const buf = this.buf;
    const start = this.pos;
    this.pos = stop;
    const n = stop - start;
    if (n === 0) return "";
    if (n <= 32) {
      let h = 0x811c9dc5;
      let p = start;
      for (; p < stop; p++) {
        const c = buf[p]!;
        if (c >= 128) break;
        h = Math.imul(h ^ c, 0x01000193);
      }
      if (p === stop) {
        const slot = (h ^ (h >>> 15)) & STRING_TABLE_MASK;
        const hit = this.strings[slot];
        if (hit !== undefined && hit.length === n) {
          let q = start;
          let i = 0;
          while (i < n && hit.charCodeAt(i) === buf[q]) {
            i++;
            q++;
          }
          if (i === n) return hit;
        }
        const s = n <= 16 ? asciiShort(buf, start, n) : this.latin1(start, stop);
        this.strings[slot] = s;
        return s;
      }
      return utf8.decode(buf.subarray(start, stop));
    }
    for (let p = start; p < stop; p++)
      if (buf[p]! >= 128) return utf8.decode(buf.subarray(start, stop));
    return this.latin1(start, stop);
  }
  /** Bytes known to be ASCII as a string. */
  private latin1(start: number, stop: number): string {
    const b = this.buf as Latin1;
    return b.latin1Slice !== undefined
      ? b.latin1Slice(start, stop)
      : utf8.decode(b.subarray(start, stop));
  }
  private readonly strings: (string | undefined)[] = new Array(STRING_TABLE_MASK + 1);

  /** Skips a field of the given wire type (groups included, as protobuf readers do). */
  skip(wire: number, end: number, depth: number): void {
    switch (wire) {
      case VARINT:
        this.u64(end);
        return;
      case FIXED64:
        if (this.pos + 8 > end) this.outOfRange(8, end);
        this.pos += 8;
        return;
      case LEN:
        this.pos = this.len(end);
        return;
      case 3: {
        if (depth > MAX_NESTING) throw new WireError("max depth exceeded");
        for (;;) {
          const tag = this.u32(end);
          if (tag >>> 3 === 0) throw new WireError("illegal tag: field number 0");
          if ((tag & 7) === 4) return;
          this.skip(tag & 7, end, depth + 1);
        }
      }
      case FIXED32:
        if (this.pos + 4 > end) this.outOfRange(4, end);
        this.pos += 4;
        return;
      default:
        throw new WireError(`invalid wire type ${wire} at offset ${this.pos}`);
    }
  }

  /** The next tag, or throws on field number 0. */
  tag(end: number): number {
    const t = this.u32(end);
    if (t >>> 3 === 0) throw new WireError("illegal tag: field number 0");
    return t;
  }

  // --- repeated scalars: packed (one length-delimited run) or one value a tag

  packedOr<T>(
    wire: number,
    end: number,
    own: number,
    one: (end: number) => T,
    out: { push(v: T): void },
  ): void {
    if (wire === LEN) {
      const stop = this.len(end);
      while (this.pos < stop) out.push(one.call(this, stop));
    } else if (wire === own) out.push(one.call(this, end));
    else this.skip(wire, end, 0);
  }
}
