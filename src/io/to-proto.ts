// IR → plain message objects for the streaming encoder (snake_case fields, bigint int64,
// byte views). Only fields that hold something are set.

import { Tensor } from "../ir/tensor.js";
import type {
  AttrType,
  Attribute,
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
import type { Msg } from "../proto/wire.js";
import { explicitEmptyDomain } from "./from-proto.js";

const ATTR_TYPE_ID: Record<AttrType, number> = {
  UNDEFINED: 0,
  FLOAT: 1,
  INT: 2,
  STRING: 3,
  TENSOR: 4,
  GRAPH: 5,
  FLOATS: 6,
  INTS: 7,
  STRINGS: 8,
  TENSORS: 9,
  GRAPHS: 10,
  SPARSE_TENSOR: 11,
  SPARSE_TENSORS: 12,
  TYPE_PROTO: 13,
  TYPE_PROTOS: 14,
};

const utf8 = new TextEncoder();

function set(m: Msg, field: string, v: unknown): void {
  if (v !== undefined) m[field] = v;
}
function metadata(m: Msg, md: MetadataProps | undefined): void {
  if (md?.length) m.metadata_props = md.map(([key, value]) => ({ key, value }));
}

export interface ToProtoOptions {
  /** Called for each tensor; may return a replacement message (used to write external data). */
  tensorHook?: (t: Tensor, msg: Msg) => Msg;
}

export class ProtoWriter {
  constructor(private readonly opts: ToProtoOptions = {}) {}

  model(m: Model): Msg {
    const out: Msg = {
      ir_version: BigInt(m.irVersion),
      opset_import: m.opsetImports.map((o) => this.opset(o)),
    };
    set(out, "producer_name", m.producerName);
    set(out, "producer_version", m.producerVersion);
    set(out, "domain", m.domain);
    set(out, "model_version", m.modelVersion);
    set(out, "doc_string", m.docString);
    out.graph = this.graph(m.graph);
    metadata(out, m.metadataProps);
    if (m.trainingInfo?.length) out.training_info = m.trainingInfo;
    if (m.functions.length) out.functions = m.functions.map((f) => this.function(f));
    if (m.configuration?.length) out.configuration = m.configuration;
    return out;
  }

  opset(o: OpsetId): Msg {
    return { domain: o.domain, version: BigInt(o.version) };
  }

  graph(g: Graph): Msg {
    const out: Msg = { node: g.nodes.map((n) => this.node(n)) };
    set(out, "name", g.name);
    out.initializer = g.initializers.map((t) => this.tensor(t));
    out.sparse_initializer = g.sparseInitializers.map((t) => this.sparse(t));
    set(out, "doc_string", g.docString);
    out.input = g.inputs.map((v) => this.valueInfo(v));
    out.output = g.outputs.map((v) => this.valueInfo(v));
    out.value_info = g.valueInfo.map((v) => this.valueInfo(v));
    if (g.quantizationAnnotation?.length) out.quantization_annotation = g.quantizationAnnotation;
    metadata(out, g.metadataProps);
    return out;
  }

  node(n: Node): Msg {
    const out: Msg = { input: n.inputs, output: n.outputs };
    set(out, "name", n.name);
    out.op_type = n.opType;
    if (n.domain !== "" || explicitEmptyDomain.has(n)) out.domain = n.domain;
    set(out, "overload", n.overload);
    out.attribute = n.attributes.map((a) => this.attribute(a));
    set(out, "doc_string", n.docString);
    metadata(out, n.metadataProps);
    if (n.deviceConfigurations?.length) out.device_configurations = n.deviceConfigurations;
    return out;
  }

  attribute(a: Attribute): Msg {
    const out: Msg = { name: a.name };
    set(out, "ref_attr_name", a.refAttrName);
    set(out, "doc_string", a.docString);
    out.type = ATTR_TYPE_ID[a.type];
    if (a.value === undefined) return out;
    switch (a.type) {
      case "FLOAT":
        out.f = a.value;
        break;
      case "INT":
        out.i = a.value;
        break;
      case "STRING":
        out.s = utf8.encode(a.value);
        break;
      case "TENSOR":
        out.t = this.tensor(a.value);
        break;
      case "GRAPH":
        out.g = this.graph(a.value);
        break;
      case "SPARSE_TENSOR":
        out.sparse_tensor = this.sparse(a.value);
        break;
      case "TYPE_PROTO":
        out.tp = this.type(a.value);
        break;
      case "FLOATS":
        out.floats = a.value;
        break;
      case "INTS":
        out.ints = a.value;
        break;
      case "STRINGS":
        out.strings = a.value.map((s) => utf8.encode(s));
        break;
      case "TENSORS":
        out.tensors = a.value.map((t) => this.tensor(t));
        break;
      case "GRAPHS":
        out.graphs = a.value.map((g) => this.graph(g));
        break;
      case "SPARSE_TENSORS":
        out.sparse_tensors = a.value.map((t) => this.sparse(t));
        break;
      case "TYPE_PROTOS":
        out.type_protos = a.value.map((t) => this.type(t));
        break;
    }
    return out;
  }

  valueInfo(v: ValueInfo): Msg {
    const out: Msg = { name: v.name };
    if (v.type) out.type = this.type(v.type);
    set(out, "doc_string", v.docString);
    metadata(out, v.metadataProps);
    return out;
  }

  type(t: Type): Msg {
    const out: Msg = {};
    switch (t.kind) {
      case "tensor":
      case "sparse_tensor": {
        const tt: Msg = { elem_type: t.elemType };
        if (t.shape)
          tt.shape = {
            dim: t.shape.map((d, i) => {
              const dim: Msg = {};
              if (typeof d === "number") dim.dim_value = BigInt(d);
              else if (typeof d === "string") dim.dim_param = d;
              set(dim, "denotation", t.dimDenotations?.[i]);
              return dim;
            }),
          };
        out[t.kind === "tensor" ? "tensor_type" : "sparse_tensor_type"] = tt;
        break;
      }
      case "sequence":
        out.sequence_type = t.elem ? { elem_type: this.type(t.elem) } : {};
        break;
      case "optional":
        out.optional_type = t.elem ? { elem_type: this.type(t.elem) } : {};
        break;
      case "map":
        out.map_type = {
          key_type: t.keyType,
          ...(t.value ? { value_type: this.type(t.value) } : {}),
        };
        break;
      case "opaque": {
        const o: Msg = {};
        set(o, "domain", t.domain);
        set(o, "name", t.name);
        out.opaque_type = o;
        break;
      }
      case "none":
        break;
    }
    set(out, "denotation", t.denotation);
    return out;
  }

  tensor(t: Tensor): Msg {
    const out: Msg = { dims: t.dims.map((d) => BigInt(d)), data_type: t.dataType };
    if (t.segment) {
      const seg: Msg = {};
      set(seg, "begin", t.segment.begin);
      set(seg, "end", t.segment.end);
      out.segment = seg;
    }
    if (t.name !== "") out.name = t.name;
    set(out, "doc_string", t.docString);
    const d = t.data;
    switch (d.kind) {
      case "raw":
        out.raw_data = d.bytes;
        break;
      case "float":
        out.float_data = d.values;
        break;
      case "int32":
        out.int32_data = d.values;
        break;
      case "int64":
        out.int64_data = d.values;
        break;
      case "double":
        out.double_data = d.values;
        break;
      case "uint64":
        out.uint64_data = d.values;
        break;
      case "string":
        out.string_data = d.values;
        break;
      case "external":
        out.external_data = d.entries.map(([key, value]) => ({ key, value }));
        out.data_location = 1;
        break;
      case "none":
        break;
    }
    metadata(out, t.metadataProps);
    return this.opts.tensorHook ? this.opts.tensorHook(t, out) : out;
  }

  sparse(s: SparseTensor): Msg {
    return {
      values: this.tensor(s.values),
      indices: this.tensor(s.indices),
      dims: s.dims.map((d) => BigInt(d)),
    };
  }

  function(f: Function): Msg {
    const out: Msg = { name: f.name, input: f.inputs, output: f.outputs, attribute: f.attributes };
    out.attribute_proto = f.attributeProtos.map((a) => this.attribute(a));
    out.node = f.nodes.map((n) => this.node(n));
    set(out, "doc_string", f.docString);
    out.opset_import = f.opsetImports.map((o) => this.opset(o));
    out.domain = f.domain;
    set(out, "overload", f.overload);
    out.value_info = f.valueInfo.map((v) => this.valueInfo(v));
    metadata(out, f.metadataProps);
    return out;
  }
}

export { Tensor };
