// Decoded protobuf messages → IR. Nothing a message holds is dropped.

import Long from "long";
import { OnnxError } from "../errors.js";
import { emptyGraph } from "../ir/builder.js";
import { Tensor, type TensorData } from "../ir/tensor.js";
import type * as IR from "../ir/types.js";
import { has, type Msg } from "../proto/wire.js";
import { ATTR_FIELDS, ATTR_TYPE_BY_ID, type ScalarAttrType } from "./attr-fields.js";

/**
 * Nodes whose file spelled out an empty domain. The IR uses "" for ai.onnx either way; this lets the
 * encoder write the field back so that decoding and re-encoding a file gives the same bytes.
 */
export const explicitEmptyDomain = new WeakSet<IR.Node>();

export interface FromProtoOptions {
  /** Folder that external-data locations are relative to. */
  baseDir?: string;
}

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

/** The doc_string and metadata_props most messages carry, onto their IR object. */
function docAndMetadata(
  target: { docString?: string; metadataProps?: IR.MetadataProps },
  m: Msg,
): void {
  opt(target, "docString", m, "doc_string", String);
  const list = m.metadata_props as Msg[] | undefined;
  if (list?.length) target.metadataProps = list.map((e) => [e.key ?? "", e.value ?? ""]);
}

/** What a node and a function both name: a domain, and their inputs and outputs. */
function domainAndIo(m: Msg): Pick<IR.Node, "domain" | "inputs" | "outputs"> {
  return { domain: m.domain ?? "", inputs: [...m.input], outputs: [...m.output] };
}

export class ProtoReader {
  constructor(private readonly opts: FromProtoOptions = {}) {}

  model(m: Msg): IR.Model {
    if (!has(m, "graph")) throw new OnnxError("E_DECODE", "not an ONNX model: it has no graph");
    const model: IR.Model = {
      irVersion: has(m, "ir_version") ? numOf(m.ir_version) : 0,
      opsetImports: (m.opset_import as Msg[]).map((o) => this.opset(o)),
      graph: this.graph(m.graph),
      functions: (m.functions as Msg[]).map((f) => this.function(f)),
    };
    opt(model, "producerName", m, "producer_name", String);
    opt(model, "producerVersion", m, "producer_version", String);
    opt(model, "domain", m, "domain", String);
    opt(model, "modelVersion", m, "model_version", bigOf);
    docAndMetadata(model, m);
    if (m.training_info?.length) model.trainingInfo = m.training_info;
    if (m.configuration?.length) model.configuration = m.configuration;
    return model;
  }

  opset(o: Msg): IR.OpsetId {
    return { domain: o.domain ?? "", version: has(o, "version") ? numOf(o.version) : 0 };
  }

  /** What a graph and a function both hold: nodes, and value_info. */
  private body(m: Msg): Pick<IR.Graph, "nodes" | "valueInfo"> {
    return {
      nodes: (m.node as Msg[]).map((n) => this.node(n)),
      valueInfo: (m.value_info as Msg[]).map((v) => this.valueInfo(v)),
    };
  }

  graph(g: Msg): IR.Graph {
    const graph: IR.Graph = {
      ...this.body(g),
      inputs: (g.input as Msg[]).map((v) => this.valueInfo(v)),
      outputs: (g.output as Msg[]).map((v) => this.valueInfo(v)),
      initializers: (g.initializer as Msg[]).map((t) => this.tensor(t)),
      sparseInitializers: (g.sparse_initializer as Msg[]).map((t) => this.sparse(t)),
    };
    opt(graph, "name", g, "name", String);
    docAndMetadata(graph, g);
    if (g.quantization_annotation?.length) graph.quantizationAnnotation = g.quantization_annotation;
    return graph;
  }

  node(n: Msg): IR.Node {
    const node: IR.Node = {
      opType: n.op_type ?? "",
      ...domainAndIo(n),
      attributes: (n.attribute as Msg[]).map((a) => this.attribute(a)),
    };
    if (has(n, "domain") && n.domain === "") explicitEmptyDomain.add(node);
    opt(node, "name", n, "name", String);
    opt(node, "overload", n, "overload", String);
    docAndMetadata(node, n);
    if (n.device_configurations?.length) node.deviceConfigurations = n.device_configurations;
    return node;
  }

