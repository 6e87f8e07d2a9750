// Decoded protobuf messages → IR. Nothing a message holds is dropped.

import Long from "long";
import { OnnxError } from "../errors.js";
import { emptyGraph } from "../ir/builder.js";
import { Tensor, type TensorData } from "../ir/tensor.js";
import type {
  AttrType,
  Attribute,
  Dim,
  Function,
  Graph,
  MetadataProps,
  Model,
  Node,
  OpsetId,
  SparseTensor,
  Type,
  ValueInfo,
} from "../ir/types.js";
import { has, type Msg } from "../proto/wire.js";

/**
 * Nodes whose file spelled out an empty domain. The IR uses "" for ai.onnx either way; this lets the
 * encoder write the field back so that decoding and re-encoding a file gives the same bytes.
 */
export const explicitEmptyDomain = new WeakSet<Node>();

export interface FromProtoOptions {
  /** Folder that external-data locations are relative to. */
  baseDir?: string;
}

const ATTR_TYPES: AttrType[] = [
  "UNDEFINED",
  "FLOAT",
  "INT",
  "STRING",
  "TENSOR",
  "GRAPH",
  "FLOATS",
  "INTS",
  "STRINGS",
  "TENSORS",
  "GRAPHS",
  "SPARSE_TENSOR",
  "SPARSE_TENSORS",
  "TYPE_PROTO",
  "TYPE_PROTOS",
];

export function bigOf(v: unknown): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return BigInt(v);
  if (Long.isLong(v)) return BigInt((v as Long).toString());
  return BigInt(String(v));
}
function numOf(v: unknown): number {
  if (typeof v === "number") return v;
  if (Long.isLong(v)) return (v as Long).toNumber();
  return Number(v);
}

const utf8 = new TextDecoder();
const str = (b: Uint8Array): string => utf8.decode(b);

function opt<T extends object, K extends string, V>(
  target: T,
  key: K,
  m: Msg,
  field: string,
  f: (v: any) => V,
): void {
  if (has(m, field)) (target as any)[key] = f(m[field]);
}

function metadata(m: Msg): MetadataProps | undefined {
  const list = m.metadata_props as Msg[] | undefined;
  if (!list || list.length === 0) return undefined;
  return list.map((e) => [e.key ?? "", e.value ?? ""]);
}

export class ProtoReader {
  constructor(private readonly opts: FromProtoOptions = {}) {}

  model(m: Msg): Model {
    if (!has(m, "graph")) throw new OnnxError("E_DECODE", "not an ONNX model: it has no graph");
    const model: Model = {
      irVersion: has(m, "ir_version") ? numOf(m.ir_version) : 0,
      opsetImports: (m.opset_import as Msg[]).map((o) => this.opset(o)),
      graph: this.graph(m.graph),
      functions: (m.functions as Msg[]).map((f) => this.function(f)),
    };
    opt(model, "producerName", m, "producer_name", String);
    opt(model, "producerVersion", m, "producer_version", String);
    opt(model, "domain", m, "domain", String);
    opt(model, "modelVersion", m, "model_version", bigOf);
    opt(model, "docString", m, "doc_string", String);
    const md = metadata(m);
    if (md) model.metadataProps = md;
    if (m.training_info?.length) model.trainingInfo = m.training_info;
    if (m.configuration?.length) model.configuration = m.configuration;
    return model;
  }

  opset(o: Msg): OpsetId {
    return { domain: o.domain ?? "", version: has(o, "version") ? numOf(o.version) : 0 };
  }

  graph(g: Msg): Graph {
    const graph: Graph = {
      nodes: (g.node as Msg[]).map((n) => this.node(n)),
      inputs: (g.input as Msg[]).map((v) => this.valueInfo(v)),
      outputs: (g.output as Msg[]).map((v) => this.valueInfo(v)),
      initializers: (g.initializer as Msg[]).map((t) => this.tensor(t)),
      sparseInitializers: (g.sparse_initializer as Msg[]).map((t) => this.sparse(t)),
      valueInfo: (g.value_info as Msg[]).map((v) => this.valueInfo(v)),
    };
    opt(graph, "name", g, "name", String);
    opt(graph, "docString", g, "doc_string", String);
    if (g.quantization_annotation?.length) graph.quantizationAnnotation = g.quantization_annotation;
    const md = metadata(g);
    if (md) graph.metadataProps = md;
    return graph;
  }

