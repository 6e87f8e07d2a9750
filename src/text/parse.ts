// Parser of the ONNX text syntax (onnx/onnx docs/Syntax.md) into IR, with the extensions the
// printer uses (see src/text/index.ts). Every error is E_PARSE with "<file>:<line>:<col>".

import { OnnxError } from "../errors.js";
import { emptyFunction, emptyGraph } from "../ir/builder.js";
import { dtypeByName } from "../ir/dtype.js";
import { Tensor } from "../ir/tensor.js";
import type * as IR from "../ir/types.js";
import { Lexer, describeToken, type Token } from "./lexer.js";
import { ATTR_TYPE_BY_NAME, isFloatWord, isTypeKeyword, PLAIN_ATTR_TYPES } from "./syntax.js";
import { tensorDataFromLits, type Lit } from "./values.js";

/** Deepest subgraph nesting the parser accepts (a binary .onnx cannot even hold 32 levels). */
export const MAX_GRAPH_NESTING = 200;

/**
 * Reads the whole text with `read`: anything after what it reads is an error. Other nesting than
 * graphs' (types, values) has no explicit bound: running out of stack is still bad input.
 */
function parseWhole<T>(text: string, file: string | undefined, read: (p: Parser) => T): T {
  const p = new Parser(text, file);
  try {
    const v = read(p);
    p.end();
    return v;
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message))
      throw new OnnxError("E_PARSE", "nested too deeply to parse", file);
    throw e;
  }
}

export function parseModelText(text: string, file?: string): IR.Model {
  return parseWhole(text, file, (p) => p.model());
}

export function parseGraphText(text: string, file?: string): IR.Graph {
  return parseWhole(text, file, (p) => p.graph());
}

export function parseFunctionText(text: string, file?: string): IR.Function {
  return parseWhole(text, file, (p) => p.function());
}

/** Node statements, bare or inside one pair of braces. */
export function parseNodeListText(text: string, file?: string): IR.Node[] {
  return parseWhole(text, file, (p) => p.nodeStatements());
}

export function parseTypeText(text: string, file?: string): IR.Type {
  return parseWhole(text, file, (p) => p.type());
}

const SINGLETON: Partial<Record<IR.AttrType, IR.AttrType>> = {
  INTS: "INT",
  FLOATS: "FLOAT",
  STRINGS: "STRING",
  TENSORS: "TENSOR",
  GRAPHS: "GRAPH",
  SPARSE_TENSORS: "SPARSE_TENSOR",
  TYPE_PROTOS: "TYPE_PROTO",
};
const LIST_OF: Partial<Record<IR.AttrType, IR.AttrType>> = Object.fromEntries(
  Object.entries(SINGLETON).map(([list, one]) => [one, list]),
);

type Single =
  | { type: "INT"; value: bigint }
  | { type: "FLOAT"; value: number }
  | { type: "STRING"; value: string }
  | { type: "TENSOR"; value: Tensor }
  | { type: "GRAPH"; value: IR.Graph }
  | { type: "SPARSE_TENSOR"; value: IR.SparseTensor }
  | { type: "TYPE_PROTO"; value: IR.Type };

/** An int token's value (decimal or 0x hex, with an optional '-'). */
function parseBigInt(text: string): bigint {
  return text.startsWith("-") ? -BigInt(text.slice(1)) : BigInt(text);
}
/** 0 to 9, the values of one-digit int tokens, made once. */
const SMALL_INTS: readonly bigint[] = Array.from({ length: 10 }, (_, i) => BigInt(i));

/** Attribute lists up to this many characters of text may be shared between nodes. */
const MAX_SHARED_ATTR_TEXT = 256;

class Parser {
  private readonly lx: Lexer;

  constructor(text: string, file?: string) {
    this.lx = new Lexer(text, file);
  }

  // ---- tokens ----

