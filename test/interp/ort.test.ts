// The interpreter against onnxruntime-node on the same graphs and inputs.

import { describe, expect, it } from "vitest";
import type { RTensor } from "../../src/interp/types.js";
import { toIRTensor as toIR } from "../../src/interp/ir-tensors.js";
import { fromFloat64 } from "../../src/interp/tensor.js";
import type { Graph, Model } from "../../src/ir/types.js";
import { DataType, graph, i64, model, node, valueInfo } from "../helpers/interp.js";
import { compareWithOrt, prependConstants, random } from "../helpers/ort.js";

const m = (g: Graph, opset = 18): Model => model(g, opset);

describe("interpreter agrees with onnxruntime-node", () => {
  it("float arithmetic with broadcasting, unary math, variadic Max/Min, Where", async () => {
    const g = graph({
      nodes: [
        node("Mul", ["a", "b"], ["ab"]),
        node("Sub", ["ab", "c"], ["d"]),
        node("Abs", ["d"], ["ad"]),
        node("Sqrt", ["ad"], ["s"]),
        node("Exp", ["c"], ["e"]),
        node("Log", ["e"], ["l"]),
        node("Div", ["s", "e"], ["q"]),
        node("Max", ["q", "l", "b"], ["mx"]),
        node("Min", ["mx", "a"], ["mn"]),
        node("Greater", ["a", "b"], ["gt"]),
        node("Neg", ["mn"], ["ng"]),
        node("Where", ["gt", "mn", "ng"], ["y"]),
      ],
      inputs: [
        valueInfo("a", "float", [4, 1, 5]),
        valueInfo("b", "float", [3, 1]),
        valueInfo("c", "float", [5]),
      ],
      outputs: [valueInfo("y", "float")],
    });
    await compareWithOrt(m(g), {
      a: random(DataType.FLOAT, [4, 1, 5], 1),
      b: random(DataType.FLOAT, [3, 1], 2),
      c: random(DataType.FLOAT, [5], 3),
    });
  });

  it("integer arithmetic that overflows wraps the same way (int32, int64)", async () => {
    for (const [t, dtype] of [
      ["int32", DataType.INT32],
      ["int64", DataType.INT64],
    ] as const) {
      const g = graph({
        nodes: [
          node("Mul", ["a", "b"], ["p"]),
          node("Add", ["p", "a"], ["s"]),
          node("Sub", ["s", "b"], ["d"]),
          node("Div", ["d", "b"], ["y"]),
        ],
        inputs: [valueInfo("a", t, [6]), valueInfo("b", t, [6])],
        outputs: [valueInfo("y", t), valueInfo("p", t)],
      });
      const big = dtype === DataType.INT64 ? 4e18 : 2e9;
      const a = random(dtype, [6], 11, -big, big);
      const b = random(dtype, [6], 12, -big / 4, big / 4);
      await compareWithOrt(m(g), { a, b });
    }
  });

  it("Cast float → float16 → float and comparisons", async () => {
    const g = graph({
      nodes: [
        node("Cast", ["x"], ["h"], { to: DataType.FLOAT16 }),
        node("Cast", ["h"], ["y"], { to: DataType.FLOAT }),
        node("Cast", ["x"], ["i"], { to: DataType.INT32 }),
        node("Equal", ["x", "y"], ["eq"]),
        node("LessOrEqual", ["y", "x"], ["le"]),
        node("And", ["eq", "le"], ["both"]),
        node("Not", ["both"], ["nb"]),
      ],
      inputs: [valueInfo("x", "float", [200])],
      outputs: [valueInfo("y", "float"), valueInfo("i", "int32"), valueInfo("nb", "bool")],
    });
    const x = random(DataType.FLOAT, [200], 5, -70000, 70000);
    await compareWithOrt(m(g), { x }, { rtol: 0, atol: 0 });
  });

  it("Slice, Pad, Concat, Gather, Reshape, Expand, Unsqueeze, Squeeze, CumSum, Shape, Range", async () => {
    const g = graph({
      nodes: [
        node("Slice", ["x", "starts", "ends", "axes", "steps"], ["sl"]),
        node("Pad", ["sl", "pads"], ["pd"], { mode: "reflect" }),
        node("Concat", ["pd", "pd"], ["cc"], { axis: 0 }),
        node("Gather", ["cc", "idx"], ["ga"], { axis: 1 }),
        node("Reshape", ["ga", "shp"], ["rs"]),
        node("Expand", ["rs", "eshape"], ["ex"]),
        node("Unsqueeze", ["ex", "uax"], ["us"]),
        node("Squeeze", ["us", "uax"], ["sq"]),
        node("CumSum", ["sq", "cax"], ["y"], { exclusive: 1, reverse: 1 }),
        node("Shape", ["y"], ["ys"]),
        node("Range", ["r0", "r1", "r2"], ["rg"]),
      ],
      inputs: [valueInfo("x", "float", [4, 6])],
      initializers: [],
      outputs: [valueInfo("y", "float"), valueInfo("ys", "int64"), valueInfo("rg", "int64")],
    });
    const consts: Record<string, RTensor> = {
      starts: i64([2], [-1, 1]),
      ends: i64([2], [-(2n ** 63n), 2n ** 63n - 1n]),
      axes: i64([2], [0, 1]),
      steps: i64([2], [-2, 2]),
      pads: i64([4], [1, 2, 0, 1]),
      idx: i64([3], [-1, 0, 2]),
      shp: i64([2], [-1, 1]),
      eshape: i64([3], [2, 1, 4]),
      uax: i64([1], [-1]),
      cax: i64([], [1]),
      r0: i64([], [10]),
      r1: i64([], [-3]),
      r2: i64([], [-4]),
    };
    // Feed the constant inputs as Constant nodes so both runtimes see the same graph.
    prependConstants(g, consts);
    await compareWithOrt(m(g), { x: random(DataType.FLOAT, [4, 6], 9) });
  });

  it("If and Loop bodies reading outer-scope values", async () => {
    const thenG = graph({
      name: "then",
      nodes: [node("Mul", ["x", "x"], ["t"])],
      outputs: [valueInfo("t", "float", [3])],
    });
    const elseG = graph({
      name: "else",
      nodes: [node("Neg", ["x"], ["e"])],
      outputs: [valueInfo("e", "float", [3])],
    });
    const body = graph({
      name: "body",
      nodes: [
        node("Add", ["acc", "x"], ["acc2"]),
        node("Cast", ["i"], ["fi"], { to: DataType.FLOAT }),
        node("Mul", ["acc2", "fi"], ["sc"]),
        node("Identity", ["cond"], ["cond2"]),
      ],
      inputs: [
        valueInfo("i", "int64", []),
        valueInfo("cond", "bool", []),
        valueInfo("acc", "float", [3]),
      ],
      outputs: [
        valueInfo("cond2", "bool", []),
        valueInfo("acc2", "float", [3]),
        valueInfo("sc", "float", [3]),
      ],
    });
    const g = graph({
      nodes: [
        node("If", ["c"], ["br"], { then_branch: thenG, else_branch: elseG }),
        node("Loop", ["n", "", "br"], ["fin", "scans"], { body }),
      ],
      inputs: [
        valueInfo("c", "bool", []),
        valueInfo("x", "float", [3]),
        valueInfo("n", "int64", []),
      ],
      outputs: [valueInfo("fin", "float"), valueInfo("scans", "float")],
    });
    for (const c of [0, 1])
      await compareWithOrt(m(g, 16), {
        c: { dtype: DataType.BOOL, shape: [], data: Uint8Array.of(c) },
        x: random(DataType.FLOAT, [3], 21),
        n: i64([], [4]),
      });
  });

  it("Conv (pads, strides, dilations, groups, bias) and pooling (ceil_mode, count_include_pad, SAME)", async () => {
    const g = graph({
      nodes: [
        node("Conv", ["x", "w", "b"], ["c1"], {
          pads: [1, 0, 2, 1],
          strides: [2, 1],
          dilations: [1, 2],
          group: 2,
        }),
        node("Conv", ["x", "w2"], ["c2"], { auto_pad: "SAME_UPPER", strides: [2, 2] }),
        node("MaxPool", ["x"], ["mp", "mi"], {
          kernel_shape: [3, 2],
          strides: [2, 2],
          ceil_mode: 1,
          pads: [1, 0, 0, 1],
        }),
        node("AveragePool", ["x"], ["ap"], {
          kernel_shape: [2, 3],
          pads: [1, 1, 1, 1],
          count_include_pad: 1,
        }),
        node("AveragePool", ["x"], ["ap0"], {
          kernel_shape: [3, 3],
          pads: [1, 1, 1, 1],
          strides: [2, 2],
        }),
        node("GlobalAveragePool", ["x"], ["gap"]),
      ],
      inputs: [
        valueInfo("x", "float", [2, 4, 7, 6]),
        valueInfo("w", "float", [6, 2, 3, 2]),
        valueInfo("b", "float", [6]),
        valueInfo("w2", "float", [3, 4, 3, 3]),
      ],
      outputs: ["c1", "c2", "mp", "mi", "ap", "ap0", "gap"].map((n) =>
        valueInfo(n, n === "mi" ? "int64" : "float"),
      ),
    });
    await compareWithOrt(m(g), {
      x: random(DataType.FLOAT, [2, 4, 7, 6], 31),
      w: random(DataType.FLOAT, [6, 2, 3, 2], 32),
      b: random(DataType.FLOAT, [6], 33),
      w2: random(DataType.FLOAT, [3, 4, 3, 3], 34),
    });
  });

  it("MatMul with batch broadcasting and 1-D operands, Gemm, Softmax family, LayerNormalization, Clip, Mod", async () => {
    const g = graph({
      nodes: [
        node("MatMul", ["a", "b"], ["mm"]),
        node("MatMul", ["v", "b"], ["vm"]),
        node("Gemm", ["g1", "g2", "gc"], ["gm"], { transA: 1, alpha: 0.5, beta: 2.5 }),
        node("Softmax", ["mm"], ["sm"], { axis: 1 }),
        node("LogSoftmax", ["mm"], ["lsm"]),
        node("Hardmax", ["mm"], ["hm"], { axis: -2 }),
        node("ArgMax", ["mm"], ["am"], { axis: 2, keepdims: 0 }),
        node("LayerNormalization", ["mm", "lns", "lnb"], ["ln"], { axis: -2 }),
        node("Clip", ["mm", "lo", "hi"], ["cl"]),
        node("Mod", ["ia", "ib"], ["md"]),
        node("Trilu", ["mm", "tk"], ["tl"], { upper: 0 }),
      ],
      inputs: [
        valueInfo("a", "float", [2, 1, 3, 4]),
        valueInfo("b", "float", [3, 4, 5]),
        valueInfo("v", "float", [4]),
        valueInfo("g1", "float", [4, 3]),
        valueInfo("g2", "float", [4, 5]),
        valueInfo("gc", "float", [5]),
        valueInfo("lns", "float", [3, 5]),
        valueInfo("lnb", "float", [5]),
        valueInfo("lo", "float", []),
        valueInfo("hi", "float", []),
        valueInfo("ia", "int32", [8]),
        valueInfo("ib", "int32", [8]),
        valueInfo("tk", "int64", []),
      ],
      outputs: ["mm", "vm", "gm", "sm", "lsm", "hm", "am", "ln", "cl", "md", "tl"].map((n) =>
        valueInfo(n, n === "am" ? "int64" : n === "md" ? "int32" : "float"),
      ),
    });
    await compareWithOrt(
      m(g),
      {
        a: random(DataType.FLOAT, [2, 1, 3, 4], 41),
        b: random(DataType.FLOAT, [3, 4, 5], 42),
        v: random(DataType.FLOAT, [4], 43),
        g1: random(DataType.FLOAT, [4, 3], 44),
        g2: random(DataType.FLOAT, [4, 5], 45),
        gc: random(DataType.FLOAT, [5], 46),
        lns: random(DataType.FLOAT, [3, 5], 47),
        lnb: random(DataType.FLOAT, [5], 48),
        lo: fromFloat64(DataType.FLOAT, [], Float64Array.of(-1)),
        hi: fromFloat64(DataType.FLOAT, [], Float64Array.of(1.5)),
        ia: random(DataType.INT32, [8], 49, -20, 20),
        ib: fromFloat64(DataType.INT32, [8], Float64Array.of(3, -3, 7, -7, 5, 2, -4, 9)),
        tk: i64([], [1]),
      },
      { rtol: 1e-4, atol: 1e-5 },
    );
  });

  it("sequence ops, TopK, OneHot, GatherND, Scatter*, NonZero, Compress, DepthToSpace, SpaceToDepth", async () => {
    const g = graph({
      nodes: [
        node("SplitToSequence", ["x", "two"], ["seq"], { axis: 1 }),
        node("SequenceInsert", ["seq", "x", "zero"], ["seq2"]),
        node("SequenceErase", ["seq2", "minus1"], ["seq3"]),
        node("SequenceLength", ["seq3"], ["len"]),
        node("ConcatFromSequence", ["seq3"], ["cat"], { axis: 1 }),
        node("SequenceAt", ["seq3", "one"], ["at1"]),
        node("TopK", ["x", "k"], ["tv", "ti"], { axis: 1, largest: 0 }),
        node("OneHot", ["oi", "depth", "ov"], ["oh"], { axis: 1 }),
        node("GatherND", ["x", "gi"], ["gnd"]),
        node("ScatterElements", ["x", "si", "su"], ["se"], { axis: 1, reduction: "add" }),
        node("ScatterND", ["x", "ni", "nu"], ["snd"]),
        node("Greater", ["x", "zf"], ["pos"]),
        node("NonZero", ["pos"], ["nz"]),
        node("Compress", ["x", "cm"], ["cp"], { axis: 1 }),
        node("Reshape", ["x", "s4"], ["x4"]),
        node("DepthToSpace", ["x4"], ["d2s"], { blocksize: 2, mode: "CRD" }),
        node("SpaceToDepth", ["d2s"], ["s2d"], { blocksize: 2 }),
      ],
      inputs: [valueInfo("x", "float", [3, 4])],
      outputs: [
        "len",
        "cat",
        "at1",
        "tv",
        "ti",
        "oh",
        "gnd",
        "se",
        "snd",
        "nz",
        "cp",
        "d2s",
        "s2d",
      ].map((n) => valueInfo(n, ["len", "ti", "nz"].includes(n) ? "int64" : "float")),
    });
    const consts: Record<string, RTensor> = {
      two: i64([], [2]),
      zero: i64([], [0]),
      one: i64([], [1]),
      minus1: i64([], [-1]),
      k: i64([1], [2]),
      oi: i64([3], [0, 2, -1]),
      depth: i64([], [4]),
      ov: fromFloat64(DataType.FLOAT, [2], Float64Array.of(-1, 5)),
      gi: i64([2, 2], [0, 1, 2, 3]),
      si: i64([3, 2], [0, 3, 1, 1, 2, 0]),
      su: fromFloat64(DataType.FLOAT, [3, 2], Float64Array.of(1, 2, 3, 4, 5, 6)),
      ni: i64([1, 1], [1]),
      nu: fromFloat64(DataType.FLOAT, [1, 4], Float64Array.of(9, 8, 7, 6)),
      zf: fromFloat64(DataType.FLOAT, [], Float64Array.of(0)),
      cm: { dtype: DataType.BOOL, shape: [3], data: Uint8Array.of(1, 0, 1) },
      s4: i64([4], [1, 4, 3, 1]),
    };
    prependConstants(g, consts);
    await compareWithOrt(m(g, 18), { x: random(DataType.FLOAT, [3, 4], 61) });
  });

  // Scales that make input × scale an integer: where it is not, the ONNX reference (and its test
  // data) uses the unrounded length in align_corners-style formulas and onnxruntime the rounded one.
  it("Resize (nearest, linear, cubic; several coordinate modes) and ConvTranspose", async () => {
    const modes: [string, Record<string, string | number>][] = [
      ["nearest", { coordinate_transformation_mode: "asymmetric", nearest_mode: "floor" }],
      [
        "nearest",
        { coordinate_transformation_mode: "half_pixel", nearest_mode: "round_prefer_ceil" },
      ],
      ["linear", { coordinate_transformation_mode: "align_corners" }],
      ["linear", { coordinate_transformation_mode: "pytorch_half_pixel" }],
      ["cubic", { coordinate_transformation_mode: "half_pixel", exclude_outside: 1 }],
      ["cubic", { coordinate_transformation_mode: "asymmetric", cubic_coeff_a: -0.5 }],
    ];
    const nodes = modes.map(([mode, attrs], i) =>
      node("Resize", ["x", "", "scales"], [`r${i}`], { mode, ...attrs }),
    );
    nodes.push(node("Resize", ["x", "", "", "sizes"], ["rs"], { mode: "linear" }));
    nodes.push(
      node("ConvTranspose", ["x", "w", "b"], ["ct"], {
        strides: [2, 3],
        pads: [1, 0, 0, 1],
        output_padding: [1, 0],
        dilations: [1, 2],
      }),
    );
    nodes.push(
      node("ConvTranspose", ["x", "w"], ["cs"], { strides: [2, 2], auto_pad: "SAME_UPPER" }),
    );
    const g = graph({
      nodes: [
        node(
          "Constant",
          [],
          ["scales"],
          {},
          {
            attributes: [
              {
                name: "value",
                type: "TENSOR",
                value: toIR(fromFloat64(DataType.FLOAT, [4], Float64Array.of(1, 1, 1.5, 0.6))),
              },
            ],
          },
        ),
        node(
          "Constant",
          [],
          ["sizes"],
          {},
          { attributes: [{ name: "value", type: "TENSOR", value: toIR(i64([4], [1, 2, 3, 9])) }] },
        ),
        ...nodes,
      ],
      inputs: [
        valueInfo("x", "float", [1, 2, 4, 5]),
        valueInfo("w", "float", [2, 3, 3, 2]),
        valueInfo("b", "float", [3]),
      ],
      outputs: [...modes.map((_, i) => `r${i}`), "rs", "ct", "cs"].map((n) =>
        valueInfo(n, "float"),
      ),
    });
    await compareWithOrt(
      m(g, 13),
      {
        x: random(DataType.FLOAT, [1, 2, 4, 5], 71),
        w: random(DataType.FLOAT, [2, 3, 3, 2], 72),
        b: random(DataType.FLOAT, [3], 73),
      },
      { rtol: 1e-4, atol: 1e-5 },
    );
  });

  it("bidirectional LSTM with sequence_lens and peepholes, GRU with linear_before_reset, reverse RNN", async () => {
    const [T, B, I, H] = [4, 3, 2, 5];
    const g = graph({
      nodes: [
        node("LSTM", ["x", "lw", "lr", "lb", "lens", "", "", "p"], ["ly", "lh", "lc"], {
          direction: "bidirectional",
          hidden_size: H,
        }),
        node("GRU", ["x", "gw", "gr", "gb"], ["gy", "gh"], {
          hidden_size: H,
          linear_before_reset: 1,
        }),
        node("RNN", ["x", "rw", "rr"], ["ry", "rh"], {
          hidden_size: H,
          direction: "reverse",
          activations: ["Relu"],
        }),
      ],
      inputs: [
        valueInfo("x", "float", [T, B, I]),
        valueInfo("lw", "float", [2, 4 * H, I]),
        valueInfo("lr", "float", [2, 4 * H, H]),
        valueInfo("lb", "float", [2, 8 * H]),
        valueInfo("lens", "int32", [B]),
        valueInfo("p", "float", [2, 3 * H]),
        valueInfo("gw", "float", [1, 3 * H, I]),
        valueInfo("gr", "float", [1, 3 * H, H]),
        valueInfo("gb", "float", [1, 6 * H]),
        valueInfo("rw", "float", [1, H, I]),
        valueInfo("rr", "float", [1, H, H]),
      ],
      outputs: ["ly", "lh", "lc", "gy", "gh", "ry", "rh"].map((n) => valueInfo(n, "float")),
    });
    const r = (shape: number[], seed: number) => random(DataType.FLOAT, shape, seed, -0.6, 0.6);
    await compareWithOrt(
      m(g, 14),
      {
        x: r([T, B, I], 81),
        lw: r([2, 4 * H, I], 82),
        lr: r([2, 4 * H, H], 83),
        lb: r([2, 8 * H], 84),
        lens: fromFloat64(DataType.INT32, [B], Float64Array.of(4, 2, 3)),
        p: r([2, 3 * H], 85),
        gw: r([1, 3 * H, I], 86),
        gr: r([1, 3 * H, H], 87),
        gb: r([1, 6 * H], 88),
        rw: r([1, H, I], 89),
        rr: r([1, H, H], 90),
      },
      { rtol: 1e-4, atol: 1e-5 },
    );
  });

  it("QuantizeLinear (per axis), DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul", async () => {
    const g = graph({
      nodes: [
        node("QuantizeLinear", ["x", "s", "z"], ["q"], { axis: 1 }),
        node("DequantizeLinear", ["q", "s", "z"], ["dq"], { axis: 1 }),
        node("DynamicQuantizeLinear", ["x"], ["dy", "ds", "dz"]),
        node("MatMulInteger", ["q", "qb", "z0", "z0"], ["mi"]),
        node("QLinearMatMul", ["dy", "ds", "dz", "qb", "bs", "z0", "ys", "yz"], ["qm"]),
      ],
      inputs: [valueInfo("x", "float", [2, 3])],
      outputs: [
        valueInfo("q", "uint8"),
        valueInfo("dq", "float"),
        valueInfo("dy", "uint8"),
        valueInfo("ds", "float"),
        valueInfo("dz", "uint8"),
        valueInfo("mi", "int32"),
        valueInfo("qm", "uint8"),
      ],
    });
    const consts: Record<string, RTensor> = {
      s: fromFloat64(DataType.FLOAT, [3], Float64Array.of(0.02, 0.05, 0.1)),
      z: fromFloat64(DataType.UINT8, [3], Float64Array.of(100, 120, 128)),
      qb: fromFloat64(DataType.UINT8, [3, 2], Float64Array.of(0, 255, 17, 100, 3, 200)),
      z0: fromFloat64(DataType.UINT8, [], Float64Array.of(0)),
      bs: fromFloat64(DataType.FLOAT, [], Float64Array.of(0.01)),
      ys: fromFloat64(DataType.FLOAT, [], Float64Array.of(0.05)),
      yz: fromFloat64(DataType.UINT8, [], Float64Array.of(128)),
    };
    prependConstants(g, consts);
    await compareWithOrt(
      m(g, 13),
      { x: random(DataType.FLOAT, [2, 3], 91, -2, 2) },
      { rtol: 0, atol: 1e-6 },
    );
  });

  it("Einsum (batch matmul, trace, ellipsis), Unique, Det, NonMaxSuppression", async () => {
    const g = graph({
      nodes: [
        node("Einsum", ["a", "b"], ["e1"], { equation: "bij,bjk->bik" }),
        node("Einsum", ["sq"], ["e2"], { equation: "ii" }),
        node("Einsum", ["a"], ["e3"], { equation: "...j->..." }),
        node("Unique", ["u"], ["uy", "ui", "uinv", "uc"], { sorted: 1 }),
        node("Det", ["sq"], ["det"]),
        node("NonMaxSuppression", ["boxes", "scores", "maxb", "iou", "sth"], ["sel"]),
      ],
      inputs: [
        valueInfo("a", "float", [2, 3, 4]),
        valueInfo("b", "float", [2, 4, 2]),
        valueInfo("sq", "float", [4, 4]),
        valueInfo("u", "float", [8]),
        valueInfo("boxes", "float", [1, 6, 4]),
        valueInfo("scores", "float", [1, 2, 6]),
      ],
      outputs: [
        ...["e1", "e2", "e3", "uy", "det"].map((n) => valueInfo(n, "float")),
        ...["ui", "uinv", "uc", "sel"].map((n) => valueInfo(n, "int64")),
      ],
    });
    const consts: Record<string, RTensor> = {
      maxb: i64([1], [3]),
      iou: fromFloat64(DataType.FLOAT, [1], Float64Array.of(0.4)),
      sth: fromFloat64(DataType.FLOAT, [1], Float64Array.of(0.1)),
    };
    prependConstants(g, consts);
    const boxes = fromFloat64(
      DataType.FLOAT,
      [1, 6, 4],
      Float64Array.of(
        0,
        0,
        1,
        1,
        0,
        0.1,
        1,
        1.1,
        0,
        -0.1,
        1,
        0.9,
        0,
        10,
        1,
        11,
        0,
        10.1,
        1,
        11.1,
        0,
        100,
        1,
        101,
      ),
    );
    await compareWithOrt(
      m(g, 13),
      {
        a: random(DataType.FLOAT, [2, 3, 4], 101),
        b: random(DataType.FLOAT, [2, 4, 2], 102),
        sq: random(DataType.FLOAT, [4, 4], 103),
        u: fromFloat64(DataType.FLOAT, [8], Float64Array.of(3, 1, 2, 3, -1, 2, 2, 0.5)),
        boxes,
        scores: random(DataType.FLOAT, [1, 2, 6], 104, 0, 1),
      },
      { rtol: 1e-4, atol: 1e-5 },
    );
  });

  it("DFT (onesided, inverse, complex input, dft_length), STFT with a window, GridSample modes", async () => {
    const combos: [string, string, number][] = [
      ["bilinear", "zeros", 0],
      ["bilinear", "border", 1],
      ["nearest", "reflection", 0],
      ["bicubic", "zeros", 1],
      ["bicubic", "reflection", 0],
    ];
    const g = graph({
      nodes: [
        node("DFT", ["sig"], ["d1"], { axis: 1, onesided: 1 }),
        node("DFT", ["d1c", "len"], ["d2"], { axis: 1, inverse: 1 }),
        node("STFT", ["sig", "step", "win"], ["st"]),
        ...combos.map(([mode, padding_mode, align_corners], i) =>
          node("GridSample", ["img", "grid"], [`g${i}`], { mode, padding_mode, align_corners }),
        ),
      ],
      inputs: [
        valueInfo("sig", "float", [2, 9, 1]),
        valueInfo("d1c", "float", [2, 7, 2]),
        valueInfo("img", "float", [1, 2, 4, 5]),
        valueInfo("grid", "float", [1, 3, 4, 2]),
      ],
      outputs: ["d1", "d2", "st", ...combos.map((_, i) => `g${i}`)].map((n) =>
        valueInfo(n, "float"),
      ),
    });
    const consts: Record<string, RTensor> = {
      len: i64([], [8]),
      step: i64([], [2]),
      win: fromFloat64(DataType.FLOAT, [4], Float64Array.of(0.2, 1, 1, 0.5)),
    };
    prependConstants(g, consts);
    await compareWithOrt(
      m(g, 17),
      {
        sig: random(DataType.FLOAT, [2, 9, 1], 111),
        d1c: random(DataType.FLOAT, [2, 7, 2], 112),
        img: random(DataType.FLOAT, [1, 2, 4, 5], 113),
        grid: random(DataType.FLOAT, [1, 3, 4, 2], 114, -1.3, 1.3),
      },
      { rtol: 1e-4, atol: 1e-5 },
    );
  });

  it("RoiAlign (avg and max, half_pixel) and TfIdfVectorizer (TFIDF with skips)", async () => {
    const g = graph({
      nodes: [
        node("RoiAlign", ["img", "rois", "bi"], ["ra"], {
          output_height: 3,
          output_width: 2,
          sampling_ratio: 2,
          spatial_scale: 0.5,
        }),
        node("RoiAlign", ["img", "rois", "bi"], ["rm"], {
          mode: "max",
          output_height: 2,
          output_width: 2,
        }),
        node("TfIdfVectorizer", ["tok"], ["tf"], {
          mode: "TFIDF",
          min_gram_length: 1,
          max_gram_length: 2,
          max_skip_count: 1,
          ngram_counts: [0, 3],
          ngram_indexes: [0, 1, 2, 3, 4],
          pool_int64s: [2, 3, 5, 5, 6, 7, 8],
          weights: [0.5, 1, 2, 3, 4],
        }),
      ],
      inputs: [
        valueInfo("img", "float", [2, 2, 6, 7]),
        valueInfo("rois", "float", [3, 4]),
        valueInfo("bi", "int64", [3]),
        valueInfo("tok", "int64", [2, 6]),
      ],
      outputs: [valueInfo("ra", "float"), valueInfo("rm", "float"), valueInfo("tf", "float")],
    });
    await compareWithOrt(
      m(g, 16),
      {
        img: random(DataType.FLOAT, [2, 2, 6, 7], 121),
        rois: fromFloat64(
          DataType.FLOAT,
          [3, 4],
          Float64Array.of(0, 0, 6, 5, 1.5, 2.2, 9.1, 11, 3, 1, 5, 4),
        ),
        bi: i64([3], [0, 1, 1]),
        tok: i64([2, 6], [2, 5, 6, 3, 7, 5, 5, 6, 8, 7, 2, 3]),
      },
      { rtol: 1e-4, atol: 1e-5 },
    );
  });

  // Every broadcasting binary op over every dtype onnxruntime has a kernel for, with values that
  // overflow the integer types: results must agree exactly (float16 rounded once from float32).
  const NO_ORT_KERNEL = new Set(["int16 Max", "int16 Min", "uint16 Max", "uint16 Min"]);
  const dtypes: [string, number, number][] = [
    ["float16", DataType.FLOAT16, 300],
    ["float", DataType.FLOAT, 1e6],
    ["double", DataType.DOUBLE, 1e6],
    ["int8", DataType.INT8, 127],
    ["uint8", DataType.UINT8, 255],
    ["int16", DataType.INT16, 32767],
    ["uint16", DataType.UINT16, 65535],
    ["int32", DataType.INT32, 2 ** 31 - 1],
    ["uint32", DataType.UINT32, 2 ** 32 - 1],
    ["int64", DataType.INT64, 2 ** 62],
    ["uint64", DataType.UINT64, 2 ** 63],
  ];
  it.each(dtypes)("binary ops on %s with broadcasting", async (name, dtype, range) => {
    const ops = ["Add", "Sub", "Mul", "Div", "Max", "Min", "Less", "Greater", "Equal"].filter(
      (op) => !NO_ORT_KERNEL.has(`${name} ${op}`),
    );
    const signed = !name.startsWith("uint");
    const g = graph({
      nodes: ops.map((op) => node(op, ["a", "b"], [op])),
      inputs: [valueInfo("a", name, [3, 1, 4]), valueInfo("b", name, [2, 4])],
      outputs: ops.map((op) =>
        valueInfo(op, ["Less", "Greater", "Equal"].includes(op) ? "bool" : name),
      ),
    });
    const lo = signed ? -range : 0;
    const a = random(dtype, [3, 1, 4], 131, lo, range);
    const b = random(dtype, [2, 4], 132, lo, range);
    // No zero divisors (integer division by zero is undefined).
    if (b.data instanceof BigInt64Array || b.data instanceof BigUint64Array)
      b.data.forEach((v, i, arr) => v === 0n && (arr[i] = 1n));
    else if (dtype !== DataType.FLOAT16)
      (b.data as Int32Array).forEach((v, i, arr) => v === 0 && (arr[i] = 1));
    await compareWithOrt(m(g, 18), { a, b }, { rtol: 0, atol: 0 });
  });

  it("Cast between every pair of numeric types and bool agrees exactly", async () => {
    const types = [
      "float",
      "double",
      "float16",
      "int8",
      "uint8",
      "int16",
      "uint16",
      "int32",
      "uint32",
      "int64",
      "uint64",
      "bool",
    ];
    const ids: Record<string, number> = {
      float: DataType.FLOAT,
      double: DataType.DOUBLE,
      float16: DataType.FLOAT16,
      int8: DataType.INT8,
      uint8: DataType.UINT8,
      int16: DataType.INT16,
      uint16: DataType.UINT16,
      int32: DataType.INT32,
      uint32: DataType.UINT32,
      int64: DataType.INT64,
      uint64: DataType.UINT64,
      bool: DataType.BOOL,
    };
    for (const from of types) {
      const g = graph({
        nodes: types.map((to) => node("Cast", ["x"], [to], { to: ids[to]! })),
        inputs: [valueInfo("x", from, [8])],
        outputs: types.map((to) => valueInfo(to, to)),
      });
      const isFloat = ["float", "double", "float16"].includes(from);
      const values =
        from === "bool"
          ? [0, 1, 1, 0, 1, 0, 0, 1]
          : isFloat
            ? [0, 1.5, 2.7, 100.25, 120, 0.49, 99.99, 7]
            : [0, 1, 5, 100, 120, 127, 64, 3];
      const x =
        from === "int64" || from === "uint64"
          ? T64(ids[from]!, values)
          : fromFloat64(ids[from]!, [8], Float64Array.from(values));
      await compareWithOrt(m(g, 19), { x }, { rtol: 0, atol: 0 });
    }
  });
});

function T64(dtype: number, values: number[]): RTensor {
  const data =
    dtype === DataType.INT64
      ? BigInt64Array.from(values, (v) => BigInt(v))
      : BigUint64Array.from(values, (v) => BigInt(v));
  return { dtype, shape: [values.length], data };
}
