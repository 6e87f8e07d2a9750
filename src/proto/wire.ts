// The ONNX protobuf schema (proto/onnx.proto in this repo), decoding with protobufjs, and an
// encoder of our own that streams: large byte fields are emitted as views of their buffers,
// never copied into one big output buffer, so saving a 200 MB model needs no second 200 MB.

import type protobuf from "protobufjs";
import type Long from "long";
import { OnnxError } from "../errors.js";
// proto/onnx.proto's text: read from disk in Node, bundled as data in the web build.
import { onnxProtoText } from "./proto-text.node.js";
// protobufjs, loaded on first use in Node (most models never need it).
import { protobufjs } from "./protobuf.node.js";
import {
  bigVarintSize,
  FIXED32,
  FIXED64,
  LEN,
  VARINT,
  varintSize as numVarintSize,
  Writer,
} from "./writer.js";

let rootCache: protobuf.Root | undefined;
/** How deep messages may nest: protoc's default recursion limit (protobufjs's too). */
export const MAX_NESTING = 100;

export function onnxRoot(): protobuf.Root {
  if (!rootCache) {
    const pb = protobufjs();
    // Nesting deeper than this tool's own reader takes is refused alike.
    (pb.Reader as unknown as { recursionLimit?: number }).recursionLimit = MAX_NESTING;
    rootCache = pb.parse(onnxProtoText(), { keepCase: true }).root;
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

export function describeDecodeError(e: unknown, typeName: string, size: number): string {
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

const utf8 = new TextEncoder();

function varintSize(v: number | bigint): number {
  return typeof v === "bigint" ? bigVarintSize(v) : numVarintSize(v);
}

function varint(w: Writer, v: bigint | number): void {
  if (typeof v === "bigint") w.bigVarint(v);
  else w.varint(v);
}

function toBig(v: unknown): bigint | number {
  if (typeof v === "bigint" || typeof v === "number") return v;
  if ((protobufjs().util.Long as unknown as typeof Long).isLong(v))
    return BigInt((v as Long).toString());
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
  double: FIXED64,
  float: FIXED32,
  int32: VARINT,
  int64: VARINT,
  uint32: VARINT,
  uint64: VARINT,
  bool: VARINT,
};

interface Plan {
  size: number;
  /** Encoded strings, and sizes of nested messages, in the order encode() meets them. */
  sub: Map<object, Plan>;
}

/**
 * Encodes a message object (snake_case fields as in the .proto; int64 as bigint, number or Long;
 * bytes as Uint8Array) into the writer. Two passes: sizes first (memoised per nested object),
 * then bytes.
 */
export class StreamEncoder {
  private sizes = new WeakMap<object, number>();
  private strings = new Map<string, Uint8Array>();

  /**
   * Encodes the message into chunks handed to `sink` in order (each valid until the sink returns),
   * or into one buffer, returned, without a sink.
   */
  encode(type: protobuf.Type, msg: Msg, sink?: (chunk: Uint8Array) => void): Uint8Array {
    const w = new Writer(this.size(type, msg), sink);
    this.write(type, msg, w);
    w.flush();
    return w.buf.subarray(0, w.pos);
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
    if (f.resolvedType instanceof protobufjs().Enum) return varintSize(toBig(v));
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
        if (f.resolvedType instanceof protobufjs().Type) {
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
      } else if (f.resolvedType instanceof protobufjs().Type) {
        const s = this.size(f.resolvedType, v, depth + 1);
        total += tagSize + varintSize(s) + s;
      } else {
        total += tagSize + this.scalarSize(f, v);
      }
    }
    this.sizes.set(msg, total);
    return total;
  }

  private writeScalar(f: protobuf.Field, v: any, w: Writer): void {
    if (f.resolvedType instanceof protobufjs().Enum) return varint(w, toBig(v));
    switch (f.type) {
      case "double":
        return w.f64(v);
      case "float":
        return w.f32(v);
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
        return varint(w, toBig(v));
    }
  }

  private wireOf(f: protobuf.Field): number {
    if (f.resolvedType instanceof protobufjs().Type) return LEN;
    if (f.resolvedType instanceof protobufjs().Enum) return VARINT;
    return SCALAR_WIRE[f.type] ?? LEN;
  }

  private write(type: protobuf.Type, msg: Msg, w: Writer): void {
    for (const f of fieldsById(type)) {
      const v = own(msg, f.name);
      if (v === undefined) continue;
      if (f.repeated) {
        if (!v.length) continue;
        if (f.resolvedType instanceof protobufjs().Type) {
          for (const item of v) {
            w.tag(f.id, LEN);
            w.varint(this.size(f.resolvedType, item));
            this.write(f.resolvedType, item, w);
          }
        } else if (f.packed && f.type !== "string" && f.type !== "bytes") {
          let s = 0;
          for (const item of v) s += this.scalarSize(f, item);
          w.tag(f.id, LEN);
          w.varint(s);
          for (const item of v) this.writeScalar(f, item, w);
        } else {
          for (const item of v) {
            w.tag(f.id, this.wireOf(f));
            this.writeScalar(f, item, w);
          }
        }
      } else if (f.resolvedType instanceof protobufjs().Type) {
        w.tag(f.id, LEN);
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
  return new StreamEncoder().encode(messageType(typeName), msg);
}
