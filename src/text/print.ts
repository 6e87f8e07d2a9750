// Printer of the ONNX text syntax (onnx/onnx docs/Syntax.md), with a few extensions where the
// syntax has no form for something a model can hold (see src/text/index.ts for the list).

import { OnnxError } from "../errors.js";
import { dtypeInfo } from "../ir/dtype.js";
import type { Tensor } from "../ir/tensor.js";
import type {
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
import { ATTR_TYPE_NAMES, printDotted, printName, quote } from "./syntax.js";
import { elementTexts, formatFloatNumber, scalarCount } from "./values.js";

export interface PrintOptions {
  /** false: tensors of more than ELIDE_LIMIT elements print as `...` (such text does not parse). */
  initializers?: boolean;
  /**
   * true: tensors whose data is not in memory (a range of a large file) print as `...` too, and
   * are not read. Their type and name print as usual.
   */
  elideStored?: boolean;
  /** Each tensor's data is printed as this gives it (used to save external data). */
  tensorHook?: (t: Tensor) => Tensor;
}

/** Tensors with more elements than this are elided when `initializers` is false. */
export const ELIDE_LIMIT = 16;

const STEP = "   ";

export function printModel(model: Model, opts: PrintOptions = {}): string {
  return new Printer(opts).model(model);
}
export function printGraph(graph: Graph, opts: PrintOptions = {}): string {
  return new Printer(opts).graph(graph, "") + "\n";
}
export function printFunction(fn: Function, opts: PrintOptions = {}): string {
  return new Printer(opts).function(fn) + "\n";
}
/** One node statement (subgraphs span several lines). */
export function printNode(node: Node, opts: PrintOptions = {}): string {
  return new Printer(opts).node(node, "");
}
export function printType(type: Type): string {
  return typeText(type);
}
/** One attribute: `name: type = value`. */
export function printAttribute(a: Attribute, opts: PrintOptions = {}): string {
  return new Printer(opts).attribute(a, "");
}
/** A value info: `float[N] name`, or just the name when it has no type. */
export function printValueInfo(v: ValueInfo): string {
  return new Printer({}).valueInfo(v);
}
/** A tensor constant: `float[2] name {1.0, 2.0}`. */
export function printTensor(t: Tensor, opts: PrintOptions = {}): string {
  return new Printer(opts).tensorConstant(t);
}

function elemName(elemType: number): string {
  if (elemType === 0) return "undefined";
  const info = dtypeInfo(elemType);
  if (!info)
    throw new OnnxError("E_UNSUPPORTED", `element type ${elemType} has no name in ONNX text`);
  return info.name;
}

function dimText(d: Dim): string {
  if (d === null) return "?";
  if (typeof d === "number") return String(d);
  return printName(d);
}

function shapeText(shape: Dim[] | undefined): string {
  if (shape === undefined) return "[]";
  if (shape.length === 0) return "";
  return "[" + shape.map(dimText).join(",") + "]";
}

function typeText(t: Type): string {
  switch (t.kind) {
    case "tensor":
      return elemName(t.elemType) + shapeText(t.shape);
    case "sparse_tensor":
      return `sparse_tensor(${elemName(t.elemType)}${shapeText(t.shape)})`;
    case "sequence":
      return `seq(${t.elem ? typeText(t.elem) : ""})`;
    case "optional":
      return `optional(${t.elem ? typeText(t.elem) : ""})`;
    case "map":
      return `map(${elemName(t.keyType)}${t.value ? ", " + typeText(t.value) : ""})`;
    case "opaque": {
      const parts: string[] = [];
      if (t.domain) parts.push(printDotted(t.domain));
      if (t.name) parts.push(printName(t.name));
      else if (t.domain) parts.push('""'); // one argument would read as the name
      return `opaque(${parts.join(", ")})`;
    }
    case "none":
      // Only reachable for attribute values; value infos print no type for it.
      return "undefined[]";
  }
}

function tensorTypeText(t: { dataType: number; dims: number[] }): string {
  return elemName(t.dataType) + (t.dims.length ? "[" + t.dims.join(",") + "]" : "");
}

function strList(entries: MetadataProps): string {
  return "[" + entries.map(([k, v]) => `${quote(k)}: ${quote(v)}`).join(", ") + "]";
}

function opsetList(ops: OpsetId[]): string {
  return "[" + ops.map((o) => `${quote(o.domain)} : ${o.version}`).join(", ") + "]";
}

function header(fields: [string, string][], indent: string): string {
  if (fields.length === 0) return "";
  const inner = indent + STEP;
  return `${indent}<\n${fields.map(([k, v]) => `${inner}${k}: ${v}`).join(",\n")}\n${indent}>\n`;
}

function hasSubgraph(n: Node): boolean {
  return n.attributes.some(
    (a) => (a.type === "GRAPH" && a.value) || (a.type === "GRAPHS" && a.value?.length),
  );
}

class Printer {
  constructor(private readonly opts: PrintOptions) {}

  model(m: Model): string {
    const fields: [string, string][] = [
      ["ir_version", String(m.irVersion)],
      ["opset_import", opsetList(m.opsetImports)],
    ];
    if (m.producerName !== undefined) fields.push(["producer_name", quote(m.producerName)]);
    if (m.producerVersion !== undefined)
      fields.push(["producer_version", quote(m.producerVersion)]);
    if (m.domain !== undefined) fields.push(["domain", quote(m.domain)]);
    if (m.modelVersion !== undefined) fields.push(["model_version", m.modelVersion.toString()]);
    if (m.docString !== undefined) fields.push(["doc_string", quote(m.docString)]);
    if (m.metadataProps?.length) fields.push(["metadata_props", strList(m.metadataProps)]);
    let out = header(fields, "") + this.graph(m.graph, "") + "\n";
    for (const f of m.functions) out += "\n" + this.function(f) + "\n";
    return out;
  }

  valueInfo(v: ValueInfo): string {
    return v.type && v.type.kind !== "none"
      ? `${typeText(v.type)} ${printName(v.name)}`
      : printName(v.name);
  }

  /** The graph; the first line carries no indentation, the closing brace is at `indent`. */
  graph(g: Graph, indent: string): string {
    let out = `${printName(g.name ?? "")} (${g.inputs.map((v) => this.valueInfo(v)).join(", ")}) => (${g.outputs.map((v) => this.valueInfo(v)).join(", ")})`;
    const decls: string[] = [
      ...g.initializers.map(
        (t) => `${tensorTypeText(t)} ${printName(t.name)} = ${this.tensorData(t)}`,
      ),
      ...g.sparseInitializers.map(
        (s) => `${this.sparseType(s)} ${printName(s.values.name)} = ${this.sparseData(s, false)}`,
      ),
      ...g.valueInfo.map((v) => this.valueInfo(v)),
    ];
    if (decls.length) {
      const inner = indent + STEP;
      out += `\n${inner}<${decls.join(`,\n${inner} `)}>\n${indent}`;
    } else out += " ";
    return out + this.nodeList(g.nodes, indent);
  }

  nodeList(nodes: Node[], indent: string): string {
    const inner = indent + STEP;
    let out = "{\n";
    for (const n of nodes) out += inner + this.node(n, inner) + "\n";
    return out + indent + "}";
  }

  node(n: Node, indent: string): string {
    let out = n.name !== undefined ? "[" + printName(n.name) + "] " : "";
    const outputs = n.outputs;
    for (let i = 0; i < outputs.length; i++) out += (i > 0 ? ", " : "") + printName(outputs[i]!);
    out += out.length && out.charCodeAt(out.length - 1) !== 32 ? " = " : "= ";
    if (n.domain !== "") out += printDotted(n.domain) + ".";
    out += printName(n.opType);
    if (n.overload) out += ":" + printName(n.overload);
    let inputs = " (";
    for (let i = 0; i < n.inputs.length; i++)
      inputs += (i > 0 ? ", " : "") + printName(n.inputs[i]!);
    inputs += ")";
    const attrs = n.attributes;
    if (attrs.length === 0) return out + inputs;
    if (!hasSubgraph(n)) {
      out += " <";
      for (let i = 0; i < attrs.length; i++)
        out += (i > 0 ? ", " : "") + this.plainAttribute(attrs[i]!, indent);
      return out + ">" + inputs;
    }
    const inner = indent + STEP;
    return (
      out +
      inputs +
      ` <\n${attrs.map((a) => inner + this.attribute(a, inner)).join(",\n")}\n${indent}>`
    );
  }

  /**
   * An attribute without a subgraph, printed once per attribute object: decoded models share
   * repeated attributes between nodes, so a chain of a 100k ReduceSum nodes prints two.
   */
  private plainAttribute(a: Attribute, indent: string): string {
    let text = this.printed.get(a);
    if (text === undefined) {
      text = this.attribute(a, indent);
      this.printed.set(a, text);
    }
    return text;
  }
  private readonly printed = new Map<Attribute, string>();

  attribute(a: Attribute, indent: string): string {
    const name = printName(a.name);
    const head = a.type === "UNDEFINED" ? `${name} = ` : `${name}: ${ATTR_TYPE_NAMES[a.type]} = `;
    if (a.refAttrName !== undefined) return head + "@" + printName(a.refAttrName);
    return head + this.attrValue(a, indent);
  }

  private attrValue(a: Attribute, indent: string): string {
    const list = <T>(items: T[], f: (x: T) => string): string =>
      "[" + items.map(f).join(", ") + "]";
    if (a.value === undefined) return "[]";
    switch (a.type) {
      case "INT":
        return a.value.toString();
      case "FLOAT":
        return formatFloatNumber(a.value);
      case "STRING":
        return quote(a.value);
      case "TENSOR":
        return this.tensorConstant(a.value);
      case "GRAPH":
        return this.graph(a.value, indent);
      case "SPARSE_TENSOR":
        return this.sparseType(a.value) + " " + this.sparseData(a.value, true);
      case "TYPE_PROTO":
        return typeText(a.value);
      case "INTS":
        return list(a.value, (v) => v.toString());
      case "FLOATS":
        return list(a.value, formatFloatNumber);
      case "STRINGS":
        return list(a.value, quote);
      case "TENSORS":
        return list(a.value, (t) => this.tensorConstant(t));
      case "GRAPHS":
        return list(a.value, (g) => this.graph(g, indent));
      case "SPARSE_TENSORS":
        return list(a.value, (s) => this.sparseType(s) + " " + this.sparseData(s, true));
      case "TYPE_PROTOS":
        return list(a.value, typeText);
    }
  }

  tensorConstant(t: Tensor, name = t.name): string {
    let out = tensorTypeText(t);
    if (name !== "") out += " " + printName(name);
    const data = this.tensorData(t);
    return out + (data.startsWith("{") ? " " : " = ") + data;
  }

  /** `{values}`, `["location": ...]` for external data, or `...` when elided. */
  tensorData(t0: Tensor): string {
    const t = this.opts.tensorHook ? this.opts.tensorHook(t0) : t0;
    if (t.data.kind === "external") return strList(t.data.entries);
    if (this.opts.initializers === false && scalarCount(t) > ELIDE_LIMIT) return "...";
    if (this.opts.elideStored && !t.inMemory) return "...";
    return "{" + elementTexts(t).join(", ") + "}";
  }

  private sparseType(s: SparseTensor): string {
    return `sparse_tensor(${elemName(s.values.dataType)}${s.dims.length ? "[" + s.dims.join(",") + "]" : ""})`;
  }

  /** `{values-constant, indices-constant}`; the values' name is printed unless it is the owner's. */
  private sparseData(s: SparseTensor, withValuesName: boolean): string {
    const values = this.tensorConstant(s.values, withValuesName ? s.values.name : "");
    return `{${values}, ${this.tensorConstant(s.indices)}}`;
  }

  function(f: Function): string {
    const fields: [string, string][] = [
      ["domain", quote(f.domain)],
      ["opset_import", opsetList(f.opsetImports)],
    ];
    if (f.overload !== undefined) fields.push(["overload", quote(f.overload)]);
    if (f.docString !== undefined) fields.push(["doc_string", quote(f.docString)]);
    if (f.metadataProps?.length) fields.push(["metadata_props", strList(f.metadataProps)]);
    let out = header(fields, "") + printName(f.name);
    const attrs = [
      ...f.attributes.map(printName),
      ...f.attributeProtos.map((a) => this.attribute(a, "")),
    ];
    if (attrs.length) out += ` <${attrs.join(", ")}>`;
    // Typed inputs/outputs carry value infos when the list's order allows reading them back in order.
    const typed = typedIo(f);
    const io = (names: string[]): string =>
      "(" +
      names.map((n) => (typed?.has(n) ? this.valueInfo(typed.get(n)!) : printName(n))).join(", ") +
      ")";
    out += ` ${io(f.inputs)} => ${io(f.outputs)}`;
    const rest = typed ? f.valueInfo.slice(typed.size) : f.valueInfo;
    if (rest.length)
      out += `\n${STEP}<${rest.map((v) => this.valueInfo(v)).join(`,\n${STEP} `)}>\n`;
    else out += " ";
    return out + this.nodeList(f.nodes, "");
  }
}

/**
 * Value infos to print in the function's input/output lists: possible when value_info starts
 * with entries for some inputs then some outputs, each in list order, with no name repeated.
 */
function typedIo(f: Function): Map<string, ValueInfo> | undefined {
  const order = [...f.inputs, ...f.outputs];
  if (new Set(order).size !== order.length) return undefined;
  const map = new Map<string, ValueInfo>();
  let pos = 0;
  for (const v of f.valueInfo) {
    const at = order.indexOf(v.name, pos);
    if (at < 0 || !v.type || v.type.kind === "none") break;
    map.set(v.name, v);
    pos = at + 1;
  }
  return map.size ? map : undefined;
}
