// IR → model bytes, with no intermediate message objects. One walk of the IR writes every field;
// a nested message's length is written back when it closes (proto/writer.ts: one byte reserved,
// moved up in the rare message of 128 bytes or more). Strings are written in place (ASCII byte
// by byte, the rest with encodeInto), never encoded into buffers of their own. Fields go out in
// field-number order and only when the IR holds them, as protobuf's own serializers write them,
// so decoding a file and encoding it again gives the same bytes. The output is a list of pieces:
// segments of up to 1 MiB, and byte fields of 16 KiB or more (raw tensor data) as views, so
// saving a large model builds no second copy of its data.

import { OnnxError } from "../errors.js";
import { Tensor } from "../ir/tensor.js";
import type * as IR from "../ir/types.js";
import { encodeMessage, MAX_NESTING, type Msg } from "../proto/wire.js";
import { ATTR_TYPE_ID } from "./attr-types.js";
import { explicitEmptyDomain, explicitEmptyName, omittedDomain } from "./presence.js";
import { FIXED32, isRangePiece, LEN, VARINT, Writer, type Piece } from "../proto/writer.js";

export interface EncodeOptions {
  /** Called once for each tensor; may return a replacement (used to write external data). */
  tensorHook?: (t: Tensor) => Tensor;
}

/** The walk: every write* method writes a message's fields, in field-number order. */
class Encoder {
  private readonly w = new Writer(undefined, undefined, true);

  constructor(private readonly opts: EncodeOptions = {}) {}

  /** The model's bytes, as pieces in order (segments, views of large byte fields, ranges). */
  pieces(model: IR.Model): Piece[] {
    this.wModel(model);
    return this.w.pieces();
  }
  /** The model's bytes in one buffer. */
  bytes(model: IR.Model): Uint8Array {
    this.wModel(model);
    return this.w.concat();
  }

  // --- shared pieces

  /** Refuses a message nested deeper than readers take (`depth`: messages open around its fields). */
  private nest(depth: number): void {
    if (depth > MAX_NESTING)
      throw new OnnxError(
        "E_UNSUPPORTED",
        `cannot encode: messages nest more than ${MAX_NESTING} levels deep (subgraphs nested too deeply); protobuf readers, this tool's included, would refuse the file`,
      );
  }

  private wStr(field: number, s: string): void {
    this.w.strField(field, s);
  }

  private wEntries(field: number, md: IR.MetadataProps | undefined): void {
    if (!md) return;
    const w = this.w;
    for (const [k, v] of md) {
      w.open(field);
      this.wStr(1, k);
      this.wStr(2, v);
      w.close();
    }
  }

  /** Messages the IR keeps as decoded: encoded by the reflective encoder. */
  private wKept(field: number, typeName: string, list: unknown[] | undefined): void {
    if (!list) return;
    for (const m of list) {
      const bytes = encodeMessage(typeName, m as Msg);
      this.w.tag(field, LEN);
      this.w.varint(bytes.length);
      this.w.bytes(bytes);
    }
  }

  private wOpset(field: number, o: IR.OpsetId): void {
    const w = this.w;
    w.open(field);
    if (hasDomain(o)) this.wStr(1, o.domain);
    w.tag(2, VARINT);
    w.varint(o.version);
    w.close();
  }

  // --- ModelProto

  private wModel(m: IR.Model): void {
    const w = this.w;
    w.tag(1, VARINT);
    w.varint(m.irVersion);
    if (m.producerName !== undefined) this.wStr(2, m.producerName);
    if (m.producerVersion !== undefined) this.wStr(3, m.producerVersion);
    if (m.domain !== undefined) this.wStr(4, m.domain);
    if (m.modelVersion !== undefined) {
      w.tag(5, VARINT);
      w.bigVarint(m.modelVersion);
    }
    if (m.docString !== undefined) this.wStr(6, m.docString);
    w.open(7);
    this.wGraph(m.graph, 1);
    w.close();
    for (const o of m.opsetImports) this.wOpset(8, o);
    this.wEntries(14, m.metadataProps);
    this.wKept(20, "TrainingInfoProto", m.trainingInfo);
    for (const f of m.functions) {
      w.open(25);
      this.wFunction(f, 1);
      w.close();
    }
    this.wKept(26, "DeviceConfigurationProto", m.configuration);
  }

