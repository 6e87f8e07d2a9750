// IR → model bytes, with no intermediate message objects. Two walks of the IR: the first measures
// every nested message (sizes kept in one array, in the order the second walk meets them), the
// second writes bytes. Strings are measured and written in place (ASCII byte by byte, the rest
// with encodeInto), never encoded into buffers of their own. Fields go out in field-number order
// and only when the IR holds them, as protobuf's own serializers write them, so decoding a file
// and encoding it again gives the same bytes. Byte fields of 16 KiB or more (raw tensor data)
// are handed to the sink as views, so saving a large model builds no second copy of its data.

import { OnnxError } from "../errors.js";
import { Tensor } from "../ir/tensor.js";
import type * as IR from "../ir/types.js";
import { encodeMessage, MAX_NESTING, type Msg } from "../proto/wire.js";
import { ATTR_TYPE_ID } from "./attr-types.js";
import { explicitEmptyDomain, explicitEmptyName, omittedDomain } from "./presence.js";
import {
  bigVarintsSize,
  bigVarintSize,
  FIXED32,
  FIXED64,
  LEN,
  utf8Length,
  VARINT,
  varintSize,
  varintsSize,
  Writer,
} from "../proto/writer.js";

export interface EncodeOptions {
  /** Called once for each tensor; may return a replacement (used to write external data). */
  tensorHook?: (t: Tensor) => Tensor;
}

/**
 * The two walks. Every measure* method returns the encoded size of a message's fields and records
 * the sizes of the messages nested in it; every write* method writes them in the same order.
 */
class Encoder {
  /** Sizes of nested messages, in walk order (a typed array: no heap objects, grown by doubling). */
  private sizes = new Float64Array(1024);
  private count = 0;
  private next = 0;
  private w!: Writer;
  private readonly replaced = new Map<Tensor, Tensor>();
  private readonly kept = new Map<object, Uint8Array>();

  constructor(private readonly opts: EncodeOptions = {}) {}

  run(model: IR.Model, sink?: (chunk: Uint8Array) => void): Uint8Array | undefined {
    const total = this.mModel(model);
    this.w = new Writer(total, sink);
    this.wModel(model);
    if (this.next !== this.count) throw new Error("encoder: the two walks disagree");
    this.w.flush();
    return sink ? undefined : this.w.buf;
  }

  // --- shared pieces

  private nest(depth: number): void {
    if (depth > MAX_NESTING)
      throw new OnnxError(
        "E_UNSUPPORTED",
        `cannot encode: messages nest more than ${MAX_NESTING} levels deep (subgraphs nested too deeply); protobuf readers, this tool's included, would refuse the file`,
      );
  }

  /** Size of a length-delimited field holding `n` bytes, tag included (fields 1..15: 1-byte tag). */
  private static len(field: number, n: number): number {
    return (field < 16 ? 1 : 2) + varintSize(n) + n;
  }
  private static str(field: number, s: string): number {
    return Encoder.len(field, utf8Length(s));
  }

  /**
   * A nested message is measured as `this.sized(this.slot(), field, this.mX(...))`: the slot for
   * its size is taken before the messages inside it take theirs (arguments are evaluated in
   * order), so the sizes lie in the order the write walk opens the messages.
   */
  private slot(): number {
    const i = this.count++;
    if (i === this.sizes.length) {
      const grown = new Float64Array(2 * i);
      grown.set(this.sizes);
      this.sizes = grown;
    }
    return i;
  }
  /** Fills a slot with a nested message's size; the size of the field that holds it. */
  private sized(slot: number, field: number, n: number): number {
    this.sizes[slot] = n;
    return Encoder.len(field, n);
  }
  /** Writes a nested message's tag and size; its fields follow. */
  private open(field: number): void {
    this.w.tag(field, LEN);
    this.w.varint(this.sizes[this.next++]!);
  }
  private wStr(field: number, s: string): void {
    this.w.tag(field, LEN);
    this.w.str(s);
  }

  private mEntries(field: number, md: IR.MetadataProps | undefined): number {
    let n = 0;
    if (md)
      for (const [k, v] of md)
        n += this.sized(this.slot(), field, Encoder.str(1, k) + Encoder.str(2, v));
    return n;
  }
  private wEntries(field: number, md: IR.MetadataProps | undefined): void {
    if (!md) return;
    for (const [k, v] of md) {
      this.open(field);
      this.wStr(1, k);
      this.wStr(2, v);
    }
  }