  attribute(a: Msg): IR.Attribute {
    let type: IR.AttrType = has(a, "type") ? (ATTR_TYPE_BY_ID[a.type] ?? "UNDEFINED") : "UNDEFINED";
    if (type === "UNDEFINED") type = inferAttrType(a);
    const attr: any = { name: a.name ?? "", type, value: undefined };
    if (has(a, "ref_attr_name")) attr.refAttrName = a.ref_attr_name;
    else attr.value = this.attrValue(type, a);
    opt(attr, "docString", a, "doc_string", String);
    return attr as IR.Attribute;
  }

  private attrValue(type: IR.AttrType, a: Msg): unknown {
    const { field, element, list } = ATTR_FIELDS[type];
    if (!field || !element) return undefined;
    const one = this.attrElement(element);
    if (list) return Array.from(a[field] as ArrayLike<unknown>, (v) => one(v));
    if (has(a, field)) return one(a[field]);
    // An absent value: the type's zero, as protobuf reads a field that is not there.
    switch (element) {
      case "FLOAT":
        return 0;
      case "INT":
        return 0n;
      case "STRING":
        return "";
      case "TENSOR":
        return new Tensor(0, [], { kind: "none" });
      case "GRAPH":
        return emptyGraph();
      default:
        return one({});
    }
  }

  /** How one element of an attribute of the type is read. */
  private attrElement(t: ScalarAttrType): (v: any) => unknown {
    switch (t) {
      case "FLOAT":
        return (v: number) => v;
      case "INT":
        return bigOf;
      case "STRING":
        return str;
      case "TENSOR":
        return (v: Msg) => this.tensor(v);
      case "GRAPH":
        return (v: Msg) => this.graph(v);
      case "SPARSE_TENSOR":
        return (v: Msg) => this.sparse(v);
      case "TYPE_PROTO":
        return (v: Msg) => this.type(v);
    }
  }

  valueInfo(v: Msg): IR.ValueInfo {
    const vi: IR.ValueInfo = { name: v.name ?? "" };
    opt(vi, "type", v, "type", (t) => this.type(t));
    docAndMetadata(vi, v);
    return vi;
  }

  type(t: Msg): IR.Type {
    let out: IR.Type;
    if (has(t, "tensor_type") || has(t, "sparse_tensor_type")) {
      const sparse = has(t, "sparse_tensor_type");
      const tt = sparse ? t.sparse_tensor_type : t.tensor_type;
      out = { kind: sparse ? "sparse_tensor" : "tensor", elemType: tt.elem_type ?? 0 };
      if (has(tt, "shape")) {
        const dims = tt.shape.dim as Msg[];
        out.shape = dims.map((d): IR.Dim =>
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
    docAndMetadata(tensor, t);
    if (has(t, "segment")) {
      tensor.segment = {};
      if (has(t.segment, "begin")) tensor.segment.begin = bigOf(t.segment.begin);
      if (has(t.segment, "end")) tensor.segment.end = bigOf(t.segment.end);
    }
    return tensor;
  }

  sparse(s: Msg): IR.SparseTensor {
    return {
      values: has(s, "values") ? this.tensor(s.values) : new Tensor(0, [], { kind: "none" }),
      indices: has(s, "indices") ? this.tensor(s.indices) : new Tensor(0, [], { kind: "none" }),
      dims: ((s.dims ?? []) as unknown[]).map(numOf),
    };
  }

  function(f: Msg): IR.Function {
    const fn: IR.Function = {
      name: f.name ?? "",
      ...domainAndIo(f),
      attributes: [...f.attribute],
      attributeProtos: (f.attribute_proto as Msg[]).map((a) => this.attribute(a)),
      opsetImports: (f.opset_import as Msg[]).map((o) => this.opset(o)),
      ...this.body(f),
    };
    opt(fn, "overload", f, "overload", String);
    docAndMetadata(fn, f);
    return fn;
  }
}

/**
 * IR version 1 attributes carry no type field: infer it from the field that is set, a single
 * value before a list.
 */
function inferAttrType(a: Msg): IR.AttrType {
  const types = ATTR_TYPE_BY_ID.filter((t) => ATTR_FIELDS[t].field);
  const one = types.find((t) => !ATTR_FIELDS[t].list && has(a, ATTR_FIELDS[t].field!));
  const many = types.find((t) => ATTR_FIELDS[t].list && a[ATTR_FIELDS[t].field!]?.length);
  return one ?? many ?? "UNDEFINED";
}
