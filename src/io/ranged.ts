// A large model file read in ranges, not whole: one walk over its wire format through a window
// of a few MiB copies every field into a compact buffer except the raw data of large tensors,
// which stays in the file. Each one left behind is a hole: the compact buffer holds, in its
// tensor's place, a field no TensorProto has (HOLE_FIELD, the hole's index), and the decoder
// (decode.ts) makes that tensor's data a range of the file. Only messages long enough to hold a
// hole are walked field by field (the model, its graphs, their initializers and nodes'
// attributes); everything else is copied as it is, so the walk costs a read of the bytes kept.
// No file system here: the page reads a Blob the same way.

import { OnnxError } from "../errors.js";
import type { ByteRange, ByteSource } from "../ir/tensor.js";
import { MAX_NESTING } from "../proto/wire.js";
import { LEN, VARINT, Writer } from "../proto/writer.js";

/**
 * Model files from this size on are read in ranges: the raw data of their large tensors stays in
 * the file until something needs it. Smaller files are read whole, which is faster, and their
 * large raw data is a view of the file's buffer.
 */
export const RANGED_FROM = 128 << 20;
/** In a file read in ranges, tensors with this much raw data or more stay in the file. */
export const LAZY_FROM = 64 << 10;

/**
 * The field that stands for a hole in a compact TensorProto: a number no TensorProto field has
 * (they end at 16), small enough for the writer's tags (below 2^28).
 */
export const HOLE_FIELD = 262143;

/** Messages walked for holes, and for each, its fields that hold such messages. */
const enum M {
  Model,
  Graph,
  Node,
  Attribute,
  Tensor,
  Sparse,
  Function,
}
const CHILDREN: readonly (ReadonlyMap<number, M> | undefined)[] = [
  // ModelProto: graph, functions (training info is kept as decoded by protobufjs: copied whole).
  new Map([
    [7, M.Graph],
    [25, M.Function],
  ]),
  // GraphProto: node, initializer, sparse_initializer.
  new Map([
    [1, M.Node],
    [5, M.Tensor],
    [15, M.Sparse],
  ]),
  // NodeProto: attribute.
  new Map([[5, M.Attribute]]),
  // AttributeProto: t, g, tensors, graphs, sparse_tensor, sparse_tensors.
  new Map([
    [5, M.Tensor],
    [6, M.Graph],
    [10, M.Tensor],
    [11, M.Graph],
    [22, M.Sparse],
    [23, M.Sparse],
  ]),
  undefined,
  // SparseTensorProto: values, indices.
  new Map([
    [1, M.Tensor],
    [2, M.Tensor],
  ]),
  // FunctionProto: node.
  new Map([[7, M.Node]]),
];
const RAW_DATA = 9;

export interface CompactModel {
  /** The model's bytes without the holes' data: decode with `holes`. */
  bytes: Uint8Array;
  /** The ranges left in the source, by index. */
  holes: ByteRange[];
}

/**
 * The model in `source` without the raw data of tensors of `minHole` bytes or more, which stay
 * in the source as ranges. Truncated or corrupt framing is refused with one line naming `where`.
 */
export function compactModel(source: ByteSource, minHole: number, where?: string): CompactModel {
  const walk = new Walk(source, minHole, where);
  walk.message(M.Model, 0, source.size, 0);
  return { bytes: walk.w.concat(), holes: walk.holes };
}

/**
 * The window over the source: the bytes of [start, start + filled) are in `buf`. A read takes
 * at least READ bytes (not the whole window: after a hole the walk may need only a tensor's
 * header before the next hole); a field of up to WINDOW bytes is copied through it.
 */
const READ = 64 << 10;
const WINDOW = 4 << 20;

class Walk {
  readonly w = new Writer(1 << 16, undefined, false);
  readonly holes: ByteRange[] = [];
  private buf: Uint8Array = new Uint8Array(0);
  private start = 0;
  private filled = 0;

  constructor(
    private readonly source: ByteSource,
    private readonly minHole: number,
    private readonly where: string | undefined,
  ) {}

