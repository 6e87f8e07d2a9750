// Shape rules of the convolution and pooling family, Resize/Upsample, GatherND, OneHot, the
// quantization and recurrent ops and the rest of misc.ts; data propagation of partly known shape
// values (sym-values.ts) through arithmetic, Equal, Where, Range, Reshape and Flatten.

import { describe, expect, it } from "vitest";
import { checkModel, describeType, formatProblem, inferTypes } from "../../src/check/index.js";
import { analyze, withInferredValueInfo } from "../../src/check/infer.js";
import { symBinary, symProduct, symQuotient, symWhere } from "../../src/check/sym-values.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Dim, type Node, type ValueInfo } from "../../src/ir/types.js";

const f32 = (name: string, shape?: Dim[]) => valueInfo(name, "float", shape);
const i64 = (name: string, shape?: Dim[]) => valueInfo(name, "int64", shape);
const ints = (name: string, values: number[], dims = [values.length]) =>
  Tensor.from(DataType.INT64, dims, values.map(BigInt), name);
const floats = (name: string, values: number[], dims = [values.length]) =>
  Tensor.from(DataType.FLOAT, dims, values, name);

interface Case {
  nodes: Node[];
  inputs: ValueInfo[];
  initializers?: Tensor[];
  opset?: number;
}

/** The inferred types (as text) of the named values; the model must check clean. */
function types(c: Case, names?: string[]): string[] {
  const last = c.nodes[c.nodes.length - 1]!;
  const outs = last.outputs.filter(Boolean).map((name) => ({ name }));
  const opset = c.opset ?? 18;
  const m = model(
    graph({ nodes: c.nodes, inputs: c.inputs, initializers: c.initializers ?? [], outputs: outs }),
    opset,
  );
  expect(checkModel(m).problems.map(formatProblem)).toEqual([]);
  const t = inferTypes(m);
  return (names ?? last.outputs).map((o) => describeType(t.get(o)));
}
const one = (c: Case) => types(c)[0];

