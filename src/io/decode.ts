// Model bytes → IR in one pass over the wire format, with no intermediate message objects: each
// ONNX message has a decoder that reads its fields straight into the IR. Raw tensor data stays a
// view of the input. What protobuf readers do is kept: fields may come in any order, a scalar
// field given twice keeps the last value, repeated scalars are read packed or unpacked, fields of
// a wire type other than their own and unknown fields are skipped, and messages may nest 100
// deep. The few messages the IR keeps as decoded (training info, device configurations,
// quantization annotations) go through protobufjs.

import { OnnxError } from "../errors.js";
import { emptyFunction, emptyGraph } from "../ir/builder.js";
import { Tensor, type ByteRange, type TensorData } from "../ir/tensor.js";
import type * as IR from "../ir/types.js";
import { decodeMessage, describeDecodeError, MAX_NESTING, type Msg } from "../proto/wire.js";
import { ATTR_TYPES } from "./attr-types.js";
import { explicitEmptyDomain, explicitEmptyName, omittedDomain } from "./presence.js";
import { HOLE_FIELD } from "./ranged.js";
import { SharedAttributes } from "./shared-attributes.js";
import { FIXED32, FIXED64, LEN, Stack, VARINT, WireError, WireReader } from "./wire-reader.js";

export { explicitEmptyDomain } from "./presence.js";

const utf8 = new TextDecoder();

/** The message decoders, over the wire primitives. */
class Reader extends WireReader {
  // Stacks for the repeated fields of small messages (see Stack): a node's inputs, outputs and
  // attributes, an attribute's ints and floats, a tensor's and a shape's dims.
  private readonly ins = new Stack<string>();
  private readonly outs = new Stack<string>();
  private readonly attrs = new Stack<IR.Attribute>();
  private readonly ints = new Stack<bigint>();
  private readonly floats = new Stack<number>();
  private readonly dims = new Stack<number>();
  private readonly shapeDims = new Stack<IR.Dim>();
  private readonly shared = new SharedAttributes(this.buf);
  /** How many tensors with external data were read (a loader checks their files only if any). */
  external = 0;
  /** The ranges a compact model (ranged.ts) left in its file, by index. */
  holes: ByteRange[] | undefined;

  /** An attribute at [pos, end): a repeat of a recent plain one is that same object. */
  private sharedAttribute(end: number, depth: number): IR.Attribute {
    const start = this.pos;
    const hit = this.shared.find(start, end);
    if (hit !== undefined) {
      this.pos = end;
      return hit;
    }
    const a = this.attribute(end, depth);
    this.shared.keep(a, start, end);
    return a;
  }

  model(end: number): IR.Model {
    let irVersion: number | undefined;
    const opsets: IR.OpsetId[] = [];
    let graph: IR.Graph | undefined;
    const functions: IR.Function[] = [];
    const rest: Partial<IR.Model> = {};
    let md: IR.MetadataProps | undefined;
    let training: Msg[] | undefined;
    let configuration: Msg[] | undefined;
    while (this.pos < end) {
      const t = this.tag(end);
      const wire = t & 7;
      switch (t >>> 3) {
        case 1:
          if (wire !== VARINT) break;
          irVersion = this.i64num(end);
          continue;
        case 2:
          if (wire !== LEN) break;
          rest.producerName = this.string(end);
          continue;
        case 3:
          if (wire !== LEN) break;
          rest.producerVersion = this.string(end);
          continue;
        case 4:
          if (wire !== LEN) break;
          rest.domain = this.string(end);
          continue;
        case 5:
          if (wire !== VARINT) break;
          rest.modelVersion = this.i64(end);
          continue;
        case 6:
          if (wire !== LEN) break;
          rest.docString = this.string(end);
          continue;
        case 7:
          if (wire !== LEN) break;
          graph = this.graph(this.len(end), 1);
          continue;
        case 8:
          if (wire !== LEN) break;
          opsets.push(this.opset(this.len(end)));
          continue;
        case 14:
          if (wire !== LEN) break;
          (md ??= []).push(this.entry(this.len(end)));
          continue;
        case 20:
          if (wire !== LEN) break;
          (training ??= []).push(this.kept("TrainingInfoProto", end));
          continue;
        case 25:
          if (wire !== LEN) break;
          functions.push(this.function(this.len(end), 1));
          continue;
        case 26:
          if (wire !== LEN) break;
          (configuration ??= []).push(this.kept("DeviceConfigurationProto", end));
          continue;
      }
      this.skip(wire, end, 0);
    }
    if (!graph) throw new OnnxError("E_DECODE", "not an ONNX model: it has no graph");
    const model: IR.Model = {
      irVersion: irVersion ?? 0,
      opsetImports: opsets,
      graph,
      functions,
    };
    if (rest.producerName !== undefined) model.producerName = rest.producerName;
    if (rest.producerVersion !== undefined) model.producerVersion = rest.producerVersion;
    if (rest.domain !== undefined) model.domain = rest.domain;
    if (rest.modelVersion !== undefined) model.modelVersion = rest.modelVersion;
    if (rest.docString !== undefined) model.docString = rest.docString;
    if (md) model.metadataProps = md;
    if (training) model.trainingInfo = training;
    if (configuration) model.configuration = configuration;
    return model;
  }

