// Regenerates the shipped example models in examples/ (run: npx tsx scripts/make-examples.ts).
import { saveModel } from "../src/io/files.js";
import { graph, model, node, valueInfo } from "../src/ir/builder.js";
import { Tensor } from "../src/ir/tensor.js";
import { DataType } from "../src/ir/types.js";

const out = (name: string) => new URL(`../examples/${name}`, import.meta.url).pathname;

// Opset 18: ReduceLogSum and ReduceL1 are function ops there, with axes as an input.
const reduce18 = model(
  graph({
    name: "reduce_logsum_l1",
    nodes: [
      node("ReduceLogSum", ["x", "axes"], ["logsum"], { keepdims: 0 }, { name: "logsum" }),
      node("ReduceL1", ["x", "axes"], ["l1"], { keepdims: 1 }, { name: "l1" }),
    ],
    inputs: [valueInfo("x", "float", [3, 4, 5])],
    outputs: [valueInfo("logsum", "float", [3, 5]), valueInfo("l1", "float", [3, 1, 5])],
    initializers: [Tensor.from(DataType.INT64, [1], [1n], "axes")],
  }),
  18,
);
reduce18.producerName = "onnx-expand examples";
saveModel(reduce18, out("reduce-logsum-l1-18.onnx"));

// Opset 13: ReduceSum takes axes as an input, ReduceLogSum still as an attribute.
const reduce13 = model(
  graph({
    name: "reduce_13",
    nodes: [
      node("ReduceSum", ["x", "axes"], ["sum"], { keepdims: 1 }, { name: "sum" }),
      node("ReduceLogSum", ["x"], ["logsum"], { axes: [-1], keepdims: 0 }, { name: "logsum" }),
    ],
    inputs: [valueInfo("x", "float", [2, 3])],
    outputs: [valueInfo("sum", "float", [2, 1]), valueInfo("logsum", "float", [2])],
    initializers: [Tensor.from(DataType.INT64, [1], [-1n], "axes")],
  }),
  13,
);
reduce13.producerName = "onnx-expand examples";
saveModel(reduce13, out("reduce-13.onnx"));

// Opset 29: LogCumSumExp, which only onnx-expand knows so far.
const lcse = model(
  graph({
    name: "log_cum_sum_exp",
    nodes: [node("LogCumSumExp", ["x"], ["y"], { axis: 1 }, { name: "lcse" })],
    inputs: [valueInfo("x", "float", [2, 4])],
    outputs: [valueInfo("y", "float", [2, 4])],
  }),
  29,
  13,
);
lcse.producerName = "onnx-expand examples";
saveModel(lcse, out("logcumsumexp-29.onnx"));
// Opset 13: ReduceLogSum and ReduceL1 with axes attributes (the demo's upgrade-and-expand input).
const reduceAttr13 = model(
  graph({
    name: "reduce_logsum_l1_13",
    nodes: [
      node("ReduceLogSum", ["x"], ["logsum"], { axes: [1], keepdims: 0 }, { name: "logsum" }),
      node("ReduceL1", ["x"], ["l1"], { axes: [-1], keepdims: 1 }, { name: "l1" }),
    ],
    inputs: [valueInfo("x", "float", [3, 4, 5])],
    outputs: [valueInfo("logsum", "float", [3, 5]), valueInfo("l1", "float", [3, 4, 1])],
  }),
  13,
  7,
);
reduceAttr13.producerName = "onnx-expand examples";
saveModel(reduceAttr13, out("reduce-logsum-l1-13.onnx"));

console.log(
  "wrote examples/reduce-logsum-l1-18.onnx, examples/reduce-13.onnx, examples/logcumsumexp-29.onnx, examples/reduce-logsum-l1-13.onnx",
);