describe("convolution and pooling", () => {
  const x = f32("x", ["N", 3, 32, 30]);
  it("Conv: pads, strides, dilations, auto_pad, kernel from the weights", () => {
    const w = floats("w", new Array(8 * 3 * 9).fill(0), [8, 3, 3, 3]);
    const conv = (attrs: Record<string, unknown>) =>
      one({ nodes: [node("Conv", ["x", "w"], ["y"], attrs)], inputs: [x], initializers: [w] });
    expect(conv({})).toBe("float[N,8,30,28]");
    expect(conv({ pads: [1, 1, 1, 1] })).toBe("float[N,8,32,30]");
    expect(conv({ pads: [1, 1, 1, 1], strides: [2, 2] })).toBe("float[N,8,16,15]");
    expect(conv({ dilations: [2, 2] })).toBe("float[N,8,28,26]");
    expect(conv({ auto_pad: "SAME_UPPER", strides: [2, 2] })).toBe("float[N,8,16,15]");
    expect(conv({ auto_pad: "VALID", strides: [3, 3] })).toBe("float[N,8,10,10]");
    expect(conv({ kernel_shape: [3, 3], group: 1 })).toBe("float[N,8,30,28]");
  });
  it("a 1×1 Conv keeps a symbolic size; an unknown one stays unknown", () => {
    const w = floats("w", new Array(4 * 3).fill(0), [4, 3, 1, 1]);
    expect(
      one({
        nodes: [node("Conv", ["x", "w"], ["y"])],
        inputs: [f32("x", [1, 3, "H", 5])],
        initializers: [w],
      }),
    ).toBe("float[1,4,H,5]");
    expect(
      one({
        nodes: [node("Conv", ["x", "w"], ["y"])],
        inputs: [f32("x", [1, 3, null, 5])],
        initializers: [w],
      }),
    ).toBe("float[1,4,?,5]");
  });
  it("ConvTranspose: strides, pads, output_padding, output_shape, group", () => {
    const w = floats("w", new Array(3 * 2 * 9).fill(0), [3, 2, 3, 3]);
    const ct = (attrs: Record<string, unknown>) =>
      one({
        nodes: [node("ConvTranspose", ["x", "w"], ["y"], attrs)],
        inputs: [f32("x", [1, 3, 5, 6])],
        initializers: [w],
      });
    expect(ct({})).toBe("float[1,2,7,8]");
    expect(ct({ strides: [2, 2], pads: [1, 1, 1, 1], output_padding: [1, 1] })).toBe(
      "float[1,2,10,12]",
    );
    expect(ct({ output_shape: [9, 9], strides: [2, 2] })).toBe("float[1,2,9,9]");
    expect(ct({ auto_pad: "SAME_UPPER", strides: [2, 2] })).toBe("float[1,2,10,12]");
  });
  it("MaxPool, AveragePool, LpPool: ceil_mode drops a window that starts in the padding", () => {
    const pool = (op: string, attrs: Record<string, unknown>, shape: Dim[] = [2, 4, 5, 5]) =>
      types({
        nodes: [node(op, ["x"], op === "MaxPool" ? ["y", "i"] : ["y"], attrs)],
        inputs: [f32("x", shape)],
      });
    expect(pool("MaxPool", { kernel_shape: [2, 2], strides: [2, 2] })).toEqual([
      "float[2,4,2,2]",
      "int64[2,4,2,2]",
    ]);
    expect(pool("MaxPool", { kernel_shape: [2, 2], strides: [2, 2], ceil_mode: 1 })[0]).toBe(
      "float[2,4,3,3]",
    );
    expect(
      pool(
        "AveragePool",
        { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], ceil_mode: 1 },
        [1, 1, 6, 6],
      )[0],
    ).toBe("float[1,1,4,4]");
    expect(
      pool(
        "AveragePool",
        { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], ceil_mode: 1 },
        [1, 1, 5, 5],
      )[0],
    ).toBe("float[1,1,3,3]");
    expect(pool("LpPool", { kernel_shape: [3, 3], auto_pad: "SAME_LOWER" })[0]).toBe(
      "float[2,4,5,5]",
    );
    expect(pool("MaxPool", { kernel_shape: [3, 3], dilations: [2, 2] })[0]).toBe("float[2,4,1,1]");
  });
  it("MaxUnpool, RoiAlign, MaxRoiPool", () => {
    expect(
      one({
        nodes: [node("MaxUnpool", ["x", "i"], ["y"], { kernel_shape: [2, 2], strides: [2, 2] })],
        inputs: [f32("x", [1, 2, 3, 3]), i64("i", [1, 2, 3, 3])],
      }),
    ).toBe("float[1,2,6,6]");
    expect(
      one({
        nodes: [node("RoiAlign", ["x", "r", "b"], ["y"], { output_height: 4, output_width: 5 })],
        inputs: [f32("x", [1, 8, 10, 10]), f32("r", ["R", 4]), i64("b", ["R"])],
      }),
    ).toBe("float[R,8,4,5]");
    expect(
      one({
        nodes: [node("MaxRoiPool", ["x", "r"], ["y"], { pooled_shape: [2, 3] })],
        inputs: [f32("x", [1, 8, 10, 10]), f32("r", [5, 5])],
      }),
    ).toBe("float[5,8,2,3]");
  });
});

describe("resizing, gathering, encoding", () => {
  it("Resize by constant scales (floor, in single precision) or sizes, with axes", () => {
    const x = f32("x", ["N", 3, 10, 7]);
    expect(
      one({
        nodes: [node("Resize", ["x", "", "s"], ["y"])],
        inputs: [x],
        initializers: [floats("s", [1, 1, 2, 0.5])],
      }),
    ).toBe("float[N,3,20,3]");
    expect(
      one({
        nodes: [node("Resize", ["x", "", "", "z"], ["y"])],
        inputs: [x],
        initializers: [ints("z", [2, 3, 5, 5])],
      }),
    ).toBe("float[2,3,5,5]");
    expect(
      one({
        nodes: [node("Resize", ["x", "", "", "z"], ["y"], { axes: [2, 3] })],
        inputs: [x],
        initializers: [ints("z", [4, 4])],
      }),
    ).toBe("float[N,3,4,4]");
    expect(
      one({ nodes: [node("Resize", ["x", "", "s"], ["y"])], inputs: [x, f32("s", [4])] }),
    ).toBe("float[?,?,?,?]");
    expect(
      one({
        nodes: [node("Upsample", ["x", "s"], ["y"])],
        inputs: [x],
        initializers: [floats("s", [1, 1, 2, 2])],
        opset: 9,
      }),
    ).toBe("float[N,3,20,14]");
  });
  it("Resize to sizes taken from another tensor's shape (data propagation)", () => {
    expect(
      one({
        nodes: [
          node("Shape", ["x"], ["s"], { start: 2 }),
          node("Shape", ["x"], ["nc"], { end: 2 }),
          node("Concat", ["nc", "s"], ["z"], { axis: 0 }),
          node("Resize", ["x", "", "", "z"], ["y"]),
        ],
        inputs: [f32("x", ["N", 3, "H", "W"])],
      }),
    ).toBe("float[N,3,H,W]");
  });
  it("GatherND with batch_dims; OneHot with a constant depth", () => {
    expect(
      one({
        nodes: [node("GatherND", ["d", "i"], ["y"], { batch_dims: 1 })],
        inputs: [f32("d", [2, 5, 6, 7]), i64("i", [2, 4, 2])],
      }),
    ).toBe("float[2,4,7]");
    expect(
      one({
        nodes: [node("OneHot", ["i", "depth", "v"], ["y"], { axis: 1 })],
        inputs: [i64("i", ["N", 3])],
        initializers: [ints("depth", [10], []), floats("v", [0, 1])],
      }),
    ).toBe("float[N,10,3]");
  });
  it("Compress, Unique, NonMaxSuppression: data-dependent sizes unknown", () => {
    expect(
      one({
        nodes: [node("Compress", ["x", "c"], ["y"], { axis: 1 })],
        inputs: [f32("x", [2, 5]), valueInfo("c", "bool", [5])],
      }),
    ).toBe("float[2,?]");
    expect(
      types({
        nodes: [node("Unique", ["x"], ["y", "i", "inv", "n"])],
        inputs: [f32("x", [2, 5])],
      }),
    ).toEqual(["float[?]", "int64[?]", "int64[10]", "int64[?]"]);
  });
});

