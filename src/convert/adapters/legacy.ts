// Steps that only add, drop or require an attribute: opset 1's `consumed_inputs` (an old
// memory-planning hint with no effect on results), attributes newer versions added whose
// default keeps the old meaning (dropped on the way down when set to that default), Concat's
// axis made required, Constant's value_* forms.

import { getAttr } from "../../ir/attributes.js";
import { Tensor } from "../../ir/tensor.js";
import { DataType } from "../../ir/types.js";
import type { Adapter, AdapterRow } from "../adapter.js";
import { attributeDropped, attributeMadeRequired, inOrder, row, sameShapeInputs } from "./kit.js";
import { integerValues, withoutAttributes } from "./nodes.js";

/**
 * Reshape-14's allowzero dropped. 0 means what Reshape-13 means. 1 differs only where the shape
 * holds a 0 (kept as 0 instead of copied from the input), so it means the same when the shape
 * is a constant with no 0, or when each 0 stands at an index where the input's dim is statically
 * 0 (copying it gives 0 too; a symbolic dim may be anything at run time, so it proves nothing).
 */
const reshapeAllowZero: Adapter = (c) => {
  const a = getAttr(c.node, "allowzero");
  if (!a) return undefined;
  if (a.value !== 0n && a.value !== 1n)
    c.fail(`attribute 'allowzero' = ${String(a.value)} is neither 0 nor 1`);
  const drop = () => [{ ...c.node, attributes: withoutAttributes(c.node, "allowzero") }];
  if (a.value === 0n) return drop();
  const name = c.node.inputs[1] ?? "";
  const t = c.constantInput(1);
  const shape = t ? integerValues(t) : undefined;
  if (!shape)
    return c.fail(
      `allowzero = 1 with shape '${name}' computed at run time: a 0 in it would mean "copy the input's dim" in ${c.to.name}-${c.to.since}`,
      { kind: "fix-dims", input: 1 },
    );
  const zeros = shape.flatMap((v, i) => (v === 0n ? [i] : []));
  if (zeros.length === 0) return drop();
  const data = c.inputType(0);
  const dims = data?.kind === "tensor" ? data.shape : undefined;
  const unproved = zeros.filter((i) => dims?.[i] !== 0);
  if (unproved.length)
    c.fail(
      `allowzero = 1 and the shape holds 0 at index ${unproved.join(", ")}, where the input's dim is not statically 0: ${c.to.name}-${c.to.since} would copy that dim instead`,
    );
  return drop();
};

const CONSUMED_INPUTS_OPS = [
  "Abs",
  "Add",
  "BatchNormalization",
  "Ceil",
  "Div",
  "Dropout",
  "Elu",
  "Exp",
  "Floor",
  "HardSigmoid",
  "InstanceNormalization",
  "LeakyRelu",
  "Log",
  "Max",
  "Mean",
  "Min",
  "Mul",
  "Neg",
  "PRelu",
  "Reciprocal",
  "Relu",
  "Sigmoid",
  "Sqrt",
  "Sub",
  "Sum",
  "Tanh",
];

/**
 * Attributes dropped on the way down when unset or set to the value that means what absence
 * means: op, from, to, attribute, that value.
 */
const DROPPED_DEFAULTS: [string, number, number, string, bigint | string][] = [
  ["AveragePool", 7, 1, "count_include_pad", 0n],
  ["AveragePool", 10, 7, "ceil_mode", 0n],
  ["LpPool", 18, 11, "ceil_mode", 0n],
  ["MaxPool", 10, 8, "ceil_mode", 0n],
  ["DepthToSpace", 11, 1, "mode", "DCR"],
  ["ScatterElements", 16, 13, "reduction", "none"],
  ["ScatterND", 16, 13, "reduction", "none"],
  ["RNN", 14, 7, "layout", 0n],
  ["GRU", 14, 7, "layout", 0n],
  ["LSTM", 14, 7, "layout", 0n],
];

const droppedDefault = ([op, from, to, name, value]: (typeof DROPPED_DEFAULTS)[number]) =>
  row(
    op,
    from,
    to,
    `attribute '${name}' dropped (blocked unless ${typeof value === "string" ? JSON.stringify(value) : value})`,
    attributeDropped(name, value),
  );

const toTensor = row("Constant", 12, 11, "value_* attributes -> value tensor", (c) => {
  const forms: [string, (v: never) => Tensor][] = [
    ["value_float", (v: number) => Tensor.scalar(DataType.FLOAT, v)],
    ["value_floats", (v: number[]) => Tensor.from(DataType.FLOAT, [v.length], v)],
    ["value_int", (v: bigint) => Tensor.scalar(DataType.INT64, v)],
    ["value_ints", (v: bigint[]) => Tensor.from(DataType.INT64, [v.length], v)],
    ["value_string", (v: string) => Tensor.from(DataType.STRING, [], [v])],
    ["value_strings", (v: string[]) => Tensor.from(DataType.STRING, [v.length], v)],
  ];
  for (const [name, make] of forms) {
    const a = getAttr(c.node, name);
    if (!a || a.value === undefined) continue;
    const value = make(a.value as never);
    return [
      {
        ...c.node,
        attributes: [{ name: "value", type: "TENSOR", value }, ...withoutAttributes(c.node, name)],
      },
    ];
  }
  return undefined;
});

export const rows: AdapterRow[] = [
  ...CONSUMED_INPUTS_OPS.map((op) =>
    row(
      op,
      1,
      6,
      "attribute 'consumed_inputs' dropped (no effect on results)",
      attributeDropped("consumed_inputs"),
    ),
  ),
  row(
    "Concat",
    1,
    4,
    "attribute 'axis' made required: the old default 1 written out",
    attributeMadeRequired({ name: "axis", type: "INT", value: 1n }),
  ),
  toTensor,
  ...["Sum", "Max", "Min", "Mean"].map((op) =>
    row(
      op,
      8,
      6,
      "no broadcasting before 8: allowed when every input has the same static shape",
      sameShapeInputs,
    ),
  ),
  ...DROPPED_DEFAULTS.map(droppedDefault),
  row(
    "Reshape",
    14,
    13,
    "attribute 'allowzero' dropped (blocked unless 0, or 1 with a constant shape whose every 0 stands where the input's dim is statically 0)",
    reshapeAllowZero,
  ),
  row(
    "TopK",
    11,
    10,
    "attributes 'largest' and 'sorted' dropped (blocked unless 1)",
    inOrder(attributeDropped("largest", 1n), attributeDropped("sorted", 1n)),
  ),
];