  /** A message the IR keeps as decoded, read by protobufjs. */
  private kept(typeName: string, end: number): Msg {
    const stop = this.len(end);
    const msg = decodeMessage(typeName, this.buf.subarray(this.pos, stop));
    this.pos = stop;
    return msg;
  }

  private nest(depth: number): void {
    if (depth > MAX_NESTING) throw new WireError("max depth exceeded");
  }

  opset(end: number): IR.OpsetId {
    let domain: string | undefined;
    let version = 0;
    while (this.pos < end) {
      const t = this.tag(end);
      const wire = t & 7;
      const f = t >>> 3;
      if (f === 1 && wire === LEN) domain = this.string(end);
      else if (f === 2 && wire === VARINT) version = this.i64num(end);
      else this.skip(wire, end, 0);
    }
    const out = { domain: domain ?? "", version };
    if (domain === undefined) omittedDomain.add(out);
    return out;
  }

  entry(end: number): [string, string] {
    let key = "";
    let value = "";
    while (this.pos < end) {
      const t = this.tag(end);
      const wire = t & 7;
      const f = t >>> 3;
      if (f === 1 && wire === LEN) key = this.string(end);
      else if (f === 2 && wire === LEN) value = this.string(end);
      else this.skip(wire, end, 0);
    }
    return [key, value];
  }

  graph(end: number, depth: number): IR.Graph {
    this.nest(depth);
    const g = emptyGraph();
    let name: string | undefined;
    let doc: string | undefined;
    let md: IR.MetadataProps | undefined;
    let annotations: Msg[] | undefined;
    const d = depth + 1;
    while (this.pos < end) {
      const t = this.tag(end);
      const wire = t & 7;
      if (wire === LEN)
        switch (t >>> 3) {
          case 1:
            g.nodes.push(this.node(this.len(end), d));
            continue;
          case 2:
            name = this.string(end);
            continue;
          case 5:
            g.initializers.push(this.tensor(this.len(end), d));
            continue;
          case 10:
            doc = this.string(end);
            continue;
          case 11:
            g.inputs.push(this.valueInfo(this.len(end), d));
            continue;
          case 12:
            g.outputs.push(this.valueInfo(this.len(end), d));
            continue;
          case 13:
            g.valueInfo.push(this.valueInfo(this.len(end), d));
            continue;
          case 14:
            (annotations ??= []).push(this.kept("TensorAnnotation", end));
            continue;
          case 15:
            g.sparseInitializers.push(this.sparse(this.len(end), d));
            continue;
          case 16:
            (md ??= []).push(this.entry(this.len(end)));
            continue;
        }
      this.skip(wire, end, 0);
    }
    if (name !== undefined) g.name = name;
    if (doc !== undefined) g.docString = doc;
    if (annotations) g.quantizationAnnotation = annotations;
    if (md) g.metadataProps = md;
    return g;
  }

