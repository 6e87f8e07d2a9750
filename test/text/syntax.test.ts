// ONNX text syntax, feature by feature: every type form, every attribute kind, functions with
// defaults and references, subgraphs, external data, quoted names, and bit-exact numbers.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { emptyGraph } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import {
  DataType,
  type Attribute,
  type Function,
  type Graph,
  type Model,
} from "../../src/ir/types.js";
import {
  parseFunctionText,
  parseGraphText,
  parseModelText,
  parseNodeListText,
  parseTypeText,
} from "../../src/text/parse.js";
import {
  printAttribute,
  printFunction,
  printGraph,
  printModel,
  printNode,
  printTensor,
  printType,
  printValueInfo,
} from "../../src/text/print.js";
import { tensorBytes } from "../../src/text/values.js";
import { expectGolden } from "../helpers/golden.js";
import { canonFunction, canonGraph, canonModel } from "../helpers/text-compare.js";

/** Parses, prints, parses again: the two parses agree and printing is a fixed point. */
function roundTripModel(text: string): Model {
  const m = parseModelText(text);
  const printed = printModel(m);
  const back = parseModelText(printed);
  expect(canonModel(back)).toEqual(canonModel(m));
  expect(printModel(back)).toBe(printed);
  return m;
}
function roundTripGraph(text: string): Graph {
  const g = parseGraphText(text);
  const printed = printGraph(g);
  const back = parseGraphText(printed);
  expect(canonGraph(back)).toEqual(canonGraph(g));
  expect(printGraph(back)).toBe(printed);
  return g;
}
function roundTripFunction(text: string): Function {
  const f = parseFunctionText(text);
  const printed = printFunction(f);
  const back = parseFunctionText(printed);
  expect(canonFunction(back)).toEqual(canonFunction(f));
  expect(printFunction(back)).toBe(printed);
  return f;
}
function attrOf(text: string): Attribute {
  const [n] = parseNodeListText(`y = Op <${text}> (x)`);
  expect(n!.attributes.length).toBe(1);
  return n!.attributes[0]!;
}
const hex = (b: Uint8Array | undefined): string => Buffer.from(b!).toString("hex");

describe("model header", () => {
  it("reads every header field, with full-precision model_version", () => {
    const m = roundTripModel(`
      <
        ir_version: 9,
        opset_import: ["" : 18, "local" : 1, "com.microsoft" : 1],
        producer_name: "say \\"hi\\"",
        producer_version: "1.0",
        domain: "ai.test",
        model_version: 9223372036854775807,
        doc_string: "docs",
        metadata_props: ["author": "me", "empty": ""]
      >
      g (float x) => (float y) { y = Identity (x) }`);
    expect(m.irVersion).toBe(9);
    expect(m.opsetImports).toEqual([
      { domain: "", version: 18 },
      { domain: "local", version: 1 },
      { domain: "com.microsoft", version: 1 },
    ]);
    expect(m.producerName).toBe('say "hi"');
    expect(m.producerVersion).toBe("1.0");
    expect(m.domain).toBe("ai.test");
    expect(m.modelVersion).toBe(9223372036854775807n);
    expect(m.docString).toBe("docs");
    expect(m.metadataProps).toEqual([
      ["author", "me"],
      ["empty", ""],
    ]);
  });

  it("a model without a header is a graph with functions after it", () => {
    const m = roundTripModel(`
      g (float x) => (float y) { y = local.F (x) }
      <domain: "local", opset_import: ["" : 18]> F (a) => (b) { b = Neg (a) }
      <domain: "local", opset_import: ["" : 18]> G (a) => (b) { b = Abs (a) }`);
    expect(m.irVersion).toBe(0);
    expect(m.functions.map((f) => f.name)).toEqual(["F", "G"]);
    expect(m.graph.nodes[0]).toMatchObject({ domain: "local", opType: "F" });
  });
});