  // --- GraphProto

  private wGraph(g: IR.Graph, depth: number): void {
    this.nest(depth);
    const w = this.w;
    const d = depth + 1;
    for (let i = 0, items = g.nodes; i < items.length; i++) {
      w.open(1);
      this.wNode(items[i]!, d);
      w.close();
    }
    if (g.name !== undefined) this.wStr(2, g.name);
    for (const t of g.initializers) {
      w.open(5);
      this.wTensor(t, d);
      w.close();
    }
    if (g.docString !== undefined) this.wStr(10, g.docString);
    this.wValueInfos(11, g.inputs, d);
    this.wValueInfos(12, g.outputs, d);
    this.wValueInfos(13, g.valueInfo, d);
    this.wKept(14, "TensorAnnotation", g.quantizationAnnotation);
    for (const s of g.sparseInitializers) {
      w.open(15);
      this.wSparse(s, d);
      w.close();
    }
    this.wEntries(16, g.metadataProps);
  }

  // --- NodeProto

  private wNode(node: IR.Node, depth: number): void {
    this.nest(depth);
    const w = this.w;
    for (let i = 0, items = node.inputs; i < items.length; i++) this.wStr(1, items[i]!);
    for (let i = 0, items = node.outputs; i < items.length; i++) this.wStr(2, items[i]!);
    if (node.name !== undefined) this.wStr(3, node.name);
    this.wStr(4, node.opType);
    if (node.attributes.length > 0) this.wNodeAttributes(node.attributes, depth + 1);
    if (node.docString !== undefined) this.wStr(6, node.docString);
    if (node.domain !== "" || explicitEmptyDomain.has(node)) this.wStr(7, node.domain);
    if (node.overload !== undefined) this.wStr(8, node.overload);
    this.wEntries(9, node.metadataProps);
    this.wKept(10, "NodeDeviceConfigurationProto", node.deviceConfigurations);
  }

  // --- AttributeProto

  /**
   * Attributes shared by identity between nodes (the decoder shares repeated plain ones and the
   * attribute lists of alike nodes, passes share what they copy: the converter gives every
   * Constant it makes one value attribute). An attribute, or a node's whole attribute list, met
   * again after being written twice has its bytes copied: when they are its own (numbers, strings,
   * their lists, and tensors while no tensor hook may replace them). Objects, not contents, are
   * compared; the small rings cost nothing measurable where nothing repeats.
   */
  private readonly attrRepeats = new Repeats();
  private readonly listRepeats = new Repeats();

  /** A node's attributes (field 5), at nesting `depth`. */
  private wNodeAttributes(list: IR.Attribute[], depth: number): void {
    const w = this.w;
    // A deep attribute takes the walk, whose nesting checks see a tensor's own messages.
    const shallow = depth + 2 <= MAX_NESTING;
    if (shallow) {
      const bytes = this.listRepeats.find(list);
      if (bytes) {
        this.nest(depth);
        w.raw(bytes);
        return;
      }
    }
    const mark = w.mark();
    let own = shallow;
    for (let i = 0; i < list.length; i++)
      own = this.wNodeAttribute(list[i]!, depth, shallow) && own;
    if (own) this.listRepeats.wrote(list, w, mark);
  }
  /** One node attribute; whether its bytes are its own. */
  private wNodeAttribute(a: IR.Attribute, depth: number, shallow: boolean): boolean {
    const w = this.w;
    const own = shallow && (PLAIN[a.type] === 1 || (a.type === "TENSOR" && !this.opts.tensorHook));
    if (own) {
      const bytes = this.attrRepeats.find(a);
      if (bytes) {
        this.nest(depth);
        w.raw(bytes);
        return true;
      }
    }
    const mark = w.mark();
    w.open(5);
    this.wAttribute(a, depth);
    w.close();
    if (own) this.attrRepeats.wrote(a, w, mark);
    return own;
  }