  node(end: number, depth: number): IR.Node {
    this.nest(depth);
    const ins = this.ins;
    const outs = this.outs;
    const attrs = this.attrs;
    const in0 = ins.top;
    const out0 = outs.top;
    const attr0 = attrs.top;
    let opType = "";
    let domain: string | undefined;
    let name: string | undefined;
    let overload: string | undefined;
    let doc: string | undefined;
    let md: IR.MetadataProps | undefined;
    let devices: Msg[] | undefined;
    while (this.pos < end) {
      const t = this.tag(end);
      const wire = t & 7;
      if (wire === LEN)
        switch (t >>> 3) {
          case 1:
            ins.push(this.string(end));
            continue;
          case 2:
            outs.push(this.string(end));
            continue;
          case 3:
            name = this.string(end);
            continue;
          case 4:
            opType = this.string(end);
            continue;
          case 5:
            attrs.push(this.sharedAttribute(this.len(end), depth + 1));
            continue;
          case 6:
            doc = this.string(end);
            continue;
          case 7:
            domain = this.string(end);
            continue;
          case 8:
            overload = this.string(end);
            continue;
          case 9:
            (md ??= []).push(this.entry(this.len(end)));
            continue;
          case 10:
            (devices ??= []).push(this.kept("NodeDeviceConfigurationProto", end));
            continue;
        }
      this.skip(wire, end, 0);
    }
    const inputs = ins.take(in0);
    const outputs = outs.take(out0);
    const attributes = this.shared.list(opType, attrs, attr0);
    // One shape for named nodes, the one ir/builder's nodeWith makes.
    const node: IR.Node =
      name !== undefined
        ? { opType, domain: domain ?? "", name, inputs, outputs, attributes }
        : { opType, domain: domain ?? "", inputs, outputs, attributes };
    if (domain === "") explicitEmptyDomain.add(node);
    if (overload !== undefined) node.overload = overload;
    if (doc !== undefined) node.docString = doc;
    if (md) node.metadataProps = md;
    if (devices) node.deviceConfigurations = devices;
    return node;
  }