describe("types", () => {
  const cases: [string, unknown, string?][] = [
    ["float", { kind: "tensor", elemType: DataType.FLOAT, shape: [] }],
    ["float[]", { kind: "tensor", elemType: DataType.FLOAT }],
    ["tensor(float)", { kind: "tensor", elemType: DataType.FLOAT }, "float[]"],
    [
      "int64[N, ?, 3]",
      { kind: "tensor", elemType: DataType.INT64, shape: ["N", null, 3] },
      "int64[N,?,3]",
    ],
    [
      'float16[batch, "seq len", "3"]',
      { kind: "tensor", elemType: DataType.FLOAT16, shape: ["batch", "seq len", "3"] },
      'float16[batch,"seq len","3"]',
    ],
    ["bfloat16[2]", { kind: "tensor", elemType: DataType.BFLOAT16, shape: [2] }],
    ["seq(float[2])", { kind: "sequence", elem: { kind: "tensor", elemType: 1, shape: [2] } }],
    [
      "map(int64, seq(double))",
      {
        kind: "map",
        keyType: 7,
        value: { kind: "sequence", elem: { kind: "tensor", elemType: 11, shape: [] } },
      },
    ],
    [
      "optional(seq(bool[]))",
      { kind: "optional", elem: { kind: "sequence", elem: { kind: "tensor", elemType: 9 } } },
    ],
    ["sparse_tensor(float[2,2])", { kind: "sparse_tensor", elemType: 1, shape: [2, 2] }],
    ["sparse_tensor(int8[])", { kind: "sparse_tensor", elemType: 3 }],
    ["opaque(com.foo, Bar)", { kind: "opaque", domain: "com.foo", name: "Bar" }],
    ["opaque(Bar)", { kind: "opaque", name: "Bar" }],
    ["opaque()", { kind: "opaque" }],
    ['opaque(com.foo, "")', { kind: "opaque", domain: "com.foo", name: "" }],
    ['opaque("my-dom", "x.y")', { kind: "opaque", domain: "my-dom", name: "x.y" }],
    ["undefined[2]", { kind: "tensor", elemType: 0, shape: [2] }],
  ];
  for (const [text, ir, printed] of cases) {
    it(`${text}`, () => {
      const t = parseTypeText(text);
      expect(t).toEqual(ir);
      expect(printType(t)).toBe(printed ?? text);
      expect(parseTypeText(printType(t))).toEqual(ir);
    });
  }

  it("every form works as a graph input, output and value_info", () => {
    const g = roundTripGraph(`
      g (float[N,3] x, seq(float[?]) s, map(int64, float) m, optional(int32[2]) o,
         sparse_tensor(float[2,2]) sp, float[] unk, tensor(double) td, untyped)
        => (float[N,3] y, opaque(a.b, C) oq)
        <seq(seq(float)) ss, float16 h>
      { y = Identity (x) }`);
    expect(g.inputs.map((v) => v.type?.kind)).toEqual([
      "tensor",
      "sequence",
      "map",
      "optional",
      "sparse_tensor",
      "tensor",
      "tensor",
      undefined,
    ]);
    expect(g.valueInfo.map((v) => v.name)).toEqual(["ss", "h"]);
  });
});