  /** Messages the IR keeps as decoded: encoded once by the reflective encoder. */
  private mKept(field: number, typeName: string, list: unknown[] | undefined): number {
    let n = 0;
    if (list)
      for (const m of list) {
        const bytes = encodeMessage(typeName, m as Msg);
        this.kept.set(m as object, bytes);
        n += Encoder.len(field, bytes.length);
      }
    return n;
  }
  private wKept(field: number, list: unknown[] | undefined): void {
    if (!list) return;
    for (const m of list) {
      const bytes = this.kept.get(m as object)!;
      this.w.tag(field, LEN);
      this.w.varint(bytes.length);
      this.w.bytes(bytes);
    }
  }

  private mOpset(o: IR.OpsetId): number {
    return (hasDomain(o) ? Encoder.str(1, o.domain) : 0) + 1 + varintSize(o.version);
  }
  private wOpset(o: IR.OpsetId): void {
    if (hasDomain(o)) this.wStr(1, o.domain);
    this.w.tag(2, VARINT);
    this.w.varint(o.version);
  }

  // --- ModelProto

  private mModel(m: IR.Model): number {
    let n = 1 + varintSize(m.irVersion);
    if (m.producerName !== undefined) n += Encoder.str(2, m.producerName);
    if (m.producerVersion !== undefined) n += Encoder.str(3, m.producerVersion);
    if (m.domain !== undefined) n += Encoder.str(4, m.domain);
    if (m.modelVersion !== undefined) n += 1 + bigVarintSize(m.modelVersion);
    if (m.docString !== undefined) n += Encoder.str(6, m.docString);
    n += this.sized(this.slot(), 7, this.mGraph(m.graph, 1));
    for (const o of m.opsetImports) {
      n += this.sized(this.slot(), 8, this.mOpset(o));
    }
    n += this.mEntries(14, m.metadataProps);
    n += this.mKept(20, "TrainingInfoProto", m.trainingInfo);
    for (const f of m.functions) {
      n += this.sized(this.slot(), 25, this.mFunction(f, 1));
    }
    n += this.mKept(26, "DeviceConfigurationProto", m.configuration);
    return n;
  }
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
    this.open(7);
    this.wGraph(m.graph);
    for (const o of m.opsetImports) {
      this.open(8);
      this.wOpset(o);
    }
    this.wEntries(14, m.metadataProps);
    this.wKept(20, m.trainingInfo);
    for (const f of m.functions) {
      this.open(25);
      this.wFunction(f);
    }
    this.wKept(26, m.configuration);
  }

  // --- GraphProto

  private mGraph(g: IR.Graph, depth: number): number {
    this.nest(depth);
    const d = depth + 1;
    let n = 0;
    for (let i = 0, items = g.nodes; i < items.length; i++) {
      const node = items[i]!;
      n += this.sized(this.slot(), 1, this.mNode(node, d));
    }
    if (g.name !== undefined) n += Encoder.str(2, g.name);
    for (const t of g.initializers) {
      n += this.sized(this.slot(), 5, this.mTensor(t, d));
    }
    if (g.docString !== undefined) n += Encoder.str(10, g.docString);
    for (const v of g.inputs) {
      n += this.sized(this.slot(), 11, this.mValueInfo(v, d));
    }
    for (const v of g.outputs) {
      n += this.sized(this.slot(), 12, this.mValueInfo(v, d));
    }
    for (const v of g.valueInfo) {
      n += this.sized(this.slot(), 13, this.mValueInfo(v, d));
    }
    n += this.mKept(14, "TensorAnnotation", g.quantizationAnnotation);
    for (const s of g.sparseInitializers) {
      n += this.sized(this.slot(), 15, this.mSparse(s, d));
    }
    n += this.mEntries(16, g.metadataProps);
    return n;
  }
  private wGraph(g: IR.Graph): void {
    for (let i = 0, items = g.nodes; i < items.length; i++) {
      const node = items[i]!;
      this.open(1);
      this.wNode(node);
    }
    if (g.name !== undefined) this.wStr(2, g.name);
    for (const t of g.initializers) {
      this.open(5);
      this.wTensor(t);
    }
    if (g.docString !== undefined) this.wStr(10, g.docString);
    for (const v of g.inputs) {
      this.open(11);
      this.wValueInfo(v);
    }
    for (const v of g.outputs) {
      this.open(12);
      this.wValueInfo(v);
    }
    for (const v of g.valueInfo) {
      this.open(13);
      this.wValueInfo(v);
    }
    this.wKept(14, g.quantizationAnnotation);
    for (const s of g.sparseInitializers) {
      this.open(15);
      this.wSparse(s);
    }
    this.wEntries(16, g.metadataProps);
  }

  // --- NodeProto

  private mNode(node: IR.Node, depth: number): number {
    this.nest(depth);
    let n = 0;
    for (let i = 0, items = node.inputs; i < items.length; i++) {
      const s = items[i]!;
      n += Encoder.str(1, s);
    }
    for (let i = 0, items = node.outputs; i < items.length; i++) {
      const s = items[i]!;
      n += Encoder.str(2, s);
    }
    if (node.name !== undefined) n += Encoder.str(3, node.name);
    n += Encoder.str(4, node.opType);
    for (let i = 0, items = node.attributes; i < items.length; i++) {
      const a = items[i]!;
      n += this.sized(this.slot(), 5, this.mAttribute(a, depth + 1));
    }
    if (node.docString !== undefined) n += Encoder.str(6, node.docString);
    if (node.domain !== "" || explicitEmptyDomain.has(node)) n += Encoder.str(7, node.domain);
    if (node.overload !== undefined) n += Encoder.str(8, node.overload);
    n += this.mEntries(9, node.metadataProps);
    n += this.mKept(10, "NodeDeviceConfigurationProto", node.deviceConfigurations);
    return n;
  }
  private wNode(node: IR.Node): void {
    for (let i = 0, items = node.inputs; i < items.length; i++) {
      const s = items[i]!;
      this.wStr(1, s);
    }
    for (let i = 0, items = node.outputs; i < items.length; i++) {
      const s = items[i]!;
      this.wStr(2, s);
    }
    if (node.name !== undefined) this.wStr(3, node.name);
    this.wStr(4, node.opType);
    for (let i = 0, items = node.attributes; i < items.length; i++) {
      const a = items[i]!;
      this.open(5);
      this.wAttribute(a);
    }
    if (node.docString !== undefined) this.wStr(6, node.docString);
    if (node.domain !== "" || explicitEmptyDomain.has(node)) this.wStr(7, node.domain);
    if (node.overload !== undefined) this.wStr(8, node.overload);
    this.wEntries(9, node.metadataProps);
    this.wKept(10, node.deviceConfigurations);
  }

  // --- AttributeProto

  private mAttribute(a: IR.Attribute, depth: number): number {
    this.nest(depth);
    const d = depth + 1;
    let n = Encoder.str(1, a.name);
    if (a.value !== undefined)
      switch (a.type) {
        case "FLOAT":
          n += 5;
          break;
        case "INT":
          n += 1 + bigVarintSize(a.value);
          break;
        case "STRING":
          n += Encoder.str(4, a.value);
          break;
        case "TENSOR": {
          const t = a.value;
          n += this.sized(this.slot(), 5, this.mTensor(t, d));
          break;
        }
        case "GRAPH": {
          const g = a.value;
          n += this.sized(this.slot(), 6, this.mGraph(g, d));
          break;
        }
        case "FLOATS":
          n += 5 * a.value.length;
          break;
        case "INTS":
          for (let i = 0, items = a.value; i < items.length; i++) {
            const v = items[i]!;
            n += 1 + bigVarintSize(v);
          }
          break;
        case "STRINGS":
          for (const s of a.value) {
            n += Encoder.str(9, s);
          }
          break;
        case "TENSORS":
          for (const t of a.value) {
            n += this.sized(this.slot(), 10, this.mTensor(t, d));
          }
          break;
        case "GRAPHS":
          for (const g of a.value) {
            n += this.sized(this.slot(), 11, this.mGraph(g, d));
          }
          break;
        default:
          break;
      }
    if (a.docString !== undefined) n += Encoder.str(13, a.docString);
    if (a.value !== undefined) {
      if (a.type === "TYPE_PROTO") {
        const t = a.value;
        n += this.sized(this.slot(), 14, this.mType(t, d));
      } else if (a.type === "TYPE_PROTOS")
        for (const t of a.value) {
          n += this.sized(this.slot(), 15, this.mType(t, d));
        }
    }
    n += 2 + varintSize(ATTR_TYPE_ID[a.type]);
    if (a.refAttrName !== undefined) n += Encoder.str(21, a.refAttrName);
    if (a.value !== undefined) {
      if (a.type === "SPARSE_TENSOR") {
        const s = a.value;
        n += this.sized(this.slot(), 22, this.mSparse(s, d));
      } else if (a.type === "SPARSE_TENSORS")
        for (const s of a.value) {
          n += this.sized(this.slot(), 23, this.mSparse(s, d));
        }
    }
    return n;
  }
  private wAttribute(a: IR.Attribute): void {
    const w = this.w;
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
          this.open(5);
          this.wTensor(a.value);
          break;
        case "GRAPH":
          this.open(6);
          this.wGraph(a.value);
          break;
        case "FLOATS":
          for (let i = 0, items = a.value; i < items.length; i++) {
            const v = items[i]!;
            w.tag(7, FIXED32);
            w.f32(v);
          }
          break;
        case "INTS":
          for (let i = 0, items = a.value; i < items.length; i++) {
            const v = items[i]!;
            w.tag(8, VARINT);
            w.bigVarint(v);
          }
          break;
        case "STRINGS":
          for (const s of a.value) {
            this.wStr(9, s);
          }
          break;
        case "TENSORS":
          for (const t of a.value) {
            this.open(10);
            this.wTensor(t);
          }
          break;
        case "GRAPHS":
          for (const g of a.value) {
            this.open(11);
            this.wGraph(g);
          }
          break;
        default:
          break;
      }
    if (a.docString !== undefined) this.wStr(13, a.docString);
    if (a.value !== undefined) {
      if (a.type === "TYPE_PROTO") {
        this.open(14);
        this.wType(a.value);
      } else if (a.type === "TYPE_PROTOS")
        for (const t of a.value) {
          this.open(15);
          this.wType(t);
        }
    }
    w.tag(20, VARINT);
    w.varint(ATTR_TYPE_ID[a.type]);
    if (a.refAttrName !== undefined) this.wStr(21, a.refAttrName);
    if (a.value !== undefined) {
      if (a.type === "SPARSE_TENSOR") {
        this.open(22);
        this.wSparse(a.value);
      } else if (a.type === "SPARSE_TENSORS")
        for (const s of a.value) {
          this.open(23);
          this.wSparse(s);
        }
    }
  }

  // --- ValueInfoProto, TypeProto

  private mValueInfo(v: IR.ValueInfo, depth: number): number {
    this.nest(depth);
    let n = Encoder.str(1, v.name);
    const type = v.type;
    if (type) n += this.sized(this.slot(), 2, this.mType(type, depth + 1));
    if (v.docString !== undefined) n += Encoder.str(3, v.docString);
    n += this.mEntries(4, v.metadataProps);
    return n;
  }
  private wValueInfo(v: IR.ValueInfo): void {
    this.wStr(1, v.name);
    if (v.type) {
      this.open(2);
      this.wType(v.type);
    }
    if (v.docString !== undefined) this.wStr(3, v.docString);
    this.wEntries(4, v.metadataProps);
  }

  /** TypeProto's field for each kind, and whether it comes before denotation (field 6). */
  private static KIND_FIELD = {
    tensor: 1,
    sequence: 4,
    map: 5,
    opaque: 7,
    sparse_tensor: 8,
    optional: 9,
  };

  private mType(t: IR.Type, depth: number): number {
    this.nest(depth);
    const d = depth + 1;
    let n = 0;
    if (t.kind !== "none")
      n += this.sized(this.slot(), Encoder.KIND_FIELD[t.kind], this.mTypeValue(t, d));
    if (t.denotation !== undefined) n += Encoder.str(6, t.denotation);
    return n;
  }
  /** The message inside a TypeProto (its tensor_type, sequence_type, ... field). */
  private mTypeValue(t: Exclude<IR.Type, IR.EmptyType>, d: number): number {
    this.nest(d);
    switch (t.kind) {
      case "tensor":
      case "sparse_tensor": {
        let m = 1 + varintSize(t.elemType);
        if (t.shape) m += this.sized(this.slot(), 2, this.mShape(t, t.shape, d + 1));
        return m;
      }
      case "sequence":
      case "optional": {
        const e = t.elem;
        return e ? this.sized(this.slot(), 1, this.mType(e, d + 1)) : 0;
      }
      case "map": {
        let m = 1 + varintSize(t.keyType);
        const v = t.value;
        if (v) m += this.sized(this.slot(), 2, this.mType(v, d + 1));
        return m;
      }
      case "opaque":
        return (
          (t.domain !== undefined ? Encoder.str(1, t.domain) : 0) +
          (t.name !== undefined ? Encoder.str(2, t.name) : 0)
        );
    }
  }
  private mShape(t: IR.TensorType, shape: IR.Dim[], depth: number): number {
    this.nest(depth);
    let s = 0;
    for (let i = 0; i < shape.length; i++) {
      const dim = shape[i]!;
      const den = t.dimDenotations?.[i];
      let k = 0;
      if (typeof dim === "number") k += 1 + varintSize(dim);
      else if (typeof dim === "string") k += Encoder.str(2, dim);
      if (den !== undefined) k += Encoder.str(3, den);
      s += this.sized(this.slot(), 1, k);
    }
    return s;
  }
  private wType(t: IR.Type): void {
    const w = this.w;
    const field = t.kind === "none" ? 0 : Encoder.KIND_FIELD[t.kind];
    if (field > 6) this.wTypeDenotation(t);
    switch (t.kind) {
      case "tensor":
      case "sparse_tensor":
        this.open(field);
        w.tag(1, VARINT);
        w.varint(t.elemType);
        if (t.shape) {
          this.open(2);
          for (let i = 0; i < t.shape.length; i++) {
            const dim = t.shape[i]!;
            const den = t.dimDenotations?.[i];
            this.open(1);
            if (typeof dim === "number") {
              w.tag(1, VARINT);
              w.varint(dim);
            } else if (typeof dim === "string") this.wStr(2, dim);
            if (den !== undefined) this.wStr(3, den);
          }
        }
        break;
      case "sequence":
      case "optional":
        this.open(field);
        if (t.elem) {
          this.open(1);
          this.wType(t.elem);
        }
        break;
      case "map":
        this.open(field);
        w.tag(1, VARINT);
        w.varint(t.keyType);
        if (t.value) {
          this.open(2);
          this.wType(t.value);
        }
        break;
      case "opaque":
        this.open(field);
        if (t.domain !== undefined) this.wStr(1, t.domain);
        if (t.name !== undefined) this.wStr(2, t.name);
        break;
      case "none":
        break;
    }
    if (field <= 6) this.wTypeDenotation(t);
  }
  private wTypeDenotation(t: IR.Type): void {
    if (t.denotation !== undefined) this.wStr(6, t.denotation);
  }

  // --- TensorProto, SparseTensorProto

  private mTensor(t0: Tensor, depth: number): number {
    this.nest(depth);
    let t = t0;
    if (this.opts.tensorHook) {
      t = this.opts.tensorHook(t0);
      if (t !== t0) this.replaced.set(t0, t);
    }
    let n = 0;
    for (let i = 0, dims = t.dims; i < dims.length; i++) n += 1 + varintSize(dims[i]!);
    n += 1 + varintSize(t.dataType);
    const seg = t.segment;
    if (seg) this.nest(depth + 1);
    if (seg)
      n += this.sized(
        this.slot(),
        3,
        (seg.begin !== undefined ? 1 + bigVarintSize(seg.begin) : 0) +
          (seg.end !== undefined ? 1 + bigVarintSize(seg.end) : 0),
      );
    const d = t.data;
    switch (d.kind) {
      case "float":
        if (d.values.length) n += Encoder.len(4, 4 * d.values.length);
        break;
      case "int32":
        if (d.values.length) n += Encoder.len(5, varintsSize(d.values));
        break;
      case "string":
        for (const b of d.values) n += Encoder.len(6, b.length);
        break;
      case "int64":
        if (d.values.length) n += Encoder.len(7, bigVarintsSize(d.values));
        break;
      default:
        break;
    }
    if (t.name !== "" || explicitEmptyName.has(t)) n += Encoder.str(8, t.name);
    switch (d.kind) {
      case "raw":
        n += Encoder.len(9, d.bytes.length);
        break;
      case "double":
        if (d.values.length) n += Encoder.len(10, 8 * d.values.length);
        break;
      case "uint64":
        if (d.values.length) n += Encoder.len(11, bigVarintsSize(d.values));
        break;
      default:
        break;
    }
    if (t.docString !== undefined) n += Encoder.str(12, t.docString);
    if (d.kind === "external") {
      n += this.mEntries(13, d.entries);
      n += 2;
    }
    n += this.mEntries(16, t.metadataProps);
    return n;
  }
  private wTensor(t0: Tensor): void {
    const t = this.replaced.get(t0) ?? t0;
    const w = this.w;
    for (let i = 0, items = t.dims; i < items.length; i++) {
      const dim = items[i]!;
      w.tag(1, VARINT);
      w.varint(dim);
    }
    w.tag(2, VARINT);
    w.varint(t.dataType);
    const seg = t.segment;
    if (seg) {
      this.open(3);
      if (seg.begin !== undefined) {
        w.tag(1, VARINT);
        w.bigVarint(seg.begin);
      }
      if (seg.end !== undefined) {
        w.tag(2, VARINT);
        w.bigVarint(seg.end);
      }
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
  private mSparse(s: IR.SparseTensor, depth: number): number {
    this.nest(depth);
    let n = this.sized(this.slot(), 1, this.mTensor(s.values, depth + 1));
    n += this.sized(this.slot(), 2, this.mTensor(s.indices, depth + 1));
    for (const d of s.dims) n += 1 + varintSize(d);
    return n;
  }
  private wSparse(s: IR.SparseTensor): void {
    this.open(1);
    this.wTensor(s.values);
    this.open(2);
    this.wTensor(s.indices);
    for (const d of s.dims) {
      this.w.tag(3, VARINT);
      this.w.varint(d);
    }
  }

  // --- FunctionProto

  private mFunction(f: IR.Function, depth: number): number {
    this.nest(depth);
    const d = depth + 1;
    let n = Encoder.str(1, f.name);
    for (const s of f.inputs) {
      n += Encoder.str(4, s);
    }
    for (const s of f.outputs) {
      n += Encoder.str(5, s);
    }
    for (const s of f.attributes) {
      n += Encoder.str(6, s);
    }
    for (let i = 0, items = f.nodes; i < items.length; i++) {
      const node = items[i]!;
      n += this.sized(this.slot(), 7, this.mNode(node, d));
    }
    if (f.docString !== undefined) n += Encoder.str(8, f.docString);
    for (const o of f.opsetImports) {
      n += this.sized(this.slot(), 9, this.mOpset(o));
    }
    n += Encoder.str(10, f.domain);
    for (const a of f.attributeProtos) {
      n += this.sized(this.slot(), 11, this.mAttribute(a, d));
    }
    for (const v of f.valueInfo) {
      n += this.sized(this.slot(), 12, this.mValueInfo(v, d));
    }
    if (f.overload !== undefined) n += Encoder.str(13, f.overload);
    n += this.mEntries(14, f.metadataProps);
    return n;
  }
  private wFunction(f: IR.Function): void {
    this.wStr(1, f.name);
    for (const s of f.inputs) {
      this.wStr(4, s);
    }
    for (const s of f.outputs) {
      this.wStr(5, s);
    }
    for (const s of f.attributes) {
      this.wStr(6, s);
    }
    for (let i = 0, items = f.nodes; i < items.length; i++) {
      const node = items[i]!;
      this.open(7);
      this.wNode(node);
    }
    if (f.docString !== undefined) this.wStr(8, f.docString);
    for (const o of f.opsetImports) {
      this.open(9);
      this.wOpset(o);
    }
    this.wStr(10, f.domain);
    for (const a of f.attributeProtos) {
      this.open(11);
      this.wAttribute(a);
    }
    for (const v of f.valueInfo) {
      this.open(12);
      this.wValueInfo(v);
    }
    if (f.overload !== undefined) this.wStr(13, f.overload);
    this.wEntries(14, f.metadataProps);
  }

  /** A lone tensor (TensorProto files). */
  tensorBytes(t: Tensor): Uint8Array {
    const total = this.mTensor(t, 0);
    this.w = new Writer(total);
    this.wTensor(t);
    return this.w.buf;
  }
}

/** Whether an opset import's domain field is written (a file may leave out ai.onnx's ""). */
function hasDomain(o: IR.OpsetId): boolean {
  return o.domain !== "" || !omittedDomain.has(o);
}

/** Encodes a model into one buffer. */
export function encodeModelBytes(model: IR.Model, opts: EncodeOptions = {}): Uint8Array {
  return new Encoder(opts).run(model)!;
}

/**
 * Encodes a model into chunks handed to `sink` in order; large byte fields are passed as views.
 * A chunk is valid until the sink returns (the encoder's buffer is then written again): a sink
 * that keeps chunks copies them.
 */
export function encodeModelChunks(
  model: IR.Model,
  sink: (chunk: Uint8Array) => void,
  opts: EncodeOptions = {},
): void {
  new Encoder(opts).run(model, sink);
}

/** Encodes one tensor as a TensorProto. */
export function encodeTensorBytes(t: Tensor): Uint8Array {
  return new Encoder().tensorBytes(t);
}
