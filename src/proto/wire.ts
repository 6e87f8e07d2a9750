// The ONNX protobuf schema (proto/onnx.proto in this repo), decoding with protobufjs, and an
// encoder of our own that streams: large byte fields are emitted as views of their buffers,
// never copied into one big output buffer, so saving a 200 MB model needs no second 200 MB.

import protobuf from "protobufjs";
import Long from "long";
import { OnnxError } from "../errors.js";
// proto/onnx.proto's text: read from disk in Node, bundled as data in the web build.
import { onnxProtoText } from "./proto-text.node.js";

protobuf.util.Long = Long;
protobuf.configure();

let rootCache: protobuf.Root | undefined;
export function onnxRoot(): protobuf.Root {
  if (!rootCache) {
    rootCache = protobuf.parse(onnxProtoText(), { keepCase: true }).root;
    rootCache.resolveAll();
  }
  return rootCache;
}

export function messageType(name: string): protobuf.Type {
  return onnxRoot().lookupType(`onnx.${name}`);
}

/** A decoded message: snake_case fields; int64 as Long; bytes as views of the input. */
export type Msg = Record<string, any>;

export function has(m: Msg, field: string): boolean {
  return (
    Object.prototype.hasOwnProperty.call(m, field) && m[field] !== null && m[field] !== undefined
  );
}

/** Decodes a message, turning protobufjs's failures into one clear line. */
export function decodeMessage(typeName: string, bytes: Uint8Array, where?: string): Msg {
  const type = messageType(typeName);
  try {
    return type.decode(bytes) as unknown as Msg;
  } catch (e) {
    throw new OnnxError("E_DECODE", describeDecodeError(e, typeName, bytes.length), where);
  }
}

function describeDecodeError(e: unknown, typeName: string, size: number): string {
  const msg = e instanceof Error ? e.message : String(e);
  let m: RegExpMatchArray | null;
  if ((m = msg.match(/index out of range: (\d+) \+ (\d+) > (\d+)/)))
    return `not a valid ${typeName}: truncated or corrupt (a field at byte ${m[1]} needs ${m[2]} more bytes, the data has ${m[3]})`;
  if ((m = msg.match(/invalid wire type (\d+) at offset (\d+)/)))
    return `not a valid ${typeName}: invalid wire type ${m[1]} at byte ${m[2]}`;
  if (/index out of range/.test(msg))
    return `not a valid ${typeName}: truncated or corrupt (a field runs past the end of the data)`;
  if (msg === "max depth exceeded")
    return `not a valid ${typeName}: messages nest more than ${MAX_NESTING} levels deep (subgraphs nested too deeply)`;
  if (e instanceof RangeError && /call stack/i.test(msg))
    return `not a valid ${typeName}: nesting too deep`;
  if (/invalid varint|varint/i.test(msg))
    return `not a valid ${typeName}: invalid varint (${size} bytes)`;
  return `not a valid ${typeName}: ${msg}`;
}

// ---------------------------------------------------------------------------------------------
// Encoding

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;

const BIG_CHUNK = 1 << 14;

/** Collects encoded bytes; byte fields of BIG_CHUNK or more are passed on as views. */
export class ChunkWriter {
  private buf = new Uint8Array(1 << 16);
  private pos = 0;
  private readonly view = new DataView(this.buf.buffer);
  constructor(private readonly sink: (chunk: Uint8Array) => void) {}