  attribute(end: number, depth: number): IR.Attribute {
    this.nest(depth);
    const d = depth + 1;
    let name = "";
    let typeId: number | undefined;
    let ref: string | undefined;
    let doc: string | undefined;
    // The value fields, as set: one is used, chosen by the type.
    let f: number | undefined;
    let i: bigint | undefined;
    let s: Uint8Array | undefined;
    let tensor: Tensor | undefined;
    let graph: IR.Graph | undefined;
    let sparse: IR.SparseTensor | undefined;
    let tp: IR.Type | undefined;
    // Lists are made when a field of theirs comes (most attributes hold one scalar); ints and
    // floats gather on the reader's stacks.
    const floats0 = this.floats.top;
    const ints0 = this.ints.top;
    let strings: Uint8Array[] | undefined;
    let tensors: Tensor[] | undefined;
    let graphs: IR.Graph[] | undefined;
    let sparses: IR.SparseTensor[] | undefined;
    let tps: IR.Type[] | undefined;
    while (this.pos < end) {
      const t = this.tag(end);
      const wire = t & 7;
      switch (t >>> 3) {
        case 1:
          if (wire !== LEN) break;
          name = this.string(end);
          continue;
        case 2:
          if (wire !== FIXED32) break;
          f = this.f32(end);
          continue;
        case 3:
          if (wire !== VARINT) break;
          i = this.i64(end);
          continue;
        case 4:
          if (wire !== LEN) break;
          s = this.bytes(end);
          continue;
        case 5:
          if (wire !== LEN) break;
          tensor = this.tensor(this.len(end), d);
          continue;
        case 6:
          if (wire !== LEN) break;
          graph = this.graph(this.len(end), d);
          continue;
        case 7:
          this.packedOr(wire, end, FIXED32, this.f32, this.floats);
          continue;
        case 8:
          this.packedOr(wire, end, VARINT, this.i64, this.ints);
          continue;
        case 9:
          if (wire !== LEN) break;
          (strings ??= []).push(this.bytes(end));
          continue;
        case 10:
          if (wire !== LEN) break;
          (tensors ??= []).push(this.tensor(this.len(end), d));
          continue;
        case 11:
          if (wire !== LEN) break;
          (graphs ??= []).push(this.graph(this.len(end), d));
          continue;
        case 13:
          if (wire !== LEN) break;
          doc = this.string(end);
          continue;
        case 14:
          if (wire !== LEN) break;
          tp = this.type(this.len(end), d);
          continue;
        case 15:
          if (wire !== LEN) break;
          (tps ??= []).push(this.type(this.len(end), d));
          continue;
        case 20:
          if (wire !== VARINT) break;
          typeId = this.i32(end);
          continue;
        case 21:
          if (wire !== LEN) break;
          ref = this.string(end);
          continue;
        case 22:
          if (wire !== LEN) break;
          sparse = this.sparse(this.len(end), d);
          continue;
        case 23:
          if (wire !== LEN) break;
          (sparses ??= []).push(this.sparse(this.len(end), d));
          continue;
      }
      this.skip(wire, end, 0);
    }
    const floats = this.floats.take(floats0);
    const ints = this.ints.take(ints0);
    let type: IR.AttrType =
      typeId !== undefined ? (ATTR_TYPES[typeId] ?? "UNDEFINED") : "UNDEFINED";
    if (type === "UNDEFINED") {
      // IR version 1 attributes carry no type field: the field that is set tells it.
      if (f !== undefined) type = "FLOAT";
      else if (i !== undefined) type = "INT";
      else if (s !== undefined) type = "STRING";
      else if (tensor) type = "TENSOR";
      else if (graph) type = "GRAPH";
      else if (sparse) type = "SPARSE_TENSOR";
      else if (tp) type = "TYPE_PROTO";
      else if (floats.length) type = "FLOATS";
      else if (ints.length) type = "INTS";
      else if (strings?.length) type = "STRINGS";
      else if (tensors?.length) type = "TENSORS";
      else if (graphs?.length) type = "GRAPHS";
      else if (sparses?.length) type = "SPARSE_TENSORS";
      else if (tps?.length) type = "TYPE_PROTOS";
    }
    const attr: { name: string; type: IR.AttrType; value: unknown } & Partial<IR.Attribute> = {
      name,
      type,
      value: undefined,
    };
    if (ref !== undefined) attr.refAttrName = ref;
    else
      switch (type) {
        case "FLOAT":
          attr.value = f ?? 0;
          break;
        case "INT":
          attr.value = i ?? 0n;
          break;
        case "STRING":
          attr.value = s ? utf8.decode(s) : "";
          break;
        case "TENSOR":
          attr.value = tensor ?? new Tensor(0, [], { kind: "none" });
          break;
        case "GRAPH":
          attr.value = graph ?? emptyGraph();
          break;
        case "SPARSE_TENSOR":
          attr.value = sparse ?? emptySparse();
          break;
        case "TYPE_PROTO":
          attr.value = tp ?? { kind: "none" };
          break;
        case "FLOATS":
          attr.value = floats;
          break;
        case "INTS":
          attr.value = ints;
          break;
        case "STRINGS":
          attr.value = (strings ?? []).map((b) => utf8.decode(b));
          break;
        case "TENSORS":
          attr.value = tensors ?? [];
          break;
        case "GRAPHS":
          attr.value = graphs ?? [];
          break;
        case "SPARSE_TENSORS":
          attr.value = sparses ?? [];
          break;
        case "TYPE_PROTOS":
          attr.value = tps ?? [];
          break;
        case "UNDEFINED":
          break;
      }
    if (doc !== undefined) attr.docString = doc;
    return attr as IR.Attribute;
  }

  valueInfo(end: number, depth: number): IR.ValueInfo {
    this.nest(depth);
    const vi: IR.ValueInfo = { name: "" };
    let type: IR.Type | undefined;
    let doc: string | undefined;
    let md: IR.MetadataProps | undefined;
    while (this.pos < end) {
      const t = this.tag(end);
      const wire = t & 7;
      if (wire === LEN)
        switch (t >>> 3) {
          case 1:
            vi.name = this.string(end);
            continue;
          case 2:
            type = this.type(this.len(end), depth + 1);
            continue;
          case 3:
            doc = this.string(end);
            continue;
          case 4:
            (md ??= []).push(this.entry(this.len(end)));
            continue;
        }
      this.skip(wire, end, 0);
    }
    if (type) vi.type = type;
    if (doc !== undefined) vi.docString = doc;
    if (md) vi.metadataProps = md;
    return vi;
  }