  private fail(message: string): never {
    throw new OnnxError("E_DECODE", `not a valid ModelProto: ${message}`, this.where);
  }
  private truncated(at: number, need: number, end: number): never {
    this.fail(
      `truncated or corrupt (a field at byte ${at} needs ${need} more bytes, the data has ${end})`,
    );
  }

  /** Makes [pos, pos + n) readable in the window (n at most WINDOW). */
  private have(pos: number, n: number): void {
    if (pos >= this.start && pos + n <= this.start + this.filled) return;
    const bytes = this.source.read(pos, Math.min(Math.max(n, READ), this.source.size - pos));
    this.buf = bytes;
    this.start = pos;
    this.filled = bytes.length;
  }

  /** A varint at pos (below `end`): its value (exact below 2^53) and the position after it. */
  private varint(pos: number, end: number): [number, number] {
    let v = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (pos >= end) this.truncated(pos, 1, end);
      this.have(pos, 1);
      const b = this.buf[pos - this.start]!;
      pos++;
      v += (b & 127) * scale;
      if (b < 128) return [v, pos];
      scale *= 128;
    }
    this.fail(`invalid varint at byte ${pos}`);
  }

  /** Copies [from, to) of the source into the output as it is. */
  private copy(from: number, to: number): void {
    const n = to - from;
    if (n <= WINDOW) {
      this.have(from, n);
      this.w.bytes(this.buf.subarray(from - this.start, to - this.start));
    } else this.w.bytes(this.source.read(from, n));
  }

  /** The fields of a message of type `type` at [start, end), walked where a hole may be. */
  message(type: M, start: number, end: number, depth: number): void {
    if (depth > MAX_NESTING)
      this.fail(`messages nest more than ${MAX_NESTING} levels deep (subgraphs nested too deeply)`);
    const children = CHILDREN[type];
    let pos = start;
    while (pos < end) {
      const at = pos;
      const [tag, afterTag] = this.varint(pos, end);
      const field = Math.floor(tag / 8);
      const wire = tag % 8;
      if (field === 0) this.fail(`illegal tag: field number 0 at byte ${at}`);
      pos = this.skip(wire, afterTag, end, at, 0);
      // A hole's own field number in a file means nothing (no TensorProto has it): dropped.
      if (type === M.Tensor && field === HOLE_FIELD) continue;
      if (wire === LEN) {
        const [len, content] = this.varint(afterTag, end);
        if (len >= this.minHole) {
          const child = children?.get(field);
          if (child !== undefined) {
            this.w.open(field);
            this.message(child, content, pos, depth + 1);
            this.w.close();
            continue;
          }
          if (type === M.Tensor && field === RAW_DATA) {
            this.w.tag(HOLE_FIELD, VARINT);
            this.w.varint(this.holes.length);
            this.holes.push({ source: this.source, offset: content, length: len });
            continue;
          }
        }
      }
      this.copy(at, pos);
    }
  }

  /** The end of a field's value of wire type `wire` starting at pos (groups skipped whole). */
  private skip(wire: number, pos: number, end: number, at: number, depth: number): number {
    switch (wire) {
      case VARINT:
        return this.varint(pos, end)[1];
      case 1:
        if (pos + 8 > end) this.truncated(at, 8, end);
        return pos + 8;
      case LEN: {
        const [len, content] = this.varint(pos, end);
        if (content + len > end) this.truncated(at, len, end);
        return content + len;
      }
      case 3: {
        if (depth > MAX_NESTING)
          this.fail(`messages nest more than ${MAX_NESTING} levels deep (groups)`);
        for (;;) {
          const [tag, next] = this.varint(pos, end);
          if (tag % 8 === 4) return next;
          pos = this.skip(tag % 8, next, end, pos, depth + 1);
        }
      }
      case 5:
        if (pos + 4 > end) this.truncated(at, 4, end);
        return pos + 4;
      default:
        this.fail(`invalid wire type ${wire} at byte ${at}`);
    }
  }
}