  private ensure(n: number): void {
    if (this.pos + n > this.buf.length) this.flush();
  }
  flush(): void {
    if (this.pos > 0) {
      this.sink(this.buf.slice(0, this.pos));
      this.pos = 0;
    }
  }
  varint(v: number | bigint): void {
    this.ensure(10);
    let x = typeof v === "bigint" ? BigInt.asUintN(64, v) : v;
    if (typeof x === "number") {
      if (x >= 0 && x < 2 ** 31) {
        while (x > 127) {
          this.buf[this.pos++] = (x & 127) | 128;
          x >>>= 7;
        }
        this.buf[this.pos++] = x;
        return;
      }
      x = BigInt.asUintN(64, BigInt(Math.trunc(x)));
    }
    while (x > 127n) {
      this.buf[this.pos++] = Number(x & 127n) | 128;
      x >>= 7n;
    }
    this.buf[this.pos++] = Number(x);
  }
  tag(id: number, wire: number): void {
    this.varint(id * 8 + wire);
  }
  fixed32float(v: number): void {
    this.ensure(4);
    this.view.setFloat32(this.pos, v, true);
    this.pos += 4;
  }
  fixed64double(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }
  bytes(b: Uint8Array): void {
    if (b.length >= BIG_CHUNK) {
      this.flush();
      this.sink(b);
      return;
    }
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
}

const utf8 = new TextEncoder();

function varintSize(v: number | bigint): number {
  if (typeof v === "number") {
    if (v >= 0 && v < 2 ** 31) {
      let n = 1;
      while (v > 127) {
        v >>>= 7;
        n++;
      }
      return n;
    }
    v = BigInt(Math.trunc(v));
  }
  let x = BigInt.asUintN(64, v);
  let n = 1;
  while (x > 127n) {
    x >>= 7n;
    n++;
  }
  return n;
}

function toBig(v: unknown): bigint | number {
  if (typeof v === "bigint" || typeof v === "number") return v;
  if (Long.isLong(v)) return BigInt((v as Long).toString());
  if (typeof v === "string") return BigInt(v);
  if (typeof v === "boolean") return v ? 1 : 0;
  throw new Error(`not an integer: ${String(v)}`);
}

const sortedFields = new WeakMap<protobuf.Type, protobuf.Field[]>();
/** Fields in field-number order, as protobuf's own serializers write them (byte-identical output). */
function fieldsById(type: protobuf.Type): protobuf.Field[] {
  let fields = sortedFields.get(type);
  if (!fields) sortedFields.set(type, (fields = [...type.fieldsArray].sort((a, b) => a.id - b.id)));
  return fields;
}

/** A field's value if it is set on the message itself (decoded messages inherit defaults). */
function own(msg: Msg, name: string): any {
  if (!Object.prototype.hasOwnProperty.call(msg, name)) return undefined;
  const v = msg[name];
  return v === null ? undefined : v;
}

const SCALAR_WIRE: Record<string, number> = {
  double: WIRE_FIXED64,
  float: WIRE_FIXED32,
  int32: WIRE_VARINT,
  int64: WIRE_VARINT,
  uint32: WIRE_VARINT,
  uint64: WIRE_VARINT,
  bool: WIRE_VARINT,
};

interface Plan {
  size: number;
  /** Encoded strings, and sizes of nested messages, in the order encode() meets them. */
  sub: Map<object, Plan>;
}

/** How deep messages may nest: protobufjs's reader limit (protoc's default recursion limit). */
export const MAX_NESTING: number =
  (protobuf.Reader as unknown as { recursionLimit?: number }).recursionLimit ?? 100;

/**
 * Encodes a message object (snake_case fields as in the .proto; int64 as bigint, number or Long;
 * bytes as Uint8Array) into the writer. Two passes: sizes first (memoised per nested object),
 * then bytes.
 */
export class StreamEncoder {
  private sizes = new WeakMap<object, number>();
  private strings = new Map<string, Uint8Array>();

  encode(type: protobuf.Type, msg: Msg, w: ChunkWriter): void {
    this.size(type, msg);
    this.write(type, msg, w);
    w.flush();
  }

  private str(s: string): Uint8Array {
    let b = this.strings.get(s);
    if (!b) {
      b = utf8.encode(s);
      if (this.strings.size < 100000) this.strings.set(s, b);
    }
    return b;
  }

  private scalarSize(f: protobuf.Field, v: any): number {
    if (f.resolvedType instanceof protobuf.Enum) return varintSize(toBig(v));
    switch (f.type) {
      case "double":
        return 8;
      case "float":
        return 4;
      case "bool":
        return 1;
      case "string": {
        const b = this.str(v);
        return varintSize(b.length) + b.length;
      }
      case "bytes":
        return varintSize(v.length) + v.length;
      default:
        return varintSize(toBig(v));
    }
  }