  node(n: Msg): Node {
    const node: Node = {
      opType: n.op_type ?? "",
      domain: n.domain ?? "",
      inputs: [...n.input],
      outputs: [...n.output],
      attributes: (n.attribute as Msg[]).map((a) => this.attribute(a)),
    };
    if (has(n, "domain") && n.domain === "") explicitEmptyDomain.add(node);
    opt(node, "name", n, "name", String);
    opt(node, "overload", n, "overload", String);
    opt(node, "docString", n, "doc_string", String);
    const md = metadata(n);
    if (md) node.metadataProps = md;
    if (n.device_configurations?.length) node.deviceConfigurations = n.device_configurations;
    return node;
  }

  attribute(a: Msg): Attribute {
    let type: AttrType = has(a, "type") ? (ATTR_TYPES[a.type] ?? "UNDEFINED") : "UNDEFINED";
    if (type === "UNDEFINED") type = inferAttrType(a);
    const attr: any = { name: a.name ?? "", type, value: undefined };
    if (has(a, "ref_attr_name")) attr.refAttrName = a.ref_attr_name;
    else attr.value = this.attrValue(type, a);
    opt(attr, "docString", a, "doc_string", String);
    return attr as Attribute;
  }

  private attrValue(type: AttrType, a: Msg): unknown {
    switch (type) {
      case "FLOAT":
        return has(a, "f") ? a.f : 0;
      case "INT":
        return has(a, "i") ? bigOf(a.i) : 0n;
      case "STRING":
        return has(a, "s") ? str(a.s) : "";
      case "TENSOR":
        return has(a, "t") ? this.tensor(a.t) : new Tensor(0, [], { kind: "none" });
      case "GRAPH":
        return has(a, "g") ? this.graph(a.g) : emptyGraph();
      case "SPARSE_TENSOR":
        return this.sparse(a.sparse_tensor ?? {});
      case "TYPE_PROTO":
        return this.type(a.tp ?? {});
      case "FLOATS":
        return [...a.floats];
      case "INTS":
        return (a.ints as unknown[]).map(bigOf);
      case "STRINGS":
        return (a.strings as Uint8Array[]).map(str);
      case "TENSORS":
        return (a.tensors as Msg[]).map((t) => this.tensor(t));
      case "GRAPHS":
        return (a.graphs as Msg[]).map((g) => this.graph(g));
      case "SPARSE_TENSORS":
        return (a.sparse_tensors as Msg[]).map((t) => this.sparse(t));
      case "TYPE_PROTOS":
        return (a.type_protos as Msg[]).map((t) => this.type(t));
      case "UNDEFINED":
        return undefined;
    }
  }

  valueInfo(v: Msg): ValueInfo {
    const vi: ValueInfo = { name: v.name ?? "" };
    opt(vi, "type", v, "type", (t) => this.type(t));
    opt(vi, "docString", v, "doc_string", String);
    const md = metadata(v);
    if (md) vi.metadataProps = md;
    return vi;
  }

  type(t: Msg): Type {
    let out: Type;
    if (has(t, "tensor_type") || has(t, "sparse_tensor_type")) {
      const sparse = has(t, "sparse_tensor_type");
      const tt = sparse ? t.sparse_tensor_type : t.tensor_type;
      out = { kind: sparse ? "sparse_tensor" : "tensor", elemType: tt.elem_type ?? 0 };
      if (has(tt, "shape")) {
        const dims = tt.shape.dim as Msg[];
        out.shape = dims.map((d): Dim =>
          has(d, "dim_value") ? numOf(d.dim_value) : has(d, "dim_param") ? d.dim_param : null,
        );
        if (dims.some((d) => has(d, "denotation")))
          out.dimDenotations = dims.map((d) => (has(d, "denotation") ? d.denotation : undefined));
      }
    } else if (has(t, "sequence_type")) {
      out = { kind: "sequence" };
      opt(out, "elem", t.sequence_type, "elem_type", (e) => this.type(e));
    } else if (has(t, "optional_type")) {
      out = { kind: "optional" };
      opt(out, "elem", t.optional_type, "elem_type", (e) => this.type(e));
    } else if (has(t, "map_type")) {
      out = { kind: "map", keyType: t.map_type.key_type ?? 0 };
      opt(out, "value", t.map_type, "value_type", (e) => this.type(e));
    } else if (has(t, "opaque_type")) {
      out = { kind: "opaque" };
      opt(out, "domain", t.opaque_type, "domain", String);
      opt(out, "name", t.opaque_type, "name", String);
    } else {
      out = { kind: "none" };
    }
    opt(out, "denotation", t, "denotation", String);
    return out;
  }

