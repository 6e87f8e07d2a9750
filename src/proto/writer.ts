// The wire format's primitives for the model encoder (encode.ts): varint sizes, UTF-8 lengths as
// TextEncoder counts them, and a writer into one buffer of known size or into chunks handed to a
// sink, where byte fields of 16 KiB or more pass as views of their buffers (never copied).

export const VARINT = 0;
export const FIXED64 = 1;
export const LEN = 2;
export const FIXED32 = 5;
const BIG = 1 << 14;
const CHUNK = 1 << 20;
const TWO32 = 4294967296;

/** Bytes a varint of a non-negative number below 2^53 (or any negative number) takes. */
export function varintSize(v: number): number {
  if (v < 0) return 10;
  if (v < 128) return 1;
  if (v < 16384) return 2;
  if (v < 2097152) return 3;
  if (v < 268435456) return 4;
  let n = 4;
  v = Math.floor(v / 268435456);
  while (v > 0) {
    n++;
    v = Math.floor(v / 128);
  }
  return n;
}

export function bigVarintSize(v: bigint): number {
  if (v >= 0n && v < 2147483648n) return varintSize(Number(v));
  let x = BigInt.asUintN(64, v);
  let n = 1;
  while (x > 127n) {
    x >>= 7n;
    n++;
  }
  return n;
}

/** Bytes the varints of 32-bit integers take, packed. */
export function varintsSize(values: Int32Array): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += varintSize(values[i]!);
  return s;
}
/** Bytes the varints of 64-bit integers take, packed. */
export function bigVarintsSize(values: BigInt64Array | BigUint64Array): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += bigVarintSize(values[i]!);
  return s;
}

/** UTF-8 length of a string as TextEncoder encodes it (a lone surrogate becomes U+FFFD). */
export function utf8Length(s: string): number {
  const n = s.length;
  for (let i = 0; i < n; i++) if (s.charCodeAt(i) >= 0x80) return utf8LengthSlow(s, i);
  return n;
}
function utf8LengthSlow(s: string, from: number): number {
  let len = from;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) len += 1;
    else if (c < 0x800) len += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        len += 4;
        i++;
      } else len += 3;
    } else len += 3;
  }
  return len;
}

const utf8 = new TextEncoder();

/** Where the bytes go: one buffer of known size, or chunks handed to a sink. */
export class Writer {
  buf: Uint8Array;
  pos = 0;
  private view: DataView;
  constructor(
    size: number,
    private readonly sink?: (chunk: Uint8Array) => void,
  ) {
    this.buf = new Uint8Array(sink ? Math.min(size, CHUNK) : size);
    this.view = new DataView(this.buf.buffer);
  }
  /** Room for n more bytes (n at most CHUNK unless writing one buffer). */
  room(n: number): void {
    // Writing one buffer, its size is exact: a varint's room of 10 may pass its end, never a write.
    if (this.pos + n <= this.buf.length || !this.sink) return;
    this.flush();
    if (n > this.buf.length) {
      this.buf = new Uint8Array(n);
      this.view = new DataView(this.buf.buffer);
    }
  }
  /** Hands what was written to the sink, which must be done with it when it returns: the buffer is written again. */
  flush(): void {
    if (!this.sink || this.pos === 0) return;
    this.sink(this.buf.subarray(0, this.pos));
    this.pos = 0;
  }
  varint(v: number): void {
    this.room(10);
    const buf = this.buf;
    if (v >= 0 && v < 2147483648) {
      while (v > 127) {
        buf[this.pos++] = (v & 127) | 128;
        v >>>= 7;
      }
      buf[this.pos++] = v;
    } else if (v >= 0 && v < 2 ** 53) {
      this.varint64(v >>> 0, Math.floor(v / TWO32));
    } else this.bigVarint(BigInt(Math.trunc(v)));
  }
  bigVarint(v: bigint): void {
    if (v >= 0n && v < 2147483648n) return this.varint(Number(v));
    const x = BigInt.asUintN(64, v);
    this.room(10);
    this.varint64(Number(x & 0xffffffffn), Number(x >> 32n));
  }
  private varint64(lo: number, hi: number): void {
    const buf = this.buf;
    while (hi > 0 || lo > 127) {
      buf[this.pos++] = (lo & 127) | 128;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    buf[this.pos++] = lo;
  }
  tag(field: number, wire: number): void {
    this.room(5);
    let v = (field << 3) | wire;
    while (v > 127) {
      this.buf[this.pos++] = (v & 127) | 128;
      v >>>= 7;
    }
    this.buf[this.pos++] = v;
  }
  f32(v: number): void {
    this.room(4);
    this.view.setFloat32(this.pos, v, true);
    this.pos += 4;
  }
  f64(v: number): void {
    this.room(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }
  /**
   * A string with its length prefix. One pass for an ASCII string shorter than 128 (its length
   * prefix is one byte, its bytes are its char codes); others are measured, then written.
   */
  str(s: string): void {
    const n = s.length;
    if (n < 128) {
      // Room for an ASCII string; any other needs at least as much, so this never over-asks.
      this.room(n + 1);
      const buf = this.buf;
      const at = this.pos + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[at + i] = c;
      }
      if (i === n) {
        buf[at - 1] = n;
        this.pos = at + n;
        return;
      }
    }
    this.string(s, utf8Length(s));
  }
  /** A string of known UTF-8 length. */
  string(s: string, length: number): void {
    this.varint(length);
    if (this.sink && length > this.buf.length) {
      this.bytes(utf8.encode(s));
      return;
    }
    this.room(length);
    const buf = this.buf;
    if (length === s.length) {
      let pos = this.pos;
      for (let i = 0; i < length; i++) buf[pos++] = s.charCodeAt(i);
      this.pos = pos;
    } else {
      this.pos += utf8.encodeInto(s, buf.subarray(this.pos, this.pos + length)).written;
    }
  }
  // Packed repeated fields: tag, length, values.
  packedF32(field: number, values: Float32Array): void {
    this.tag(field, LEN);
    this.varint(4 * values.length);
    for (let i = 0; i < values.length; i++) this.f32(values[i]!);
  }
  packedF64(field: number, values: Float64Array): void {
    this.tag(field, LEN);
    this.varint(8 * values.length);
    for (let i = 0; i < values.length; i++) this.f64(values[i]!);
  }
  packedVarints(field: number, values: Int32Array): void {
    this.tag(field, LEN);
    this.varint(varintsSize(values));
    for (let i = 0; i < values.length; i++) this.varint(values[i]!);
  }
  packedBigVarints(field: number, values: BigInt64Array | BigUint64Array): void {
    this.tag(field, LEN);
    this.varint(bigVarintsSize(values));
    for (let i = 0; i < values.length; i++) this.bigVarint(values[i]!);
  }
  bytes(b: Uint8Array): void {
    if (this.sink && b.length >= BIG) {
      this.flush();
      this.sink(b);
      return;
    }
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
}
