// The wire format's primitives for the model encoder (encode.ts): varint sizes, UTF-8 lengths as
// TextEncoder counts them, and a writer that builds its output as a list of pieces: segments it
// writes into, and byte fields of 16 KiB or more as views of their buffers (never copied).
//
// Nested messages are written in one walk (open, fields, close): open reserves one byte for the
// length, close writes it back. Most messages (nodes, attributes, value infos) are shorter than
// 128 bytes, so the byte is the whole varint. A longer message in the segment being written moves
// its bytes up (copyWithin, a few hundred bytes at most for a node) to make room for the longer
// varint; one that began in an earlier piece (a graph, a tensor holding a view) gets its varint
// spliced in when the pieces are handed out. Measured on the 100k-node chain, this single walk
// saves in about half the time of the previous measure-then-write walks (the measure walk cost
// as much as the writing: the same field logic twice, plus a size array to fill and read).

export const VARINT = 0;
export const FIXED64 = 1;
export const LEN = 2;
export const FIXED32 = 5;
const BIG = 1 << 14;
/** Segments grow from FIRST to CHUNK bytes (a small model allocates little, a large one few). */
const FIRST = 1 << 12;
const CHUNK = 1 << 20;
/** A segment left with less room than this after a view is not written on. */
const MIN_REST = 1 << 10;
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
  // One conversion and number compares: BigInt compares are slow in V8. Number(v) lies in
  // [0, 2^31) exactly when v does (integers that small convert exactly).
  const small = Number(v);
  if (small >= 0 && small < 2147483648) return varintSize(small);
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

/**
 * A range of bytes left where they are (a file, a Blob): written into the output by whoever
 * writes the pieces, read in chunks, never as a whole. The writer knows only its length.
 */
export interface RangePiece {
  readonly source: { read(offset: number, length: number): Uint8Array; readonly name: string };
  readonly offset: number;
  readonly length: number;
}

/** A piece of output: bytes, or a range to copy. */
export type Piece = Uint8Array | RangePiece;

/** Whether a piece is a range to copy rather than bytes. */
export function isRangePiece(p: Piece): p is RangePiece {
  return !(p instanceof Uint8Array);
}

/**
 * Where the bytes go: segments and views, handed out in order by `pieces()` (or to a sink by
 * `flush()`), with the length of each nested message written back when it closes.
 */
export class Writer {
  /** The segment being written (a fresh buffer, or the rest of one after a view). */
  buf: Uint8Array;
  pos = 0;
  private view: DataView;
  /** Bytes before `buf` in the output (sealed pieces, and varints to splice into them). */
  private done = 0;
  private readonly out: Piece[] = [];
  /** Varints to splice in: piece index, offset of the reserved byte, value; three numbers each. */
  private readonly splices: number[] = [];
  /** Open messages: the piece index of the reserved byte's segment, its offset, and the output offset of the message's first byte. */
  private openSeg = new Int32Array(64);
  private openAt = new Int32Array(64);
  private openStart = new Float64Array(64);
  private depth = 0;
  private next: number;

  /**
   * `size`: the first segment's size (a message of known size written without views is then all
   * in it, `buf.subarray(0, pos)`); `sink`: where flush() hands the pieces; `views`: whether
   * large byte fields are handed out as views (else copied).
   */
  constructor(
    size = FIRST,
    private readonly sink?: (chunk: Uint8Array) => void,
    private readonly views = sink !== undefined,
  ) {
    // A varint's room of 10 may pass a known size's end, never a write: a few bytes to spare.
    this.buf = new Uint8Array(size + 16);
    this.view = new DataView(this.buf.buffer);
    this.next = Math.min(Math.max(2 * size, FIRST), CHUNK);
  }