  tensor(t: Msg): Tensor {
    const dataType: number = t.data_type ?? 0;
    const dims = (t.dims as unknown[]).map(numOf);
    let data: TensorData;
    if (t.data_location === 1) {
      data = {
        kind: "external",
        entries: (t.external_data as Msg[]).map((e) => [e.key ?? "", e.value ?? ""]),
        ...(this.opts.baseDir !== undefined ? { baseDir: this.opts.baseDir } : {}),
      };
    } else if (has(t, "raw_data")) data = { kind: "raw", bytes: t.raw_data };
    else if (t.float_data?.length)
      data = { kind: "float", values: Float32Array.from(t.float_data) };
    else if (t.int32_data?.length) data = { kind: "int32", values: Int32Array.from(t.int32_data) };
    else if (t.string_data?.length) data = { kind: "string", values: [...t.string_data] };
    else if (t.int64_data?.length)
      data = {
        kind: "int64",
        values: BigInt64Array.from(t.int64_data as unknown[], (v) => BigInt.asIntN(64, bigOf(v))),
      };
    else if (t.double_data?.length)
      data = { kind: "double", values: Float64Array.from(t.double_data) };
    else if (t.uint64_data?.length)
      data = {
        kind: "uint64",
        values: BigUint64Array.from(t.uint64_data as unknown[], (v) =>
          BigInt.asUintN(64, bigOf(v)),
        ),
      };
    else data = { kind: "none" };
    const tensor = new Tensor(dataType, dims, data, t.name ?? "");
    opt(tensor, "docString", t, "doc_string", String);
    const md = metadata(t);
    if (md) tensor.metadataProps = md;
    if (has(t, "segment")) {
      tensor.segment = {};
      if (has(t.segment, "begin")) tensor.segment.begin = bigOf(t.segment.begin);
      if (has(t.segment, "end")) tensor.segment.end = bigOf(t.segment.end);
    }
    return tensor;
  }

  sparse(s: Msg): SparseTensor {
    return {
      values: has(s, "values") ? this.tensor(s.values) : new Tensor(0, [], { kind: "none" }),
      indices: has(s, "indices") ? this.tensor(s.indices) : new Tensor(0, [], { kind: "none" }),
      dims: ((s.dims ?? []) as unknown[]).map(numOf),
    };
  }

  function(f: Msg): Function {
    const fn: Function = {
      name: f.name ?? "",
      domain: f.domain ?? "",
      inputs: [...f.input],
      outputs: [...f.output],
      attributes: [...f.attribute],
      attributeProtos: (f.attribute_proto as Msg[]).map((a) => this.attribute(a)),
      nodes: (f.node as Msg[]).map((n) => this.node(n)),
      opsetImports: (f.opset_import as Msg[]).map((o) => this.opset(o)),
      valueInfo: (f.value_info as Msg[]).map((v) => this.valueInfo(v)),
    };
    opt(fn, "overload", f, "overload", String);
    opt(fn, "docString", f, "doc_string", String);
    const md = metadata(f);
    if (md) fn.metadataProps = md;
    return fn;
  }
}

/** IR version 1 attributes carry no type field: infer it from the field that is set. */
function inferAttrType(a: Msg): AttrType {
  if (has(a, "f")) return "FLOAT";
  if (has(a, "i")) return "INT";
  if (has(a, "s")) return "STRING";
  if (has(a, "t")) return "TENSOR";
  if (has(a, "g")) return "GRAPH";
  if (has(a, "sparse_tensor")) return "SPARSE_TENSOR";
  if (has(a, "tp")) return "TYPE_PROTO";
  if (a.floats?.length) return "FLOATS";
  if (a.ints?.length) return "INTS";
  if (a.strings?.length) return "STRINGS";
  if (a.tensors?.length) return "TENSORS";
  if (a.graphs?.length) return "GRAPHS";
  if (a.sparse_tensors?.length) return "SPARSE_TENSORS";
  if (a.type_protos?.length) return "TYPE_PROTOS";
  return "UNDEFINED";
}