describe("attributes", () => {
  it("reads each scalar kind", () => {
    expect(attrOf("i: int = -3")).toEqual({ name: "i", type: "INT", value: -3n });
    expect(attrOf("i = 9223372036854775807")).toEqual({
      name: "i",
      type: "INT",
      value: 2n ** 63n - 1n,
    });
    expect(attrOf("i = -9223372036854775808")).toEqual({
      name: "i",
      type: "INT",
      value: -(2n ** 63n),
    });
    expect(attrOf("f: float = 0.1")).toEqual({ name: "f", type: "FLOAT", value: Math.fround(0.1) });
    expect(attrOf("f: float = 2")).toEqual({ name: "f", type: "FLOAT", value: 2 });
    expect(attrOf("f = -inf")).toEqual({ name: "f", type: "FLOAT", value: -Infinity });
    expect(attrOf("f = nan").value).toBeNaN();
    expect(attrOf('s = "a\\"b\\\\c"')).toEqual({ name: "s", type: "STRING", value: 'a"b\\c' });
    expect(attrOf("t: type_proto = seq(float)")).toEqual({
      name: "t",
      type: "TYPE_PROTO",
      value: { kind: "sequence", elem: { kind: "tensor", elemType: 1, shape: [] } },
    });
    expect(attrOf("t = float[3]").type).toBe("TYPE_PROTO");
  });

  it("reads lists, and empty lists with a type annotation", () => {
    expect(attrOf("a = [1, -2]")).toEqual({ name: "a", type: "INTS", value: [1n, -2n] });
    expect(attrOf("a = [1, 2.5]")).toEqual({ name: "a", type: "FLOATS", value: [1, 2.5] });
    expect(attrOf("a: floats = [1, 2]")).toEqual({ name: "a", type: "FLOATS", value: [1, 2] });
    expect(attrOf('a = ["x", ""]')).toEqual({ name: "a", type: "STRINGS", value: ["x", ""] });
    for (const kind of [
      "ints",
      "floats",
      "strings",
      "tensors",
      "graphs",
      "sparse_tensors",
      "type_protos",
    ]) {
      const a = attrOf(`axes: ${kind} = []`);
      expect(a.type).toBe(kind.toUpperCase());
      expect(a.value).toEqual([]);
      expect(
        printNode({ opType: "Op", domain: "", inputs: [], outputs: [], attributes: [a] }),
      ).toBe(`= Op <axes: ${kind} = []> ()`);
    }
    expect(attrOf("t: type_protos = [float, map(string, int64)]").value).toHaveLength(2);
  });

  it("reads tensor attributes, with or without annotation, name and '='", () => {
    for (const text of [
      "value: tensor = float[2] {1.0, 2.0}",
      "value = float[2] {1, 2}",
      "value = float[2] = {1.0, 2.0}",
    ]) {
      const a = attrOf(text);
      expect(a.type).toBe("TENSOR");
      const t = a.value as Tensor;
      expect([t.dataType, t.dims, t.name, t.values()]).toEqual([DataType.FLOAT, [2], "", [1, 2]]);
    }
    const named = attrOf('value = int64 "my.name" {5}').value as Tensor;
    expect([named.name, named.dims, named.values()]).toEqual(["my.name", [], [5n]]);
    const ts = attrOf("ts: tensors = [float {1.0}, int8[2] {1, -1}]");
    expect(ts.type).toBe("TENSORS");
    expect((ts.value as Tensor[]).map((t) => t.values())).toEqual([[1], [1, -1]]);
  });

  it("reads sparse tensor attributes (an extension)", () => {
    const a = attrOf("sp = sparse_tensor(float[3,4]) {float[2] vals {1.5, 2.0}, int64[2] {0, 7}}");
    expect(a.type).toBe("SPARSE_TENSOR");
    if (a.type !== "SPARSE_TENSOR") return;
    expect(a.value!.dims).toEqual([3, 4]);
    expect(a.value!.values.name).toBe("vals");
    expect(a.value!.values.values()).toEqual([1.5, 2]);
    expect(a.value!.indices.values()).toEqual([0n, 7n]);
  });

  it("reads attribute references in any attribute", () => {
    expect(attrOf("keepdims: int = @keepdims")).toEqual({
      name: "keepdims",
      type: "INT",
      value: undefined,
      refAttrName: "keepdims",
    });
    expect(attrOf("axes: ints = @my_axes")).toMatchObject({ type: "INTS", refAttrName: "my_axes" });
  });

  it("prints each kind so that it reads back identically", () => {
    const nodes = parseNodeListText(`
      y = com.microsoft.Fused:v2 <alpha: float = 0.5, beta = 1e-30, ints: ints = [1, -9223372036854775808],
        fl: floats = [1, 2.5, -0.0, inf], s = "x", ss = ["a", "b\\"c"], t = float[2] {1.0, 2.0},
        tt = int64 named {5}, tp: type_proto = float[3], tps = [seq(float), map(string, int64)],
        ts = [float {1.0}, uint8[0] {}], sp = sparse_tensor(float[2]) {float[1] v {3.0}, int64[1] {1}},
        sps = [sparse_tensor(float[2]) {float[1] {3.0}, int64[1] {1}}], r: int = @rr> (x, , z)`);
    const printed = printNode(nodes[0]!);
    expect(printed).toContain(
      "y = com.microsoft.Fused:v2 <alpha: float = 0.5, beta: float = 1e-30,",
    );
    expect(printed).toContain("fl: floats = [1.0, 2.5, -0.0, inf]");
    expect(printed).toContain('(x, "", z)');
    const back = parseNodeListText(printed);
    expect(canonGraph({ ...emptyGraph("g"), nodes: back })).toEqual(
      canonGraph({ ...emptyGraph("g"), nodes }),
    );
    expect(printNode(back[0]!)).toBe(printed);
  });
});