describe("quantization, recurrent and other ops", () => {
  it("QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger", () => {
    expect(
      one({
        nodes: [node("QuantizeLinear", ["x", "s", "z"], ["y"])],
        inputs: [f32("x", [2, 3]), f32("s", []), valueInfo("z", "int8", [])],
      }),
    ).toBe("int8[2,3]");
    expect(
      one({
        nodes: [node("DequantizeLinear", ["x", "s"], ["y"])],
        inputs: [valueInfo("x", "uint8", [2, 3]), f32("s", [])],
      }),
    ).toBe("float[2,3]");
    expect(
      types({
        nodes: [node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])],
        inputs: [f32("x", [4])],
      }),
    ).toEqual(["uint8[4]", "float[]", "uint8[]"]);
    expect(
      one({
        nodes: [node("MatMulInteger", ["a", "b"], ["y"])],
        inputs: [valueInfo("a", "uint8", ["N", 2, 3]), valueInfo("b", "uint8", [3, 4])],
      }),
    ).toBe("int32[N,2,4]");
  });
  it("LSTM and GRU outputs, both layouts and directions", () => {
    const lstm = (attrs: Record<string, unknown>, x: Dim[]) =>
      types({
        nodes: [node("LSTM", ["x", "w", "r"], ["y", "h", "c"], attrs)],
        inputs: [f32("x", x), f32("w", [2, 16, 3]), f32("r", [2, 16, 4])],
      });
    expect(lstm({ hidden_size: 4, direction: "bidirectional" }, ["T", "B", 3])).toEqual([
      "float[T,2,B,4]",
      "float[2,B,4]",
      "float[2,B,4]",
    ]);
    expect(
      types({
        nodes: [node("GRU", ["x", "w", "r"], ["y", "h"], { hidden_size: 4, layout: 1 })],
        inputs: [f32("x", ["B", "T", 3]), f32("w", [1, 12, 3]), f32("r", [1, 12, 4])],
      }),
    ).toEqual(["float[B,T,1,4]", "float[B,1,4]"]);
  });
  it("Det, GridSample, RandomNormal, the losses", () => {
    expect(one({ nodes: [node("Det", ["x"], ["y"])], inputs: [f32("x", [5, 3, 3])] })).toBe(
      "float[5]",
    );
    expect(
      one({
        nodes: [node("GridSample", ["x", "g"], ["y"])],
        inputs: [f32("x", ["N", 3, 8, 8]), f32("g", ["N", 4, 5, 2])],
      }),
    ).toBe("float[N,3,4,5]");
    expect(one({ nodes: [node("RandomNormal", [], ["y"], { shape: [2, 3] })], inputs: [] })).toBe(
      "float[2,3]",
    );
    expect(
      one({
        nodes: [node("SoftmaxCrossEntropyLoss", ["s", "l"], ["y"], { reduction: "none" })],
        inputs: [f32("s", ["N", 5]), i64("l", ["N"])],
      }),
    ).toBe("float[N]");
  });
});

