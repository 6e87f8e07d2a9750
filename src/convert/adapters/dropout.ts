// Dropout: 6 <-> 7 (is_test removed: from 7 the runtime decides), 7 <-> 10 (the mask became
// bool, it was of the data's type), 10 <-> 12 (ratio attribute -> input; training_mode input,
// false by default; seed; the inference mask, undefined before 12, all true from 12). Converted models do inference: a Dropout in training mode blocks.

import { attr, getAttr } from "../../ir/index.js";
import { Tensor } from "../../ir/tensor.js";
import { DataType, type Node } from "../../ir/types.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import { isTestRows, row } from "./kit.js";
import {
  constantValues,
  elemTypeOf,
  floatAttr,
  nodeWithoutAttributes,
  numberConstant,
  opNode,
  trimInputs,
  withAttributes,
} from "./nodes.js";

/** The mask output renamed and cast to `to` (when the node has a mask output). */
function castMask(c: AdapterContext, to: number): Node[] | undefined {
  const mask = c.node.outputs[1] ?? "";
  if (mask === "") return undefined;
  const raw = c.fresh(`${mask}_raw`);
  const n = withAttributes(c.node, {});
  n.outputs = [c.node.outputs[0]!, raw];
  return [n, opNode(c, "Cast", [raw], [mask], { to })];
}

const up10: Adapter = (c: AdapterContext) =>
  castMask(c, elemTypeOf(c, 0, "to give the mask the data's type"));

const down7: Adapter = (c: AdapterContext) => castMask(c, DataType.BOOL);

const up12: Adapter = (c: AdapterContext) => {
  const n = nodeWithoutAttributes(c.node, "ratio");
  if (!getAttr(c.node, "ratio")) return [n];
  const [k, name] = numberConstant(c, `${c.node.outputs[0] || "dropout"}_ratio`, DataType.FLOAT, [
    floatAttr(c, "ratio")!,
  ]);
  n.inputs = [c.node.inputs[0]!, name];
  return [k, n];
};

const down10: Adapter = (c: AdapterContext) => {
  const training = (c.node.inputs[2] ?? "") === "" ? [0] : constantValues(c, 2, "'training_mode'");
  if (training!.some((v) => v !== 0))
    c.fail("training_mode is true; Dropout-10 does inference only");
  const n = nodeWithoutAttributes(c.node, "seed");
  n.inputs = trimInputs([c.node.inputs[0]!]);
  const ratioName = c.node.inputs[1] ?? "";
  const ratio = ratioName !== "" ? c.constantInput(1)?.values() : undefined;
  // In inference the ratio does not change the result; a constant one is kept for readers.
  if (ratio && ratio.length === 1) n.attributes.push(attr("ratio", Number(ratio[0]), "FLOAT"));
  // Dropout-10 leaves the mask of inference undefined (onnxruntime gives false); 12 makes it all
  // true: written out as a constant of the data's shape.
  const mask = c.node.outputs[1] ?? "";
  if (mask === "") return [n];
  n.outputs = [c.node.outputs[0]!];
  const shape = c.fresh(`${mask}_shape`);
  return [
    n,
    opNode(c, "Shape", [c.node.inputs[0]!], [shape]),
    opNode(c, "ConstantOfShape", [shape], [mask], {
      value: Tensor.from(DataType.BOOL, [1], [true]),
    }),
  ];
};

const op = "Dropout";

/** Why a node in training mode (with its mask used) cannot take the step to 7. */
const TRAINING =
  "is_test=0 with a mask output is training; from Dropout-7 training is the runtime's choice";

export const rows: AdapterRow[] = [
  ...isTestRows(op, "a mask output", TRAINING),
  row(op, 7, 10, "the bool mask is cast to the data's type", up10),
  row(op, 10, 7, "the mask (of the data's type) is cast to bool", down7),
  row(op, 10, 12, "ratio attribute -> constant input", up12),
  row(
    op,
    12,
    10,
    "training_mode must be absent or false; a constant ratio -> attribute; seed dropped",
    down10,
  ),
];