  private wAttribute(a: IR.Attribute, depth: number): void {
    this.nest(depth);
    const w = this.w;
    const d = depth + 1;
    this.wStr(1, a.name);
    if (a.value !== undefined)
      switch (a.type) {
        case "FLOAT":
          w.tag(2, FIXED32);
          w.f32(a.value);
          break;
        case "INT":
          w.tag(3, VARINT);
          w.bigVarint(a.value);
          break;
        case "STRING":
          this.wStr(4, a.value);
          break;
        case "TENSOR":
          w.open(5);
          this.wTensor(a.value, d);
          w.close();
          break;
        case "GRAPH":
          w.open(6);
          this.wGraph(a.value, d);
          w.close();
          break;
        case "FLOATS":
          for (let i = 0, items = a.value; i < items.length; i++) {
            w.tag(7, FIXED32);
            w.f32(items[i]!);
          }
          break;
        case "INTS":
          for (let i = 0, items = a.value; i < items.length; i++) {
            w.tag(8, VARINT);
            w.bigVarint(items[i]!);
          }
          break;
        case "STRINGS":
          for (const s of a.value) this.wStr(9, s);
          break;
        case "TENSORS":
          for (const t of a.value) {
            w.open(10);
            this.wTensor(t, d);
            w.close();
          }
          break;
        case "GRAPHS":
          for (const g of a.value) {
            w.open(11);
            this.wGraph(g, d);
            w.close();
          }
          break;
        default:
          break;
      }
    if (a.docString !== undefined) this.wStr(13, a.docString);
    if (a.value !== undefined) {
      if (a.type === "TYPE_PROTO") this.wType(14, a.value, d);
      else if (a.type === "TYPE_PROTOS") for (const t of a.value) this.wType(15, t, d);
    }
    w.tag(20, VARINT);
    w.varint(ATTR_TYPE_ID[a.type]);
    if (a.refAttrName !== undefined) this.wStr(21, a.refAttrName);
    if (a.value !== undefined) {
      if (a.type === "SPARSE_TENSOR") {
        w.open(22);
        this.wSparse(a.value, d);
        w.close();
      } else if (a.type === "SPARSE_TENSORS")
        for (const s of a.value) {
          w.open(23);
          this.wSparse(s, d);
          w.close();
        }
    }
  }

  // --- ValueInfoProto, TypeProto

  private wValueInfos(field: number, list: IR.ValueInfo[], depth: number): void {
    const w = this.w;
    for (const v of list) {
      this.nest(depth);
      w.open(field);
      this.wStr(1, v.name);
      if (v.type) this.wType(2, v.type, depth + 1);
      if (v.docString !== undefined) this.wStr(3, v.docString);
      this.wEntries(4, v.metadataProps);
      w.close();
    }
  }

  /** TypeProto's field for each kind. */
  private static KIND_FIELD = {
    tensor: 1,
    sequence: 4,
    map: 5,
    opaque: 7,
    sparse_tensor: 8,
    optional: 9,
  };

  /** A TypeProto in field `field` of the message being written, at nesting `depth`. */
  private wType(field: number, t: IR.Type, depth: number): void {
    this.nest(depth);
    const w = this.w;
    w.open(field);
    // Fields in number order: denotation (6) comes after tensor, sequence and map, before the rest.
    const kind = t.kind === "none" ? 0 : Encoder.KIND_FIELD[t.kind];
    if (kind > 6) this.wTypeDenotation(t);
    if (t.kind !== "none") {
      const d = depth + 1;
      this.nest(d);
      w.open(kind);
      switch (t.kind) {
        case "tensor":
        case "sparse_tensor":
          w.tag(1, VARINT);
          w.varint(t.elemType);
          if (t.shape) this.wShape(t, t.shape, d + 1);
          break;
        case "sequence":
        case "optional":
          if (t.elem) this.wType(1, t.elem, d + 1);
          break;
        case "map":
          w.tag(1, VARINT);
          w.varint(t.keyType);
          if (t.value) this.wType(2, t.value, d + 1);
          break;
        case "opaque":
          if (t.domain !== undefined) this.wStr(1, t.domain);
          if (t.name !== undefined) this.wStr(2, t.name);
          break;
      }
      w.close();
    }
    if (kind <= 6) this.wTypeDenotation(t);
    w.close();
  }
  private wTypeDenotation(t: IR.Type): void {
    if (t.denotation !== undefined) this.wStr(6, t.denotation);
  }
  private wShape(t: IR.TensorType, shape: IR.Dim[], depth: number): void {
    this.nest(depth);
    const w = this.w;
    w.open(2);
    for (let i = 0; i < shape.length; i++) {
      const dim = shape[i]!;
      const den = t.dimDenotations?.[i];
      w.open(1);
      if (typeof dim === "number") {
        w.tag(1, VARINT);
        w.varint(dim);
      } else if (typeof dim === "string") this.wStr(2, dim);
      if (den !== undefined) this.wStr(3, den);
      w.close();
    }
    w.close();
  }

