// Canonical form of IR for comparing a model with its text round trip: what the text syntax can
// carry, with tensor data as bytes (bit-exact) whatever field held it.

import type { Tensor } from "../../src/ir/tensor.js";
import { DataType } from "../../src/ir/types.js";
import type {
  Attribute,
  Function,
  Graph,
  Model,
  Node,
  SparseTensor,
  Type,
  ValueInfo,
} from "../../src/ir/types.js";
import { tensorBytes, tensorStrings } from "../../src/text/values.js";

const hex = (b: Uint8Array): string =>
  Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");

export function canonTensor(t: Tensor): unknown {
  let data: unknown;
  if (t.data.kind === "external") data = { external: t.data.entries };
  else if (t.data.kind === "string" || t.dataType === DataType.STRING)
    data = { strings: tensorStrings(t) };
  else data = { bytes: hex(tensorBytes(t)!) };
  return { name: t.name, dataType: t.dataType, dims: [...t.dims], data };
}

function canonSparse(s: SparseTensor): unknown {
  return { values: canonTensor(s.values), indices: canonTensor(s.indices), dims: [...s.dims] };
}

export function canonType(t: Type | undefined): unknown {
  if (!t || t.kind === "none") return undefined;
  switch (t.kind) {
    case "tensor":
    case "sparse_tensor":
      return { kind: t.kind, elemType: t.elemType, shape: t.shape ? [...t.shape] : undefined };
    case "sequence":
    case "optional":
      return { kind: t.kind, elem: canonType(t.elem) };
    case "map":
      return { kind: "map", keyType: t.keyType, value: canonType(t.value) };
    case "opaque":
      return { kind: "opaque", domain: t.domain || undefined, name: t.name || undefined };
  }
}

function canonVi(v: ValueInfo): unknown {
  return { name: v.name, type: canonType(v.type) };
}

function canonAttr(a: Attribute): unknown {
  const out: Record<string, unknown> = { name: a.name, type: a.type };
  if (a.refAttrName !== undefined) out.ref = a.refAttrName;
  else if (a.value !== undefined) {
    switch (a.type) {
      case "TENSOR":
        out.value = canonTensor(a.value);
        break;
      case "TENSORS":
        out.value = a.value.map(canonTensor);
        break;
      case "GRAPH":
        out.value = canonGraph(a.value);
        break;
      case "GRAPHS":
        out.value = a.value.map(canonGraph);
        break;
      case "SPARSE_TENSOR":
        out.value = canonSparse(a.value);
        break;
      case "SPARSE_TENSORS":
        out.value = a.value.map(canonSparse);
        break;
      case "TYPE_PROTO":
        out.value = canonType(a.value);
        break;
      case "TYPE_PROTOS":
        out.value = a.value.map(canonType);
        break;
      case "FLOAT":
        out.value = Object.is(a.value, -0) ? "-0" : Number.isNaN(a.value) ? "NaN" : a.value;
        break;
      case "FLOATS":
        out.value = a.value.map((x) => (Object.is(x, -0) ? "-0" : Number.isNaN(x) ? "NaN" : x));
        break;
      default:
        out.value = a.value;
    }
  }
  return out;
}

function canonNode(n: Node): unknown {
  return {
    name: n.name,
    opType: n.opType,
    domain: n.domain,
    overload: n.overload || undefined,
    inputs: [...n.inputs],
    outputs: [...n.outputs],
    attributes: n.attributes.map(canonAttr),
  };
}

export function canonGraph(g: Graph): unknown {
  return {
    name: g.name ?? "",
    inputs: g.inputs.map(canonVi),
    outputs: g.outputs.map(canonVi),
    initializers: g.initializers.map(canonTensor),
    sparseInitializers: g.sparseInitializers.map(canonSparse),
    valueInfo: g.valueInfo.map(canonVi),
    nodes: g.nodes.map(canonNode),
  };
}

export function canonFunction(f: Function): unknown {
  return {
    name: f.name,
    domain: f.domain,
    overload: f.overload,
    inputs: [...f.inputs],
    outputs: [...f.outputs],
    attributes: [...f.attributes],
    attributeProtos: f.attributeProtos.map(canonAttr),
    opsetImports: f.opsetImports.map((o) => ({ ...o })),
    valueInfo: f.valueInfo.map(canonVi),
    metadataProps: f.metadataProps,
    nodes: f.nodes.map(canonNode),
  };
}

/** What the text syntax carries of a model (doc strings dropped). */
export function canonModel(m: Model): unknown {
  return {
    irVersion: m.irVersion,
    opsetImports: m.opsetImports.map((o) => ({ ...o })),
    producerName: m.producerName,
    producerVersion: m.producerVersion,
    domain: m.domain,
    modelVersion: m.modelVersion,
    metadataProps: m.metadataProps,
    graph: canonGraph(m.graph),
    functions: m.functions.map(canonFunction),
  };
}