  size(type: protobuf.Type, msg: Msg, depth = 0): number {
    const cached = this.sizes.get(msg);
    if (cached !== undefined) return cached;
    if (depth > MAX_NESTING)
      throw new OnnxError(
        "E_UNSUPPORTED",
        `cannot encode: messages nest more than ${MAX_NESTING} levels deep (subgraphs nested too deeply); protobuf readers, this tool's included, would refuse the file`,
      );
    let total = 0;
    for (const f of fieldsById(type)) {
      const v = own(msg, f.name);
      if (v === undefined) continue;
      const tagSize = varintSize(f.id * 8);
      if (f.repeated) {
        if (!v.length) continue;
        if (f.resolvedType instanceof protobuf.Type) {
          for (const item of v) {
            const s = this.size(f.resolvedType, item, depth + 1);
            total += tagSize + varintSize(s) + s;
          }
        } else if (f.packed && f.type !== "string" && f.type !== "bytes") {
          let s = 0;
          for (const item of v) s += this.scalarSize(f, item);
          total += tagSize + varintSize(s) + s;
        } else {
          for (const item of v) total += tagSize + this.scalarSize(f, item);
        }
      } else if (f.resolvedType instanceof protobuf.Type) {
        const s = this.size(f.resolvedType, v, depth + 1);
        total += tagSize + varintSize(s) + s;
      } else {
        total += tagSize + this.scalarSize(f, v);
      }
    }
    this.sizes.set(msg, total);
    return total;
  }

  private writeScalar(f: protobuf.Field, v: any, w: ChunkWriter): void {
    if (f.resolvedType instanceof protobuf.Enum) return w.varint(toBig(v));
    switch (f.type) {
      case "double":
        return w.fixed64double(v);
      case "float":
        return w.fixed32float(v);
      case "bool":
        return w.varint(v ? 1 : 0);
      case "string": {
        const b = this.str(v);
        w.varint(b.length);
        return w.bytes(b);
      }
      case "bytes":
        w.varint(v.length);
        return w.bytes(v);
      default:
        return w.varint(toBig(v));
    }
  }

  private wireOf(f: protobuf.Field): number {
    if (f.resolvedType instanceof protobuf.Type) return WIRE_LEN;
    if (f.resolvedType instanceof protobuf.Enum) return WIRE_VARINT;
    return SCALAR_WIRE[f.type] ?? WIRE_LEN;
  }

  private write(type: protobuf.Type, msg: Msg, w: ChunkWriter): void {
    for (const f of fieldsById(type)) {
      const v = own(msg, f.name);
      if (v === undefined) continue;
      if (f.repeated) {
        if (!v.length) continue;
        if (f.resolvedType instanceof protobuf.Type) {
          for (const item of v) {
            w.tag(f.id, WIRE_LEN);
            w.varint(this.size(f.resolvedType, item));
            this.write(f.resolvedType, item, w);
          }
        } else if (f.packed && f.type !== "string" && f.type !== "bytes") {
          let s = 0;
          for (const item of v) s += this.scalarSize(f, item);
          w.tag(f.id, WIRE_LEN);
          w.varint(s);
          for (const item of v) this.writeScalar(f, item, w);
        } else {
          for (const item of v) {
            w.tag(f.id, this.wireOf(f));
            this.writeScalar(f, item, w);
          }
        }
      } else if (f.resolvedType instanceof protobuf.Type) {
        w.tag(f.id, WIRE_LEN);
        w.varint(this.size(f.resolvedType, v));
        this.write(f.resolvedType, v, w);
      } else {
        w.tag(f.id, this.wireOf(f));
        this.writeScalar(f, v, w);
      }
    }
  }
}

/** Encodes a message into one buffer (fine for small messages; models use the streaming path). */
export function encodeMessage(typeName: string, msg: Msg): Uint8Array {
  const chunks: Uint8Array[] = [];
  new StreamEncoder().encode(messageType(typeName), msg, new ChunkWriter((c) => chunks.push(c)));
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}