  // --- TensorProto, SparseTensorProto

  private wTensor(t0: Tensor, depth: number): void {
    this.nest(depth);
    const hook = this.opts.tensorHook;
    const t = hook ? hook(t0) : t0;
    const w = this.w;
    for (let i = 0, items = t.dims; i < items.length; i++) {
      w.tag(1, VARINT);
      w.varint(items[i]!);
    }
    w.tag(2, VARINT);
    w.varint(t.dataType);
    const seg = t.segment;
    if (seg) {
      this.nest(depth + 1);
      w.open(3);
      if (seg.begin !== undefined) {
        w.tag(1, VARINT);
        w.bigVarint(seg.begin);
      }
      if (seg.end !== undefined) {
        w.tag(2, VARINT);
        w.bigVarint(seg.end);
      }
      w.close();
    }
    const d = t.data;
    switch (d.kind) {
      case "float":
        if (d.values.length) w.packedF32(4, d.values);
        break;
      case "int32":
        if (d.values.length) w.packedVarints(5, d.values);
        break;
      case "string":
        for (let i = 0, items = d.values; i < items.length; i++) {
          const b = items[i]!;
          w.tag(6, LEN);
          w.varint(b.length);
          w.bytes(b);
        }
        break;
      case "int64":
        if (d.values.length) w.packedBigVarints(7, d.values);
        break;
      default:
        break;
    }
    if (t.name !== "" || explicitEmptyName.has(t)) this.wStr(8, t.name);
    switch (d.kind) {
      case "raw":
        w.tag(9, LEN);
        w.varint(d.bytes.length);
        w.bytes(d.bytes);
        break;
      case "lazy":
        // Left in its source: a piece the file writer copies in chunks (never read whole).
        w.tag(9, LEN);
        w.varint(d.range.length);
        w.range(d.range);
        break;
      case "double":
        if (d.values.length) w.packedF64(10, d.values);
        break;
      case "uint64":
        if (d.values.length) w.packedBigVarints(11, d.values);
        break;
      default:
        break;
    }
    if (t.docString !== undefined) this.wStr(12, t.docString);
    if (d.kind === "external") {
      this.wEntries(13, d.entries);
      w.tag(14, VARINT);
      w.varint(1);
    }
    this.wEntries(16, t.metadataProps);
  }
  private wSparse(s: IR.SparseTensor, depth: number): void {
    this.nest(depth);
    const w = this.w;
    w.open(1);
    this.wTensor(s.values, depth + 1);
    w.close();
    w.open(2);
    this.wTensor(s.indices, depth + 1);
    w.close();
    for (const d of s.dims) {
      w.tag(3, VARINT);
      w.varint(d);
    }
  }

  // --- FunctionProto