  private peek(k = 0): Token {
    return this.lx.peek(k);
  }
  private next(): Token {
    return this.lx.next();
  }
  private is(p: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === "punct" && t.text === p;
  }
  private accept(p: string): boolean {
    if (!this.is(p)) return false;
    this.next();
    return true;
  }
  private fail(t: Token, expected: string): OnnxError {
    return this.lx.error(t.pos, `expected ${expected}, found ${describeToken(t)}`);
  }
  private expect(p: string, what?: string): Token {
    const t = this.peek();
    if (t.kind !== "punct" || t.text !== p) throw this.fail(t, what ?? `'${p}'`);
    return this.next();
  }
  private isName(k = 0): boolean {
    const t = this.peek(k);
    return t.kind === "id" || t.kind === "string";
  }
  /** A quotable identifier. */
  private name(what = "a name"): string {
    const t = this.peek();
    if (t.kind !== "id" && t.kind !== "string") throw this.fail(t, what);
    return this.next().text;
  }
  private ident(what: string): Token {
    const t = this.peek();
    if (t.kind !== "id") throw this.fail(t, what);
    return this.next();
  }
  private stringLit(what: string): string {
    const t = this.peek();
    if (t.kind !== "string") throw this.fail(t, what);
    return this.next().text;
  }
  private intLit(what: string): bigint {
    const t = this.peek();
    if (t.kind !== "int") throw this.fail(t, what);
    this.next();
    return parseBigInt(t.text);
  }
  private smallInt(what: string): number {
    const t = this.peek();
    const v = this.intLit(what);
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER))
      throw this.lx.error(t.pos, `${what}: ${v} is too ${v < 0n ? "small" : "large"}`);
    return Number(v);
  }

  end(): void {
    const t = this.peek();
    if (t.kind !== "eof") throw this.fail(t, "end of input");
  }

  /**
   * Items separated by commas up to `close`, which it reads: none, or a trailing comma, allowed.
   * `expected` names what may follow an item.
   */
  private items(close: string, item: () => void, expected?: string): void {
    do {
      if (this.is(close)) break;
      item();
    } while (this.accept(","));
    if (!this.is(close)) throw this.fail(this.peek(), expected ?? `',' or '${close}'`);
    this.next();
  }

  /** `[a, b, c]` with `item` parsing each element; `[]` allowed. */
  private bracketList<T>(item: () => T): T[] {
    this.expect("[");
    const out: T[] = [];
    this.items("]", () => out.push(item()));
    return out;
  }

  private opsetList(): IR.OpsetId[] {
    return this.bracketList(() => {
      const domain = this.stringLit('an opset domain string (e.g. "")');
      this.expect(":");
      return { domain, version: this.smallInt("an opset version") };
    });
  }

  private strStrList(): IR.MetadataProps {
    return this.bracketList((): [string, string] => {
      const k = this.stringLit("a key string");
      this.expect(":");
      return [k, this.stringLit("a value string")];
    });
  }

  /** `< key: value, ... >`; `field` parses the value of a known key, or returns false. */
  /** `< key: value, ... >` where each key is one of `fields`, read by its reader. */
  private header(what: string, fields: Record<string, () => void>): void {
    if (!this.accept("<")) return;
    const keys = Object.keys(fields);
    this.items(">", () => {
      const t = this.ident(`a ${what} field name`);
      if (!Object.hasOwn(fields, t.text))
        throw this.lx.error(
          t.pos,
          `unknown ${what} field '${t.text}' (expected one of: ${keys.join(", ")})`,
        );
      this.expect(":");
      fields[t.text]!();
    });
  }

  /** The header fields a model and a function share. */
  private commonFields(
    x: IR.Model | IR.Function,
  ): Record<"domain" | "opset_import" | "doc_string" | "metadata_props", () => void> {
    return {
      domain: () => (x.domain = this.stringLit("a string")),
      opset_import: () => (x.opsetImports = this.opsetList()),
      doc_string: () => (x.docString = this.stringLit("a string")),
      metadata_props: () => (x.metadataProps = this.strStrList()),
    };
  }

  // ---- model, function, graph ----

  model(): IR.Model {
    const m: IR.Model = { irVersion: 0, opsetImports: [], graph: emptyGraph(""), functions: [] };
    const common = this.commonFields(m);
    this.header("model header", {
      ir_version: () => (m.irVersion = this.smallInt("an IR version")),
      opset_import: common.opset_import,
      producer_name: () => (m.producerName = this.stringLit("a string")),
      producer_version: () => (m.producerVersion = this.stringLit("a string")),
      domain: common.domain,
      model_version: () => (m.modelVersion = this.intLit("an integer")),
      doc_string: common.doc_string,
      metadata_props: common.metadata_props,
    });
    m.graph = this.graph();
    while (this.peek().kind !== "eof") m.functions.push(this.function());
    return m;
  }

  function(): IR.Function {
    const f = emptyFunction();
    const common = this.commonFields(f);
    this.header("function header", {
      domain: common.domain,
      opset_import: common.opset_import,
      overload: () => (f.overload = this.stringLit("a string")),
      doc_string: common.doc_string,
      metadata_props: common.metadata_props,
    });
    f.name = this.name("a function name");
    if (this.accept("<"))
      this.items(
        ">",
        () => {
          const name = this.name("an attribute name");
          if (this.is(":") || this.is("=")) {
            let declared: IR.AttrType | undefined;
            if (this.accept(":")) declared = this.attrType();
            if (this.is("=")) f.attributeProtos.push(this.attrRest(name, declared));
            else f.attributes.push(name); // `name: type` with no default
          } else f.attributes.push(name);
        },
        "',' or '>' after the function's attributes",
      );
    f.inputs = this.functionIo(f.valueInfo);
    this.expect("=>");
    f.outputs = this.functionIo(f.valueInfo);
    if (this.accept("<")) this.items(">", () => f.valueInfo.push(this.valueInfo()));
    f.nodes = this.nodeList();
    return f;
  }

  private functionIo(valueInfo: IR.ValueInfo[]): string[] {
    this.expect("(");
    const names: string[] = [];
    this.items(")", () => {
      const vi = this.valueInfo();
      names.push(vi.name);
      if (vi.type) valueInfo.push(vi);
    });
    return names;
  }

  /** How many graphs enclose the one being parsed: bounded so deep nesting is an error, not a stack overflow. */
  private graphDepth = 0;

  graph(): IR.Graph {
    if (this.graphDepth >= MAX_GRAPH_NESTING)
      throw this.lx.error(
        this.peek().pos,
        `subgraphs are nested more than ${MAX_GRAPH_NESTING} deep`,
      );
    this.graphDepth++;
    try {
      const g = emptyGraph(this.name("a graph name"));
      this.graphRest(g);
      return g;
    } finally {
      this.graphDepth--;
    }
  }

  private graphRest(g: IR.Graph): void {
    this.expect("(", "'(' starting the graph's inputs");
    this.items(")", () => {
      const vi = this.valueInfo();
      g.inputs.push(vi);
      if (this.accept("=")) this.initializer(g, vi);
    });
    this.expect("=>");
    this.expect("(", "'(' starting the graph's outputs");
    this.items(")", () => g.outputs.push(this.valueInfo()));
    if (this.accept("<"))
      this.items(">", () => {
        const vi = this.valueInfo();
        if (this.accept("=")) this.initializer(g, vi);
        else g.valueInfo.push(vi);
      });
    g.nodes = this.nodeList();
  }

  /** After `type name =`: the initializer's data. */
  private initializer(g: IR.Graph, vi: IR.ValueInfo): void {
    const t = this.peek();
    if (vi.type?.kind === "sparse_tensor") {
      g.sparseInitializers.push(this.sparseData(vi.type, vi.name));
      return;
    }
    if (!vi.type) throw this.lx.error(t.pos, `initializer '${vi.name}' needs a type`);
    const [dataType, dims] = this.constantShape(vi.type, t, vi.name);
    g.initializers.push(this.tensorData(dataType, dims, vi.name));
  }

  private valueInfo(): IR.ValueInfo {
    let type: IR.Type | undefined;
    if (this.nextIsType()) type = this.type();
    const at = this.peek();
    const vi: IR.ValueInfo = {
      name: this.name(type ? "a value name after the type" : "a type or a value name"),
    };
    if (type) vi.type = type;
    // `flaot[2] x` or `tensr x`: a word that is not a type, where a type would stand.
    else if (at.kind === "id" && (this.is("[") || this.is("(") || this.isName()))
      throw this.lx.error(
        at.pos,
        `expected a type (float, int64[N], seq(...), map(...), optional(...), sparse_tensor(...)), found '${at.text}'`,
      );
    return vi;
  }

  // ---- types ----

  private nextIsType(): boolean {
    const t = this.peek();
    if (t.kind !== "id" || !isTypeKeyword(t.text)) return false;
    if (t.text === "tensor" || t.text === "opaque") return this.is("(", 1);
    return true;
  }

  private elemType(what = "an element type"): number {
    const t = this.ident(what);
    if (t.text === "undefined") return 0;
    const info = dtypeByName(t.text);
    if (!info)
      throw this.lx.error(t.pos, `expected ${what} (float, int64, ...), found '${t.text}'`);
    return info.id;
  }

  private shape(): IR.Dim[] | undefined {
    if (!this.accept("[")) return [];
    if (this.accept("]")) return undefined;
    const dims: IR.Dim[] = [];
    do {
      const t = this.peek();
      if (this.accept("?")) dims.push(null);
      else if (t.kind === "id" || t.kind === "string") dims.push(this.next().text);
      else if (t.kind === "int") dims.push(this.smallInt("a dimension"));
      else throw this.fail(t, "a dimension (a number, a name or '?')");
    } while (this.accept(","));
    this.expect("]", "',' or ']'");
    return dims;
  }

  private tensorType(kind: "tensor" | "sparse_tensor"): IR.TensorType {
    const elemType = this.elemType();
    const shape = this.shape();
    const t: IR.TensorType = { kind, elemType };
    if (shape !== undefined) t.shape = shape;
    return t;
  }

  type(): IR.Type {
    const t = this.peek();
    if (t.kind !== "id") throw this.fail(t, "a type");
    if (dtypeByName(t.text) || t.text === "undefined") return this.tensorType("tensor");
    this.next();
    const open = (): void => void this.expect("(", `'(' after '${t.text}'`);
    const close = (): void => void this.expect(")");
    switch (t.text) {
      case "seq":
      case "optional": {
        open();
        const out: IR.SequenceType | IR.OptionalType = {
          kind: t.text === "seq" ? "sequence" : "optional",
        };
        if (!this.is(")")) out.elem = this.type();
        close();
        return out;
      }
      case "map": {
        open();
        const out: IR.Type = { kind: "map", keyType: this.elemType("a map key type") };
        if (this.accept(",")) out.value = this.type();
        close();
        return out;
      }
      case "sparse_tensor": {
        open();
        const out = this.tensorType("sparse_tensor");
        close();
        return out;
      }
      case "tensor": {
        // Type-constraint style: tensor(float) is a float tensor of unknown rank.
        open();
        const elemType = this.elemType();
        const out: IR.TensorType = { kind: "tensor", elemType };
        if (this.is("[")) {
          const shape = this.shape();
          if (shape !== undefined) out.shape = shape;
        }
        close();
        return out;
      }
      case "opaque": {
        open();
        const parts: string[] = [];
        while (!this.is(")")) {
          parts.push(this.dotted("an opaque type name"));
          if (!this.accept(",")) break;
        }
        close();
        const out: IR.Type = { kind: "opaque" };
        if (parts.length === 1) out.name = parts[0]!;
        else if (parts.length >= 2) {
          out.domain = parts[0]!;
          out.name = parts[1]!;
        }
        return out;
      }
      default:
        throw this.fail(t, "a type");
    }
  }

  /** a.b.c, or a quoted string. */
  private dotted(what: string): string {
    if (this.peek().kind === "string") return this.next().text;
    let s = this.ident(what).text;
    while (this.is(".") && this.peek(1).kind === "id") {
      this.next();
      s += "." + this.next().text;
    }
    return s;
  }

  // ---- tensors ----

  private constantShape(type: IR.Type, at: Token, name: string): [number, number[]] {
    if (type.kind !== "tensor")
      throw this.lx.error(at.pos, `constant '${name}' needs a tensor type, not ${type.kind}`);
    if (type.shape === undefined)
      throw this.lx.error(
        at.pos,
        `constant '${name}' needs known dimensions (write float[2,3], or float for a scalar)`,
      );
    const dims = type.shape.map((d) => {
      if (typeof d !== "number" || d < 0)
        throw this.lx.error(
          at.pos,
          `constant '${name}' needs numeric dimensions, found '${d ?? "?"}'`,
        );
      return d;
    });
    return [type.elemType, dims];
  }

  /** `{values}`, `[ "location": ..., ... ]` (external data), after the type and name. */
  private tensorData(dataType: number, dims: number[], name: string): Tensor {
    const t = this.peek();
    if (this.is("[")) {
      const entries = this.strStrList();
      return new Tensor(dataType, dims, { kind: "external", entries }, name);
    }
    if (this.is("..."))
      throw this.lx.error(
        t.pos,
        `the data of tensor '${name}' was elided ('...'); print with initializers to get parseable text`,
      );
    this.expect("{", "'{' starting tensor values, or '[' starting an external data reference");
    const lits: Lit[] = [];
    this.items("}", () => lits.push(this.literal()));
    const err = (pos: number, msg: string): OnnxError => this.lx.error(pos, msg);
    return new Tensor(dataType, dims, tensorDataFromLits(dataType, dims, lits, err, t.pos), name);
  }

  private literal(): Lit {
    const t = this.next();
    if (t.kind === "int" || t.kind === "float" || t.kind === "string")
      return { kind: t.kind, text: t.text, pos: t.pos };
    let negative = false;
    let w = t;
    if (t.kind === "punct" && t.text === "-") {
      negative = true;
      w = this.next();
    }
    if (w.kind === "id") {
      const word = w.text.toLowerCase();
      if (word === "inf" || word === "infinity")
        return { kind: "float", text: negative ? "-Infinity" : "Infinity", pos: t.pos };
      if (word === "nan") {
        const lit: Lit = { kind: "nan", text: "nan", pos: t.pos, negative };
        if (this.accept("(")) {
          const bits = this.intLit("NaN payload bits (e.g. 0x7fc00001)");
          lit.bits = bits;
          this.expect(")");
        }
        return lit;
      }
      if (!negative && (word === "true" || word === "false"))
        return { kind: "int", text: word === "true" ? "1" : "0", pos: t.pos };
    }
    throw this.fail(w, "a value (number, string, inf or nan)");
  }

  /** A tensor constant: type, optional name, optional '=', data. */
  private tensorConstant(): Tensor {
    const at = this.peek();
    const type = this.type();
    return this.tensorConstantRest(type, at);
  }

  private tensorConstantRest(type: IR.Type, at: Token): Tensor {
    const name = this.isName() ? this.next().text : "";
    this.accept("=");
    const [dataType, dims] = this.constantShape(type, at, name);
    return this.tensorData(dataType, dims, name);
  }

  /** After a sparse_tensor(...) type (and optional name, '='): `{values-constant, indices-constant}`. */
  private sparseData(type: IR.TensorType, name: string): IR.SparseTensor {
    if (type.shape === undefined || type.shape.some((d) => typeof d !== "number"))
      throw this.fail(this.peek(), "a sparse tensor type with numeric dimensions");
    this.expect("{", "'{' starting the sparse tensor's values and indices");
    const values = this.tensorConstant();
    this.expect(",");
    const indices = this.tensorConstant();
    this.expect("}");
    if (values.name === "") values.name = name;
    if (values.dataType !== type.elemType)
      throw this.fail(this.peek(), `values of element type matching the sparse tensor's`);
    return { values, indices, dims: type.shape as number[] };
  }

  // ---- nodes ----

  nodeStatements(): IR.Node[] {
    if (this.is("{")) return this.nodeList();
    const nodes: IR.Node[] = [];
    while (this.peek().kind !== "eof") nodes.push(this.node());
    return nodes;
  }

  private nodeList(): IR.Node[] {
    this.expect("{", "'{' starting the node list");
    const nodes: IR.Node[] = [];
    while (!this.accept("}")) {
      if (this.peek().kind === "eof") throw this.fail(this.peek(), "a node or '}'");
      nodes.push(this.node());
    }
    return nodes;
  }

  /** Names separated by commas, ending before `end`; an empty slot is the empty name. */
  private nameList(end: string): string[] {
    if (this.is(end)) return [];
    // Gathered on a scratch list, then copied to a list of their exact number (a list grown by
    // push keeps room for 16, and a node holds two).
    const names = this.scratch;
    let n = 0;
    for (;;) {
      if (this.isName()) names[n++] = this.next().text;
      else if (this.is(",")) names[n++] = "";
      else throw this.fail(this.peek(), `a name, ',' or '${end}'`);
      if (!this.accept(",")) break;
      if (this.is(end)) break;
    }
    return names.slice(0, n);
  }
  private readonly scratch: string[] = [];

  private node(): IR.Node {
    const start = this.peek();
    let name: string | undefined;
    if (this.accept("[")) {
      name = this.is("]") ? "" : this.name("a node name");
      this.expect("]");
    } else if (this.isName() && this.is(":", 1)) {
      name = this.next().text;
      this.next();
    }
    const outputs = this.nameList("=");
    if (!this.is("="))
      throw this.fail(
        this.peek(),
        start.kind === "eof" ? "a node" : "',' or '=' after the node's outputs",
      );
    this.next();
    let opType = this.name("an operator name");
    let domain = "";
    if (this.is(".")) {
      const parts = [opType];
      while (this.accept(".")) parts.push(this.name("an operator name after '.'"));
      opType = parts.pop()!;
      domain = parts.join(".");
    }
    const overload = this.accept(":") ? this.name("an overload name") : undefined;
    let attributes: IR.Attribute[] = this.is("<") ? this.attrListOf(opType) : [];
    this.expect(
      "(",
      attributes.length ? "'(' starting the node's inputs" : "'<' or '(' after the operator",
    );
    const inputs = this.nameList(")");
    this.expect(")", "',' or ')'");
    if (attributes.length === 0 && this.is("<")) attributes = this.attrListOf(opType);
    // The shape the decoder and ir/builder give a node (passes and the encoder then meet one).
    const node: IR.Node =
      name !== undefined
        ? { opType, domain, name, inputs, outputs, attributes }
        : { opType, domain, inputs, outputs, attributes };
    if (overload !== undefined) node.overload = overload;
    return node;
  }

  /**
   * A node's attribute list, at its '<'. Models repeat the same attributes on node after node
   * (keepdims = 1, axes = [1]): when the text is that of the list the op type was last read with,
   * and that list is plain (numbers and strings, no tensor or graph: read the same anywhere), it
   * is that same list, as the decoder shares it (io/shared-attributes.ts), with nothing parsed.
   */
  private attrListOf(opType: string): IR.Attribute[] {
    const lt = this.peek();
    const last = this.lastAttrs.get(opType);
    if (
      last !== undefined &&
      this.lx.pending() === 1 &&
      this.lx.text.startsWith(last.text, lt.pos)
    ) {
      this.lx.jump(lt.pos + last.text.length);
      return last.list;
    }
    const list = this.attrList();
    const end = this.lx.lastEnd;
    if (end - lt.pos <= MAX_SHARED_ATTR_TEXT && list.every((a) => PLAIN_ATTR_TYPES.has(a.type)))
      this.lastAttrs.set(opType, { text: this.lx.text.slice(lt.pos, end), list });
    return list;
  }
  private readonly lastAttrs = new Map<string, { text: string; list: IR.Attribute[] }>();

  // ---- attributes ----

  private attrList(): IR.Attribute[] {
    this.expect("<");
    const out: IR.Attribute[] = [];
    this.items(">", () => out.push(this.attr()), "',' or '>' after an attribute");
    return out.slice();
  }

  private attrType(): IR.AttrType {
    const t = this.ident("an attribute type (int, float, string, ints, tensor, graph, ...)");
    const type = ATTR_TYPE_BY_NAME.get(t.text);
    if (!type)
      throw this.lx.error(
        t.pos,
        `unknown attribute type '${t.text}' (expected int, float, string, tensor, graph, sparse_tensor, type_proto, or a plural: ints, ...)`,
      );
    return type;
  }

  private attr(): IR.Attribute {
    const name = this.name("an attribute name");
    let declared: IR.AttrType | undefined;
    if (this.accept(":")) declared = this.attrType();
    return this.attrRest(name, declared);
  }

  private attrRest(name: string, declared: IR.AttrType | undefined): IR.Attribute {
    if (!this.is("=")) throw this.fail(this.peek(), `'=' after attribute '${name}'`);
    this.next();
    if (this.accept("@")) {
      const ref = this.name("the name of the referenced attribute");
      return {
        name,
        type: declared ?? "UNDEFINED",
        value: undefined,
        refAttrName: ref,
      } as IR.Attribute;
    }
    if (this.is("[")) {
      const open = this.next();
      if (declared && !SINGLETON[declared])
        throw this.lx.error(
          open.pos,
          `attribute '${name}' is declared ${declared.toLowerCase()}, which takes one value, not a list`,
        );
      const expected = declared ? SINGLETON[declared] : undefined;
      const items: Single[] = [];
      this.items("]", () => items.push(this.singleValue(expected, name)));
      let type = declared;
      if (!type) {
        if (items.length === 0)
          throw this.lx.error(
            open.pos,
            `empty list for attribute '${name}' needs a type: write ${name}: ints = [] (or floats, strings, ...)`,
          );
        const kinds = new Set(items.map((i) => i.type));
        if (kinds.size === 2 && kinds.has("INT") && kinds.has("FLOAT")) type = "FLOATS";
        else if (kinds.size === 1) type = LIST_OF[items[0]!.type]!;
        else
          throw this.lx.error(open.pos, `list attribute '${name}' mixes values of different types`);
      }
      const one = SINGLETON[type]!;
      const values = items.map((i) => {
        if (i.type === one) return i.value;
        if (one === "FLOAT" && i.type === "INT") return Math.fround(Number(i.value));
        throw this.lx.error(open.pos, `list attribute '${name}' mixes values of different types`);
      });
      return { name, type, value: values } as IR.Attribute;
    }
    const v = this.singleValue(declared, name);
    return { name, type: v.type, value: v.value } as IR.Attribute;
  }

  /** One attribute value; `expected` (if given) decides between readings and is checked. */
  private singleValue(expected: IR.AttrType | undefined, attrName: string): Single {
    const t = this.peek();
    if (expected && SINGLETON[expected])
      throw this.lx.error(
        t.pos,
        `attribute '${attrName}' is declared ${expected.toLowerCase()}: write its value as a list [...]`,
      );
    let v: Single;
    if (expected === "TYPE_PROTO") v = { type: "TYPE_PROTO", value: this.type() };
    else if (expected === "GRAPH") {
      v = { type: "GRAPH", value: this.graph() };
    } else if (t.kind === "string" && this.is("(", 1)) {
      v = { type: "GRAPH", value: this.graph() };
    } else if (t.kind === "string") {
      this.next();
      v = { type: "STRING", value: t.text };
    } else if (t.kind === "int") {
      this.next();
      const i = t.text.length === 1 ? SMALL_INTS[t.text.charCodeAt(0) - 48]! : parseBigInt(t.text);
      v = { type: "INT", value: i };
    } else if (
      t.kind === "float" ||
      (t.kind === "punct" && t.text === "-") ||
      (t.kind === "id" && isFloatWord(t.text))
    ) {
      const lit = this.literal();
      if (lit.kind === "string") throw this.fail(t, "a number");
      v = { type: "FLOAT", value: lit.kind === "nan" ? NaN : Math.fround(Number(lit.text)) };
    } else if (t.kind === "id" && this.nextIsType()) {
      const type = this.type();
      if (type.kind === "sparse_tensor" && (this.is("{") || this.is("=") || this.isName())) {
        const name = this.isName() ? this.next().text : "";
        this.accept("=");
        v = { type: "SPARSE_TENSOR", value: this.sparseData(type, name) };
      } else if (
        type.kind === "tensor" &&
        (this.is("{") || this.is("=") || this.isName() || this.is("..."))
      ) {
        v = { type: "TENSOR", value: this.tensorConstantRest(type, t) };
      } else v = { type: "TYPE_PROTO", value: type };
    } else if (t.kind === "id") {
      v = { type: "GRAPH", value: this.graph() };
    } else throw this.fail(t, `a value for attribute '${attrName}'`);
    if (expected && expected !== "UNDEFINED" && expected !== v.type) {
      if (expected === "FLOAT" && v.type === "INT")
        return { type: "FLOAT", value: Math.fround(Number(v.value)) };
      throw this.lx.error(
        t.pos,
        `attribute '${attrName}' is declared ${expected.toLowerCase()} but its value is a ${v.type.toLowerCase()}`,
      );
    }
    return v;
  }
}