describe("data propagation", () => {
  it("sym-values: arithmetic, Equal, Where, products and quotients", () => {
    expect(symBinary("Mul", ["b", 3, null], [1])).toEqual(["b", 3, null]);
    expect(symBinary("Mul", ["b", 3], [2, 2])).toEqual([null, 6]);
    expect(symBinary("Add", ["b", 4], [0, 1])).toEqual(["b", 5]);
    expect(symBinary("Equal", ["b", 4, "s"], [-1, 4, "s"])).toEqual([0, 1, 1]);
    expect(symBinary("Equal", ["b"], ["s"])).toEqual([null]);
    expect(symBinary("Div", [7, "b"], [2, 1])).toEqual([3, "b"]);
    expect(symBinary("Max", ["b", 2], [0, 5])).toEqual(["b", 5]);
    expect(symWhere([1, 0, null], [9, 9, "x"], ["b", "s", "x"])).toEqual([9, "s", "x"]);
    expect(symProduct(["b", 1, 1])).toBe("b");
    expect(symProduct(["b", 2])).toBe(null);
    expect(symProduct([2, 3])).toBe(6);
    expect(symQuotient(["b", "s", 32], ["b", "s", 4])).toBe(8);
    expect(symQuotient(["b", "s", 32], ["s", 32])).toBe("b");
    expect(symQuotient(["b", "s", 32], ["x", 32])).toBe(null);
    expect(symQuotient(["b", 30], [4])).toBe(null);
  });
  it("the torch pattern Where(Equal(shape, -1), ones, shape) feeding Expand", () => {
    expect(
      one({
        nodes: [
          node("Shape", ["x"], ["s"]),
          node("Shape", ["s"], ["n"]),
          node(
            "ConstantOfShape",
            ["n"],
            ["ones"],
            {},
            {
              attributes: [{ name: "value", type: "TENSOR", value: ints("", [1], [1]) }],
            },
          ),
          node("Mul", ["ones", "minus"], ["m"]),
          node("Equal", ["s", "m"], ["eq"]),
          node("Where", ["eq", "ones1", "s"], ["t"]),
          node("Expand", ["v", "t"], ["y"]),
        ],
        inputs: [f32("x", ["B", "S"]), f32("v", [1, 1])],
        initializers: [ints("minus", [-1], []), ints("ones1", [1, 1])],
      }),
    ).toBe("float[B,S]");
  });
  it("Reshape's -1 with symbolic dimensions cancelled; Flatten of a symbol and 1s", () => {
    expect(
      one({
        nodes: [
          node("Shape", ["x"], ["s"], { end: 2 }),
          node("Concat", ["s", "tail"], ["t"], { axis: 0 }),
          node("Reshape", ["x", "t"], ["y"]),
        ],
        inputs: [f32("x", ["B", "S", 32])],
        initializers: [ints("tail", [4, -1])],
      }),
    ).toBe("float[B,S,4,8]");
    expect(
      one({ nodes: [node("Flatten", ["x"], ["y"])], inputs: [f32("x", ["B", 512, 1, 1])] }),
    ).toBe("float[B,512]");
  });
  it("Range(0, n, 1) with n a symbol has n values", () => {
    expect(
      one({
        nodes: [
          node("Shape", ["x"], ["s"]),
          node("Gather", ["s", "one"], ["n"], { axis: 0 }),
          node("Range", ["zero", "n", "one"], ["y"]),
        ],
        inputs: [f32("x", ["B", "S"])],
        initializers: [ints("one", [1], []), ints("zero", [0], [])],
      }),
    ).toBe("int64[S]");
  });
});

describe("fresh symbols for unknown dimensions (freshDims)", () => {
  function freshTypes(c: Case, names: string[]): string[] {
    const m = model(
      graph({
        nodes: c.nodes,
        inputs: c.inputs,
        initializers: c.initializers ?? [],
        outputs: names.map((name) => ({ name })),
      }),
      c.opset ?? 18,
    );
    const t = analyze(m, { freshDims: true }).types.get(m.graph)!;
    return names.map((n) => describeType(t.get(n)));
  }
  it("each unknown dimension gets its own symbol, which flows on", () => {
    const [a, b, ra, sum] = freshTypes(
      {
        nodes: [
          node("NonZero", ["x"], ["a"]),
          node("NonZero", ["y"], ["b"]),
          node("Relu", ["a"], ["ra"]),
          node("Add", ["a", "b"], ["sum"]),
        ],
        inputs: [f32("x", [3, 4]), f32("y", [3, 4])],
      },
      ["a", "b", "ra", "sum"],
    );
    // Alike nodes on other data: not served from the checker's memo, so symbols of their own.
    expect(a).toBe("int64[2,unk__0]");
    expect(b).toBe("int64[2,unk__1]");
    expect(ra).toBe("int64[2,unk__0]");
    expect(sum).toBe("int64[2,unk__2]");
  });
  it("avoids names the model uses; off by default", () => {
    const c: Case = {
      nodes: [node("NonZero", ["x"], ["a"])],
      inputs: [f32("x", ["unk__0", 4])],
    };
    expect(freshTypes(c, ["a"])).toEqual(["int64[2,unk__1]"]);
    expect(one(c)).toBe("int64[2,?]");
  });
});