  type(end: number, depth: number): IR.Type {
    this.nest(depth);
    const d = depth + 1;
    let tensor: IR.TensorType | undefined;
    let sparse: IR.TensorType | undefined;
    let sequence: IR.SequenceType | undefined;
    let optional: IR.OptionalType | undefined;
    let map: IR.MapType | undefined;
    let opaque: IR.OpaqueType | undefined;
    let denotation: string | undefined;
    while (this.pos < end) {
      const t = this.tag(end);
      const wire = t & 7;
      if (wire === LEN)
        switch (t >>> 3) {
          case 1:
            tensor = this.tensorType("tensor", this.len(end), d);
            continue;
          case 8:
            sparse = this.tensorType("sparse_tensor", this.len(end), d);
            continue;
          case 4:
          case 9: {
            const kind = t >>> 3 === 4 ? "sequence" : "optional";
            const stop = this.len(end);
            this.nest(d);
            const out: IR.SequenceType | IR.OptionalType = { kind };
            while (this.pos < stop) {
              const u = this.tag(stop);
              if (u >>> 3 === 1 && (u & 7) === LEN) out.elem = this.type(this.len(stop), d + 1);
              else this.skip(u & 7, stop, 0);
            }
            if (kind === "sequence") sequence = out as IR.SequenceType;
            else optional = out as IR.OptionalType;
            continue;
          }
          case 5: {
            const stop = this.len(end);
            this.nest(d);
            const out: IR.MapType = { kind: "map", keyType: 0 };
            while (this.pos < stop) {
              const u = this.tag(stop);
              if (u >>> 3 === 1 && (u & 7) === VARINT) out.keyType = this.i32(stop);
              else if (u >>> 3 === 2 && (u & 7) === LEN)
                out.value = this.type(this.len(stop), d + 1);
              else this.skip(u & 7, stop, 0);
            }
            map = out;
            continue;
          }
          case 6:
            denotation = this.string(end);
            continue;
          case 7: {
            const stop = this.len(end);
            this.nest(d);
            const out: IR.OpaqueType = { kind: "opaque" };
            while (this.pos < stop) {
              const u = this.tag(stop);
              if (u >>> 3 === 1 && (u & 7) === LEN) out.domain = this.string(stop);
              else if (u >>> 3 === 2 && (u & 7) === LEN) out.name = this.string(stop);
              else this.skip(u & 7, stop, 0);
            }
            opaque = out;
            continue;
          }
        }
      this.skip(wire, end, 0);
    }
    // Several kinds set at once (a malformed oneof): the first of this order wins.
    const out: IR.Type = sparse ??
      tensor ??
      sequence ??
      optional ??
      map ??
      opaque ?? { kind: "none" };
    if (denotation !== undefined) out.denotation = denotation;
    return out;
  }

  private tensorType(kind: "tensor" | "sparse_tensor", end: number, depth: number): IR.TensorType {
    this.nest(depth);
    const out: IR.TensorType = { kind, elemType: 0 };
    while (this.pos < end) {
      const t = this.tag(end);
      const wire = t & 7;
      const f = t >>> 3;
      if (f === 1 && wire === VARINT) out.elemType = this.i32(end);
      else if (f === 2 && wire === LEN) this.shape(out, this.len(end), depth + 1);
      else this.skip(wire, end, 0);
    }
    return out;
  }

  private shape(out: IR.TensorType, end: number, depth: number): void {
    this.nest(depth);
    const stack = this.shapeDims;
    const base = stack.top;
    let denotations: (string | undefined)[] | undefined;
    while (this.pos < end) {
      const t = this.tag(end);
      if (t >>> 3 !== 1 || (t & 7) !== LEN) {
        this.skip(t & 7, end, 0);
        continue;
      }
      const stop = this.len(end);
      this.nest(depth + 1);
      let dim: IR.Dim = null;
      let denotation: string | undefined;
      while (this.pos < stop) {
        const u = this.tag(stop);
        const wire = u & 7;
        const f = u >>> 3;
        if (f === 1 && wire === VARINT) dim = this.i64num(stop);
        else if (f === 2 && wire === LEN) dim = this.string(stop);
        else if (f === 3 && wire === LEN) denotation = this.string(stop);
        else this.skip(wire, stop, 0);
      }
      const i = stack.top - base;
      if (denotation !== undefined) (denotations ??= new Array(i))[i] = denotation;
      stack.push(dim);
    }
    const dims = stack.take(base);
    // A shape message given twice adds its dims (protobuf merges messages).
    out.shape = out.shape ? [...out.shape, ...dims] : dims;
    if (denotations) {
      denotations.length = dims.length;
      out.dimDenotations = denotations;
    }
  }