describe("nodes", () => {
  it("reads labels, zero outputs, omitted inputs, attributes after inputs, domains and overloads", () => {
    const nodes = parseNodeListText(`
      # a comment
      [first] a, b = Split <axis = 0> (x)   # trailing comment
      second: c = com.ms.Op:ovl (a, , b, "")
      = Print (c)
      d = If (cond) <then_branch: graph = t () => (float o) { o = Identity (a) }, else_branch: graph = e () => (float o) { o = Identity (b) }>
      e = Op (, x,)
      f, , g = Op2 () <k = 1>
    `);
    expect(nodes.map((n) => n.name)).toEqual([
      "first",
      "second",
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(nodes[0]).toMatchObject({ outputs: ["a", "b"], opType: "Split", domain: "" });
    expect(nodes[1]).toMatchObject({
      domain: "com.ms",
      opType: "Op",
      overload: "ovl",
      inputs: ["a", "", "b", ""],
    });
    expect(nodes[2]).toMatchObject({ outputs: [], opType: "Print", inputs: ["c"] });
    expect(nodes[3]!.attributes.map((a) => a.type)).toEqual(["GRAPH", "GRAPH"]);
    expect(nodes[4]!.inputs).toEqual(["", "x"]);
    expect(nodes[5]).toMatchObject({
      outputs: ["f", "", "g"],
      attributes: [{ name: "k", value: 1n }],
    });
    for (const n of nodes)
      expect(canonGraph({ ...emptyGraph("g"), nodes: parseNodeListText(printNode(n)) })).toEqual(
        canonGraph({ ...emptyGraph("g"), nodes: [n] }),
      );
  });

  it("reads a node list with or without braces", () => {
    const a = parseNodeListText("{ y = Abs (x) }");
    const b = parseNodeListText("y = Abs (x)");
    expect(a).toEqual(b);
    expect(parseNodeListText("")).toEqual([]);
  });

  it("round-trips If, Loop and Scan bodies, nested, with outer-scope references", () => {
    const g = roundTripGraph(`
      main (bool cond, int64 trip, float[2] x, float[3,2] seqin) => (float[2] r, float[2] final, float[3,2] scanned) {
        r = If (cond) <
          then_branch: graph = then_g () => (float[2] t) {
            t = If (cond) <then_branch: graph = inner () => (float[2] u) { u = Neg (x) }, else_branch: graph = inner2 () => (float[2] u) { u = Abs (x) }>
          },
          else_branch: graph = "else g" () => (float[2] e) { e = Identity (x) }
        >
        final = Loop (trip, cond, x) <body: graph = body (int64 it, bool c_in, float[2] acc) => (bool c_out, float[2] acc_out) {
          c_out = Identity (c_in)
          acc_out = Add (acc, x)
        }>
        scanned = Scan (seqin) <num_scan_inputs: int = 1, scan_input_axes: ints = [0],
          body: graph = scan_body (float[2] s) => (float[2] so) { so = Relu (s) }>
      }`);
    const [ifNode, loopNode, scanNode] = g.nodes;
    expect(ifNode!.attributes.map((a) => a.name)).toEqual(["then_branch", "else_branch"]);
    const elseBranch = ifNode!.attributes[1]!.value as Graph;
    expect(elseBranch.name).toBe("else g");
    expect((loopNode!.attributes[0]!.value as Graph).nodes).toHaveLength(2);
    expect(scanNode!.attributes.map((a) => a.type)).toEqual(["INT", "INTS", "GRAPH"]);
    expect(printGraph(g)).toContain(
      "   final = Loop (trip, cond, x) <\n      body: graph = body (",
    );
  });
});

describe("functions", () => {
  it("reads attributes with and without defaults, references, typed inputs and value_info", () => {
    const f = roundTripFunction(`
      <domain: "local", opset_import: ["" : 18], overload: "v1", doc_string: "fn">
      MyFn <k, alpha: float = 1.0, axes: ints = [0, 1], mode = "x"> (float[N] x, y) => (float[N] z)
        <float[N] tmp>
      {
        tmp = ReduceSum <keepdims: int = @k> (x)
        z = Mul (tmp, y)
      }`);
    expect(f).toMatchObject({
      name: "MyFn",
      domain: "local",
      overload: "v1",
      inputs: ["x", "y"],
      outputs: ["z"],
    });
    expect(f.attributes).toEqual(["k"]);
    expect(f.attributeProtos).toEqual([
      { name: "alpha", type: "FLOAT", value: 1 },
      { name: "axes", type: "INTS", value: [0n, 1n] },
      { name: "mode", type: "STRING", value: "x" },
    ]);
    expect(f.valueInfo.map((v) => v.name)).toEqual(["x", "z", "tmp"]);
    expect(f.nodes[0]!.attributes[0]).toMatchObject({
      name: "keepdims",
      type: "INT",
      refAttrName: "k",
    });
  });

  it("keeps value_info order when it does not follow the input/output order", () => {
    const f = parseFunctionText(
      `<domain: "d", opset_import: []> F (a, b) => (c) <float t, float b, float a> { c = Add (a, b) }`,
    );
    expect(f.valueInfo.map((v) => v.name)).toEqual(["t", "b", "a"]);
    const printed = printFunction(f);
    expect(printed).toContain("F (a, b) => (c)");
    expect(parseFunctionText(printed).valueInfo.map((v) => v.name)).toEqual(["t", "b", "a"]);
  });

  it("reads the ReduceLogSum-18 function body as the operator page writes it", () => {
    const f = parseFunctionText(`<
  domain: "",
  opset_import: ["" : 18]
>
ReduceLogSum <noop_with_empty_axes,keepdims>(data, axes) => (reduced)
{
   reduced_sum = ReduceSum <keepdims: int = @keepdims> (data, axes)
   reduced = Log (reduced_sum)
}`);
    expect(f.attributes).toEqual(["noop_with_empty_axes", "keepdims"]);
    expect(f.nodes.map((n) => n.opType)).toEqual(["ReduceSum", "Log"]);
    expect(f.opsetImports).toEqual([{ domain: "", version: 18 }]);
  });
});

describe("initializers", () => {
  it("reads initializers from the value list and from inputs with defaults", () => {
    const g = roundTripGraph(`
      g (float[2] x, float[2] bias = {0.5, 0.25}) => (float[2] y)
        <float[2] w = {1.0, 2.5}, int64 scalar = {7}, float[0] empty = {}, string[2] s = {"a", "b\\"c"}, float[N] t>
      { y = Add (x, w) }`);
    expect(g.inputs.map((v) => v.name)).toEqual(["x", "bias"]);
    expect(g.initializers.map((t) => [t.name, t.dims])).toEqual([
      ["bias", [2]],
      ["w", [2]],
      ["scalar", []],
      ["empty", [0]],
      ["s", [2]],
    ]);
    expect(g.initializers[4]!.values()).toEqual(["a", 'b"c']);
    expect(g.valueInfo.map((v) => v.name)).toEqual(["t"]);
  });

  it("keeps external data references exactly", () => {
    const g = roundTripGraph(`
      g () => (float[4] y) <float[4] big = ["location": "weights/x.bin", "offset": "4096", "length": "16", "checksum": "abc"]> { y = Identity (big) }`);
    const d = g.initializers[0]!.data;
    expect(d).toEqual({
      kind: "external",
      entries: [
        ["location", "weights/x.bin"],
        ["offset", "4096"],
        ["length", "16"],
        ["checksum", "abc"],
      ],
    });
    const attr = attrOf('value = float[4] = ["location": "c.bin"]');
    expect((attr.value as Tensor).data.kind).toBe("external");
    expect(printTensor(attr.value as Tensor)).toBe('float[4] = ["location": "c.bin"]');
  });

  it("reads sparse initializers (an extension)", () => {
    const g = roundTripGraph(
      `g () => (float[3,4] y) <sparse_tensor(float[3,4]) sp = {float[2] {1.0, 2.0}, int64[2] {0, 7}}> { y = Identity (sp) }`,
    );
    expect(g.sparseInitializers).toHaveLength(1);
    expect(g.sparseInitializers[0]!.values.name).toBe("sp");
    expect(g.sparseInitializers[0]!.dims).toEqual([3, 4]);
  });
});

describe("numbers", () => {
  function tensorRoundTrip(t: Tensor): Tensor {
    const text = printTensor(t);
    const back = attrOf(`value = ${text}`).value as Tensor;
    expect(back.dataType).toBe(t.dataType);
    expect(back.dims).toEqual(t.dims);
    expect(hex(tensorBytes(back))).toBe(hex(tensorBytes(t)));
    return back;
  }

  it("float16 and bfloat16: all 65536 bit patterns round-trip bit-exactly", () => {
    const bits = Uint16Array.from({ length: 65536 }, (_, i) => i);
    for (const type of [DataType.FLOAT16, DataType.BFLOAT16]) {
      const t = new Tensor(type, [65536], { kind: "raw", bytes: new Uint8Array(bits.buffer) });
      tensorRoundTrip(t);
    }
  });

  it("float16 values print as decimals; NaN payloads as bit patterns", () => {
    const t = new Tensor(DataType.FLOAT16, [9], {
      kind: "raw",
      bytes: new Uint8Array(
        new Uint16Array([0x8000, 0x0001, 0x03ff, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7e01])
          .buffer,
      ),
    });
    expect(printTensor(t)).toBe(
      "float16[9] {-0.0, 6e-8, 0.000061, 65500.0, inf, -inf, nan, -nan, 32257}",
    );
    tensorRoundTrip(t);
    // ONNX's own printer writes float16 as bit patterns; those read back too.
    const onnxStyle = attrOf("value = float16[2] {15360, 48128}").value as Tensor;
    expect(onnxStyle.values()).toEqual([1, -1]);
  });

  it("float32 prints the shortest decimal that reads back to the same bits", () => {
    const t = Tensor.from(
      DataType.FLOAT,
      [8],
      [0.1, 1 / 3, 1e-45, 3.4028234663852886e38, -0, 100, 1.17549435e-38, 16777216],
    );
    expect(printTensor(t)).toBe(
      "float[8] {0.1, 0.33333334, 1e-45, 3.4028235e+38, -0.0, 100.0, 1.1754944e-38, 16777216.0}",
    );
    tensorRoundTrip(t);
  });

  it("float32 and double: random bit patterns (incl. NaN payloads) round-trip bit-exactly", () => {
    let seed = 12345;
    const rand = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    const f32 = Uint32Array.from({ length: 20000 }, rand);
    f32.set(
      [
        0x7fc00000, 0xffc00000, 0x7f800001, 0xffffffff, 0x7f800000, 0xff800000, 0x80000000,
        0x00000001,
      ],
      0,
    );
    tensorRoundTrip(
      new Tensor(DataType.FLOAT, [f32.length], { kind: "raw", bytes: new Uint8Array(f32.buffer) }),
    );
    const f64 = Uint32Array.from({ length: 8000 }, rand);
    f64.set([0, 0x7ff80000, 1, 0x7ff80000, 0, 0xfff80000, 0, 0x80000000], 0);
    const t = new Tensor(DataType.DOUBLE, [f64.length / 2], {
      kind: "raw",
      bytes: new Uint8Array(f64.buffer),
    });
    const text = printTensor(t);
    expect(text.startsWith("double[4000] {nan, nan(0x7ff8000000000001), -nan, -0.0,")).toBe(true);
    tensorRoundTrip(t);
    const c = new Tensor(DataType.COMPLEX64, [2], {
      kind: "float",
      values: new Float32Array([1, -2, 0.5, 3]),
    });
    expect(printTensor(c)).toBe("complex64[2] {1.0, -2.0, 0.5, 3.0}");
    tensorRoundTrip(c);
  });

  it("integers keep full precision at the extremes of each type", () => {
    const cases: [number, string][] = [
      [DataType.INT64, "{-9223372036854775808, 9223372036854775807, 0}"],
      [DataType.UINT64, "{18446744073709551615, 0, 9007199254740993}"],
      [DataType.INT32, "{-2147483648, 2147483647, -1}"],
      [DataType.UINT32, "{4294967295, 0, 1}"],
      [DataType.INT8, "{-128, 127, 0}"],
      [DataType.UINT16, "{65535, 0, 1}"],
      [DataType.INT4, "{-8, 7, -1}"],
      [DataType.UINT4, "{15, 0, 9}"],
      [DataType.BOOL, "{1, 0, 1}"],
    ];
    for (const [type, values] of cases) {
      const name = printType({ kind: "tensor", elemType: type, shape: [3] });
      const t = attrOf(`value = ${name} ${values}`).value as Tensor;
      expect(printTensor(t)).toBe(`${name} ${values}`);
      tensorRoundTrip(t);
    }
    const big = attrOf("value = int64[1] {9223372036854775807}").value as Tensor;
    expect(big.values()).toEqual([2n ** 63n - 1n]);
  });

  it("tensors held in typed fields print the same as raw ones", () => {
    const typed = new Tensor(DataType.INT64, [2], {
      kind: "int64",
      values: BigInt64Array.from([-(2n ** 63n), 5n]),
    });
    expect(printTensor(typed)).toBe("int64[2] {-9223372036854775808, 5}");
    const half = new Tensor(DataType.FLOAT16, [2], {
      kind: "int32",
      values: Int32Array.from([0x3c00, 0xfe00]),
    });
    expect(printTensor(half)).toBe("float16[2] {1.0, -nan}");
    const u32 = new Tensor(DataType.UINT32, [1], {
      kind: "uint64",
      values: BigUint64Array.from([4294967295n]),
    });
    expect(printTensor(u32)).toBe("uint32[1] {4294967295}");
    const f = new Tensor(DataType.FLOAT, [1], { kind: "float", values: new Float32Array([0.1]) });
    expect(printTensor(f)).toBe("float[1] {0.1}");
  });
});

describe("names", () => {
  const weird = [
    "a.b",
    "1x",
    "",
    "with space",
    "float",
    "nan",
    "Inf",
    'q"uote\\back',
    "ünï",
    "a/b:0",
    "seq",
    "tensor",
  ];

  it("names that are not plain identifiers are quoted and round-trip everywhere", () => {
    const g: Graph = {
      name: "graph.name",
      inputs: weird.map((name) => ({
        name,
        type: { kind: "tensor", elemType: 1, shape: [weird[0]!, 2] },
      })),
      outputs: [{ name: "out/0" }],
      initializers: [Tensor.from(DataType.FLOAT, [1], [1], "init:0")],
      sparseInitializers: [],
      valueInfo: [{ name: "9", type: { kind: "tensor", elemType: 1 } }],
      nodes: weird.map((name, i) => ({
        name,
        opType: i % 2 ? "My-Op" : "Add",
        domain: ["", "com.x", "my-domain", "a..b"][i % 4]!,
        overload: i % 3 ? undefined : "v-1",
        inputs: [name, ""],
        outputs: [`${name}_${i}`],
        attributes: [{ name: name || "x", type: "INT" as const, value: BigInt(i) }],
      })),
    };
    const printed = printGraph(g);
    expect(printed).toContain('"graph.name" (float["a.b",2] "a.b", float["a.b",2] "1x"');
    const back = parseGraphText(printed);
    expect(canonGraph(back)).toEqual(canonGraph(g));
    expect(printGraph(back)).toBe(printed);
  });

  it("plain names stay bare", () => {
    expect(
      printNode({ opType: "Relu", domain: "", inputs: ["x_1"], outputs: ["_y"], attributes: [] }),
    ).toBe("_y = Relu (x_1)");
  });
});

describe("golden text", () => {
  // A model using every feature, in the printer's layout (`npm run golden:update` rewrites it).
  const path = new URL("../golden/text-features.onnxtxt", import.meta.url);

  it("parses and prints back unchanged", () => {
    const m = parseModelText(readFileSync(path, "utf8"), "text-features.onnxtxt");
    expectGolden(path, printModel(m));
    expect(m.functions.map((f) => f.name)).toEqual(["MyFn", "Plain"]);
    expect(m.graph.initializers.map((t) => t.name)).toContain("big");
  });
});

describe("compatibility", () => {
  it("reads text in the layout ONNX's own printer writes (float16 as bit patterns, attributes after inputs)", () => {
    const m = parseModelText(`<
   ir_version: 8,
   opset_import: ["" : 18, "local" : 1]
>
agraph (float[N] X, bool c) => (float[N] Y)
   <float16[2] h = {15360,48128}, float[2] w = {1,2}, float[N] T>
{
   [n0] T = local.F (X)
   Y = If (c) <then_branch: graph = g1 () => ( float[N] a) {
      a = Identity (T)
   }, else_branch: graph = g2 () => ( float[N] b) {
      b = Neg (T)
   }>
}

<
  domain: "local",
  overload: "o1",
  opset_import: ["" : 18]
>
F <k>(x) => (y)
{
   y = Identity (x)
}
`);
    expect(m.graph.initializers[0]!.values()).toEqual([1, -1]);
    expect(m.graph.initializers[1]!.values()).toEqual([1, 2]);
    expect(m.graph.valueInfo.map((v) => v.name)).toEqual(["T"]);
    expect(m.graph.nodes[0]).toMatchObject({ name: "n0", domain: "local", opType: "F" });
    expect(m.graph.nodes[1]!.attributes.map((a) => a.name)).toEqual(["then_branch", "else_branch"]);
    expect(m.functions[0]).toMatchObject({ name: "F", overload: "o1", attributes: ["k"] });
  });

  it("prints attributes and value infos on their own", () => {
    expect(printAttribute({ name: "axes", type: "INTS", value: [0n, -1n] })).toBe(
      "axes: ints = [0, -1]",
    );
    expect(printAttribute({ name: "k", type: "INT", value: undefined, refAttrName: "kd" })).toBe(
      "k: int = @kd",
    );
    expect(
      printValueInfo({ name: "x.1", type: { kind: "tensor", elemType: 1, shape: ["N", null] } }),
    ).toBe('float[N,?] "x.1"');
    expect(printValueInfo({ name: "x" })).toBe("x");
  });
});