  private wFunction(f: IR.Function, depth: number): void {
    this.nest(depth);
    const w = this.w;
    const d = depth + 1;
    this.wStr(1, f.name);
    for (const s of f.inputs) this.wStr(4, s);
    for (const s of f.outputs) this.wStr(5, s);
    for (const s of f.attributes) this.wStr(6, s);
    for (let i = 0, items = f.nodes; i < items.length; i++) {
      w.open(7);
      this.wNode(items[i]!, d);
      w.close();
    }
    if (f.docString !== undefined) this.wStr(8, f.docString);
    for (const o of f.opsetImports) this.wOpset(9, o);
    this.wStr(10, f.domain);
    for (const a of f.attributeProtos) {
      w.open(11);
      this.wAttribute(a, d);
      w.close();
    }
    this.wValueInfos(12, f.valueInfo, d);
    if (f.overload !== undefined) this.wStr(13, f.overload);
    this.wEntries(14, f.metadataProps);
  }

  /** A lone tensor (TensorProto files). */
  tensorBytes(t: Tensor): Uint8Array {
    this.wTensor(t, 0);
    return this.w.concat();
  }
}

/** How many objects each ring of Repeats holds. */
const RING = 8;

/** Bytes of objects written again and again: a ring of objects written once, a ring of those kept. */
class Repeats {
  private readonly seen: (object | undefined)[] = new Array<object | undefined>(RING);
  private seenNext = 0;
  private readonly kept: (object | undefined)[] = new Array<object | undefined>(RING);
  private readonly bytes: Uint8Array[] = new Array<Uint8Array>(RING);
  private keptNext = 0;

  /** The bytes kept for `o`, if any. */
  find(o: object): Uint8Array | undefined {
    const kept = this.kept;
    for (let k = 0; k < RING; k++) if (kept[k] === o) return this.bytes[k];
    return undefined;
  }
  /** `o` was just written from `mark`: its bytes are kept if it was written before, else it is noted. */
  wrote(o: object, w: Writer, mark: number): void {
    const seen = this.seen;
    for (let k = 0; k < RING; k++)
      if (seen[k] === o) {
        const bytes = w.since(mark);
        if (bytes) {
          const j = this.keptNext;
          this.kept[j] = o;
          this.bytes[j] = bytes;
          this.keptNext = (j + 1) % RING;
        }
        return;
      }
    seen[this.seenNext] = o;
    this.seenNext = (this.seenNext + 1) % RING;
  }
}
/** Attribute types whose bytes depend on the attribute alone (no tensors: the tensor hook sees each). */
const PLAIN: Partial<Record<IR.AttrType, 1>> = {
  FLOAT: 1,
  INT: 1,
  STRING: 1,
  FLOATS: 1,
  INTS: 1,
  STRINGS: 1,
};

/** Whether an opset import's domain field is written (a file may leave out ai.onnx's ""). */
function hasDomain(o: IR.OpsetId): boolean {
  return o.domain !== "" || !omittedDomain.has(o);
}

/** Encodes a model into one buffer. */
export function encodeModelBytes(model: IR.Model, opts: EncodeOptions = {}): Uint8Array {
  return new Encoder(opts).bytes(model);
}

/**
 * Encodes a model into pieces, in order: segments the encoder wrote, large byte fields as views
 * of their buffers (raw tensor data is never copied), and the ranges of tensors whose data is
 * still in its source (to be copied by the writer). Nothing is written again later.
 */
export function encodeModelPieces(model: IR.Model, opts: EncodeOptions = {}): Piece[] {
  return new Encoder(opts).pieces(model);
}

/** Chunks a range is read in when it is handed out as bytes. */
const RANGE_CHUNK = 8 << 20;

/**
 * Encodes a model into chunks handed to `sink` in order; large byte fields are passed as views,
 * ranges read a chunk at a time.
 */
export function encodeModelChunks(
  model: IR.Model,
  sink: (chunk: Uint8Array) => void,
  opts: EncodeOptions = {},
): void {
  for (const p of encodeModelPieces(model, opts)) {
    if (!isRangePiece(p)) sink(p);
    else
      for (let at = 0; at < p.length; at += RANGE_CHUNK)
        sink(p.source.read(p.offset + at, Math.min(RANGE_CHUNK, p.length - at)));
  }
}

/** Encodes one tensor as a TensorProto. */
export function encodeTensorBytes(t: Tensor): Uint8Array {
  return new Encoder().tensorBytes(t);
}