  tensor(end: number, depth: number): Tensor {
    this.nest(depth);
    const dimStack = this.dims;
    const dims0 = dimStack.top;
    let dataType = 0;
    let name: string | undefined;
    let doc: string | undefined;
    let md: IR.MetadataProps | undefined;
    let location = 0;
    let raw: Uint8Array | undefined;
    let lazy: ByteRange | undefined;
    let external: IR.MetadataProps | undefined;
    let floats: number[] | undefined;
    let int32s: number[] | undefined;
    let strings: Uint8Array[] | undefined;
    let int64s: bigint[] | undefined;
    let doubles: number[] | undefined;
    let uint64s: bigint[] | undefined;
    let segment: { begin?: bigint; end?: bigint } | undefined;
    while (this.pos < end) {
      const t = this.tag(end);
      const wire = t & 7;
      switch (t >>> 3) {
        case 1:
          if (wire === LEN) {
            const stop = this.len(end);
            while (this.pos < stop) dimStack.push(this.i64num(stop));
          } else if (wire === VARINT) dimStack.push(this.i64num(end));
          else break;
          continue;
        case 2:
          if (wire !== VARINT) break;
          dataType = this.i32(end);
          continue;
        case 3: {
          if (wire !== LEN) break;
          const stop = this.len(end);
          this.nest(depth + 1);
          segment = {};
          while (this.pos < stop) {
            const u = this.tag(stop);
            if (u >>> 3 === 1 && (u & 7) === VARINT) segment.begin = this.i64(stop);
            else if (u >>> 3 === 2 && (u & 7) === VARINT) segment.end = this.i64(stop);
            else this.skip(u & 7, stop, 0);
          }
          continue;
        }
        case 4:
          this.packedOr(wire, end, FIXED32, this.f32, (floats ??= []));
          continue;
        case 5:
          this.packedOr(wire, end, VARINT, this.i32, (int32s ??= []));
          continue;
        case 6:
          if (wire !== LEN) break;
          (strings ??= []).push(this.bytes(end));
          continue;
        case 7:
          this.packedOr(wire, end, VARINT, this.i64, (int64s ??= []));
          continue;
        case 8:
          if (wire !== LEN) break;
          name = this.string(end);
          continue;
        case 9:
          if (wire !== LEN) break;
          raw = this.bytes(end);
          lazy = undefined;
          continue;
        case HOLE_FIELD: {
          // Raw data left in the file by a ranged read: the last raw data given wins, as above.
          if (wire !== VARINT || !this.holes) break;
          lazy = this.holes[this.u32(end)];
          raw = undefined;
          continue;
        }
        case 10:
          this.packedOr(wire, end, FIXED64, this.f64, (doubles ??= []));
          continue;
        case 11:
          this.packedOr(wire, end, VARINT, this.u64big, (uint64s ??= []));
          continue;
        case 12:
          if (wire !== LEN) break;
          doc = this.string(end);
          continue;
        case 13:
          if (wire !== LEN) break;
          (external ??= []).push(this.entry(this.len(end)));
          continue;
        case 14:
          if (wire !== VARINT) break;
          location = this.i32(end);
          continue;
        case 16:
          if (wire !== LEN) break;
          (md ??= []).push(this.entry(this.len(end)));
          continue;
      }
      this.skip(wire, end, 0);
    }
    const dims = dimStack.take(dims0);
    let data: TensorData;
    if (location === 1) {
      this.external++;
      data = {
        kind: "external",
        entries: external ?? [],
        ...(this.baseDir !== undefined ? { baseDir: this.baseDir } : {}),
      };
    } else if (lazy) data = { kind: "lazy", range: lazy };
    else if (raw) data = { kind: "raw", bytes: raw };
    else if (floats?.length) data = { kind: "float", values: Float32Array.from(floats) };
    else if (int32s?.length) data = { kind: "int32", values: Int32Array.from(int32s) };
    else if (strings?.length) data = { kind: "string", values: strings };
    else if (int64s?.length) data = { kind: "int64", values: BigInt64Array.from(int64s) };
    else if (doubles?.length) data = { kind: "double", values: Float64Array.from(doubles) };
    else if (uint64s?.length) data = { kind: "uint64", values: BigUint64Array.from(uint64s) };
    else data = { kind: "none" };
    const tensor = new Tensor(dataType, dims, data, name ?? "");
    if (name === "") explicitEmptyName.add(tensor);
    if (doc !== undefined) tensor.docString = doc;
    if (md) tensor.metadataProps = md;
    if (segment) tensor.segment = segment;
    return tensor;
  }