  /** Room for n more bytes in the segment: when there is not, it is sealed and a new one begun. */
  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.seal();
    this.fresh(n);
  }
  private fresh(n: number): void {
    const size = Math.max(this.next, n);
    this.next = Math.min(2 * this.next, CHUNK);
    this.buf = new Uint8Array(size);
    this.view = new DataView(this.buf.buffer);
  }
  /** Ends the segment at pos; what is left of its buffer becomes the next segment. */
  private seal(): void {
    if (this.pos === 0) return;
    this.out.push(this.buf.subarray(0, this.pos));
    this.done += this.pos;
    this.buf = this.buf.subarray(this.pos);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.pos = 0;
  }

  /** Opens a nested message: its tag and one byte reserved for its length. */
  open(field: number): void {
    this.room(6);
    this.tag(field, LEN);
    const d = this.depth++;
    if (d === this.openAt.length) this.growStack();
    this.openSeg[d] = this.out.length;
    this.openAt[d] = this.pos;
    this.openStart[d] = this.done + this.pos + 1;
    this.buf[this.pos++] = 0;
  }
  /** Closes the message opened last: writes its length into the reserved byte, or more bytes. */
  close(): void {
    const d = --this.depth;
    const len = this.done + this.pos - this.openStart[d]!;
    const seg = this.openSeg[d]!;
    const at = this.openAt[d]!;
    const here = seg === this.out.length;
    if (len < 128) {
      (here ? this.buf : (this.out[seg] as Uint8Array))[at] = len;
      return;
    }
    const extra = varintSize(len) - 1;
    if (here && this.pos + extra <= this.buf.length) {
      const buf = this.buf;
      buf.copyWithin(at + 1 + extra, at + 1, this.pos);
      this.pos += extra;
      let v = len;
      let p = at;
      while (v > 127) {
        buf[p++] = (v & 127) | 128;
        v = Math.floor(v / 128);
      }
      buf[p] = v;
      return;
    }
    // Spliced in later; the segment ends here so that no later move shifts the reserved byte.
    if (here) this.seal();
    this.splices.push(seg, at, len);
    this.done += extra;
  }
  private growStack(): void {
    const n = 2 * this.openAt.length;
    const seg = new Int32Array(n);
    const at = new Int32Array(n);
    const start = new Float64Array(n);
    seg.set(this.openSeg);
    at.set(this.openAt);
    start.set(this.openStart);
    this.openSeg = seg;
    this.openAt = at;
    this.openStart = start;
  }

  /** Where the writer is, for since(). */
  mark(): number {
    return this.done + this.pos;
  }
  /**
   * A copy of the bytes written since `mark`, when they all lie in the segment being written
   * (not when a segment ended or a varint waits to be spliced in between).
   */
  since(mark: number): Uint8Array | undefined {
    const from = mark - this.done;
    return from >= 0 ? this.buf.slice(from, this.pos) : undefined;
  }
  /** Bytes copied in as they are (a field encoded before). */
  raw(b: Uint8Array): void {
    const n = b.length;
    this.room(n);
    const buf = this.buf;
    const at = this.pos;
    for (let i = 0; i < n; i++) buf[at + i] = b[i]!;
    this.pos = at + n;
  }

  /** The output in order (the writer is then empty); every message must be closed. */
  pieces(): Piece[] {
    if (this.depth !== 0) throw new Error("writer: a nested message was left open");
    this.seal();
    const out = this.out.splice(0);
    const sp = this.splices.splice(0);
    this.done = 0;
    if (sp.length === 0) return out;
    // Splices by piece, in offset order; each replaces the reserved byte with the whole varint.
    const order: number[] = [];
    for (let i = 0; i < sp.length; i += 3) order.push(i);
    order.sort((a, b) => sp[a]! - sp[b]! || sp[a + 1]! - sp[b + 1]!);
    const res: Piece[] = [];
    let k = 0;
    for (let i = 0; i < out.length; i++) {
      const piece = out[i]!;
      if (isRangePiece(piece)) {
        res.push(piece);
        continue;
      }
      let from = 0;
      for (; k < order.length && sp[order[k]!]! === i; k++) {
        const j = order[k]!;
        const at = sp[j + 1]!;
        if (at > from) res.push(piece.subarray(from, at));
        res.push(varintBytes(sp[j + 2]!));
        from = at + 1;
      }
      res.push(from ? piece.subarray(from) : piece);
    }
    return res.filter((p) => p.length > 0);
  }
  /** The output in one buffer (ranges read into it). */
  concat(): Uint8Array {
    const parts = this.pieces();
    if (parts.length === 1 && !isRangePiece(parts[0]!)) return parts[0];
    let n = 0;
    for (const p of parts) n += p.length;
    const all = new Uint8Array(n);
    n = 0;
    for (const p of parts) {
      all.set(isRangePiece(p) ? p.source.read(p.offset, p.length) : p, n);
      n += p.length;
    }
    return all;
  }
  /** Hands the output so far to the sink (pieces stay valid: they are never written again). */
  flush(): void {
    if (!this.sink) return;
    for (const p of this.pieces())
      this.sink(isRangePiece(p) ? p.source.read(p.offset, p.length) : p);
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
    const n = Number(v);
    if (n >= 0 && n < 2147483648) return this.varint(n);
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
   * A string field: tag, length, bytes. One pass for the common case, an ASCII string shorter
   * than 128 in a field below 16 (tag and length one byte each, its bytes its char codes).
   */
  strField(field: number, s: string): void {
    const n = s.length;
    if (n < 128 && field < 16) {
      this.room(n + 2);
      const buf = this.buf;
      const at = this.pos + 2;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[at + i] = c;
      }
      if (i === n) {
        buf[at - 2] = (field << 3) | LEN;
        buf[at - 1] = n;
        this.pos = at + n;
        return;
      }
    }
    this.tag(field, LEN);
    // A long string (the origin table expand writes can hold megabytes) is encoded natively at
    // once and handed out like other bytes: measuring and copying it char by char took 30 ms a
    // megabyte.
    if (n >= BIG) {
      const b = utf8.encode(s);
      this.varint(b.length);
      this.bytes(b);
      return;
    }
    const length = utf8Length(s);
    this.varint(length);
    this.room(length);
    const buf = this.buf;
    if (length === n) {
      let pos = this.pos;
      for (let i = 0; i < n; i++) buf[pos++] = s.charCodeAt(i);
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
  /** A range of a source, as a piece of its own (its bytes are read when the pieces are written). */
  range(r: RangePiece): void {
    this.seal();
    this.out.push(r);
    this.done += r.length;
    if (this.buf.length < MIN_REST) this.fresh(0);
  }

  /** Bytes: copied, or from 16 KiB on handed out as a view of `b` (which must not change until written). */
  bytes(b: Uint8Array): void {
    if (b.length >= BIG && this.views) {
      this.seal();
      this.out.push(b);
      this.done += b.length;
      if (this.buf.length < MIN_REST) this.fresh(0);
      return;
    }
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
}

/** A length's varint as bytes of its own (for splicing between pieces). */
function varintBytes(v: number): Uint8Array {
  const out = new Uint8Array(varintSize(v));
  let p = 0;
  while (v > 127) {
    out[p++] = (v & 127) | 128;
    v = Math.floor(v / 128);
  }
  out[p] = v;
  return out;
}