describe("symbolic spatial sizes", () => {
  it("a stride-1 window whose pads cover the kernel keeps the symbol; others give an expression of it", () => {
    const w = floats("w", new Array(2 * 3 * 9).fill(0), [2, 3, 3, 3]);
    const conv = (attrs: Record<string, unknown>) =>
      one({
        nodes: [node("Conv", ["x", "w"], ["y"], attrs)],
        inputs: [f32("x", ["N", 3, "H", "W"])],
        initializers: [w],
      });
    expect(conv({ pads: [1, 1, 1, 1] })).toBe("float[N,2,H,W]");
    expect(conv({ auto_pad: "SAME_UPPER" })).toBe("float[N,2,H,W]");
    expect(conv({ pads: [1, 1, 1, 1], strides: [2, 2] })).toBe("float[N,2,ceil(H/2),ceil(W/2)]");
    expect(conv({})).toBe("float[N,2,H-2,W-2]");
    expect(conv({ strides: [2, 3] })).toBe("float[N,2,floor((H-1)/2),floor(W/3)]");
    expect(
      one({
        nodes: [node("MaxPool", ["x"], ["y"], { kernel_shape: [5, 5], pads: [2, 2, 2, 2] })],
        inputs: [f32("x", ["N", 3, "H", "W"])],
      }),
    ).toBe("float[N,3,H,W]");
  });
});

describe("value_info with fresh symbols", () => {
  it("withInferredValueInfo writes unk__N where a dimension is unknown, unless freshDims is false", () => {
    const m = model(
      graph({
        nodes: [node("NonZero", ["x"], ["a"]), node("Relu", ["a"], ["y"])],
        inputs: [f32("x", [3, 4])],
        outputs: [{ name: "y" }],
      }),
      18,
    );
    const dims = (mm: typeof m) =>
      mm.graph.valueInfo.map((v) => (v.type?.kind === "tensor" ? v.type.shape : undefined));
    expect(dims(withInferredValueInfo(m))).toEqual([[2, "unk__0"]]);
    expect(dims(withInferredValueInfo(m, { freshDims: true }))).toEqual([[2, "unk__0"]]);
    expect(dims(withInferredValueInfo(m, { freshDims: false }))).toEqual([[2, null]]);
  });
});

describe("Einsum", () => {
  const ein = (equation: string, shapes: Dim[][]) =>
    one({
      nodes: [
        node(
          "Einsum",
          shapes.map((_, i) => `x${i}`),
          ["y"],
          { equation },
        ),
      ],
      inputs: shapes.map((s, i) => f32(`x${i}`, s)),
    });
  it("explicit and implicit outputs, ellipsis broadcasting, symbols", () => {
    expect(
      ein("bij,bjk->bik", [
        ["B", 2, 3],
        ["B", 3, 4],
      ]),
    ).toBe("float[B,2,4]");
    expect(
      ein("ij,jk", [
        [2, 3],
        [3, 4],
      ]),
    ).toBe("float[2,4]");
    expect(
      ein("...ij,...jk->...ik", [
        [5, 1, 2, 3],
        [7, 3, 4],
      ]),
    ).toBe("float[5,7,2,4]");
    expect(ein("ii->i", [[3, 3]])).toBe("float[3]");
    expect(ein("ij->", [[3, 4]])).toBe("float[]");
    expect(
      ein("bhqd,bhkd->bhqk", [
        ["B", 4, "S", 8],
        ["B", 4, "S", 8],
      ]),
    ).toBe("float[B,4,S,S]");
  });
});

describe("data propagation stops at ops it does not know", () => {
  it("Mod of a shape value leaves the values unknown (the rank stays)", () => {
    expect(
      one({
        nodes: [
          node("Shape", ["x"], ["s"]),
          node("Mod", ["s", "two"], ["m"]),
          node("Reshape", ["x", "m"], ["y"]),
        ],
        inputs: [f32("x", ["B", 4])],
        initializers: [ints("two", [2], [])],
      }),
    ).toBe("float[?,?]");
  });
});