  sparse(end: number, depth: number): IR.SparseTensor {
    this.nest(depth);
    const out = emptySparse();
    while (this.pos < end) {
      const t = this.tag(end);
      const wire = t & 7;
      const f = t >>> 3;
      if (f === 1 && wire === LEN) out.values = this.tensor(this.len(end), depth + 1);
      else if (f === 2 && wire === LEN) out.indices = this.tensor(this.len(end), depth + 1);
      else if (f === 3 && wire === LEN) {
        const stop = this.len(end);
        while (this.pos < stop) out.dims.push(this.i64num(stop));
      } else if (f === 3 && wire === VARINT) out.dims.push(this.i64num(end));
      else this.skip(wire, end, 0);
    }
    return out;
  }

  function(end: number, depth: number): IR.Function {
    this.nest(depth);
    const d = depth + 1;
    const fn = emptyFunction();
    let overload: string | undefined;
    let doc: string | undefined;
    let md: IR.MetadataProps | undefined;
    while (this.pos < end) {
      const t = this.tag(end);
      const wire = t & 7;
      if (wire === LEN)
        switch (t >>> 3) {
          case 1:
            fn.name = this.string(end);
            continue;
          case 4:
            fn.inputs.push(this.string(end));
            continue;
          case 5:
            fn.outputs.push(this.string(end));
            continue;
          case 6:
            fn.attributes.push(this.string(end));
            continue;
          case 7:
            fn.nodes.push(this.node(this.len(end), d));
            continue;
          case 8:
            doc = this.string(end);
            continue;
          case 9:
            fn.opsetImports.push(this.opset(this.len(end)));
            continue;
          case 10:
            fn.domain = this.string(end);
            continue;
          case 11:
            fn.attributeProtos.push(this.attribute(this.len(end), d));
            continue;
          case 12:
            fn.valueInfo.push(this.valueInfo(this.len(end), d));
            continue;
          case 13:
            overload = this.string(end);
            continue;
          case 14:
            (md ??= []).push(this.entry(this.len(end)));
            continue;
        }
      this.skip(wire, end, 0);
    }
    if (overload !== undefined) fn.overload = overload;
    if (doc !== undefined) fn.docString = doc;
    if (md) fn.metadataProps = md;
    return fn;
  }
}

function emptySparse(): IR.SparseTensor {
  return {
    values: new Tensor(0, [], { kind: "none" }),
    indices: new Tensor(0, [], { kind: "none" }),
    dims: [],
  };
}

type Decoded = {
  ModelProto: IR.Model;
  TensorProto: Tensor;
  GraphProto: IR.Graph;
  NodeProto: IR.Node;
};

/** Decodes one message of the given type into IR; failures are one-line OnnxErrors. */
export interface DecodeOptions {
  /** The folder that external data paths are relative to. */
  baseDir?: string;
  /** The file, for error messages. */
  where?: string;
  /** Filled in with what was found: the number of tensors whose data is external. */
  found?: { external: number };
  /** For a compact model (io/ranged.ts): the ranges of the file its holes stand for. */
  holes?: ByteRange[];
}

export function decodeIR<K extends keyof Decoded>(
  typeName: K,
  bytes: Uint8Array,
  opts: DecodeOptions = {},
): Decoded[K] {
  const r = new Reader(bytes, opts.baseDir);
  r.holes = opts.holes;
  try {
    const end = bytes.length;
    switch (typeName) {
      case "ModelProto": {
        const model = r.model(end);
        if (opts.found) opts.found.external = r.external;
        return model as Decoded[K];
      }
      case "TensorProto":
        return r.tensor(end, 0) as Decoded[K];
      case "GraphProto":
        return r.graph(end, 0) as Decoded[K];
      default:
        return r.node(end, 0) as Decoded[K];
    }
  } catch (e) {
    if (e instanceof OnnxError) throw new OnnxError(e.code, e.message, opts.where);
    if (e instanceof WireError || e instanceof RangeError)
      throw new OnnxError("E_DECODE", describeDecodeError(e, typeName, bytes.length), opts.where);
    throw e;
  }
}
