// The Reduce family: `axes` moved from attribute to input (ReduceSum at 13, the others at 18),
// and the type-only steps of ReduceMax/ReduceMin (12 and 20 added types). See SEMANTICS.md
// "Opset conversion".

import { attrInt } from "../../ir/attributes.js";
import { isTensor } from "../../check/types.js";
import { isIntegerType } from "../../check/consts.js";
import type { Node } from "../../ir/types.js";
import type { Adapter, AdapterRow } from "../adapter.js";
import { axesRows, typeRestriction, type AxesStep } from "./kit.js";
import { constantIntsInput, withoutAttributes, withoutInput } from "./nodes.js";

/** What a Reduce op does to each element when it reduces over no axis (noop_with_empty_axes=1). */
const ELEMENTWISE: Record<string, "Log" | "Abs" | "Square" | "Identity"> = {
  ReduceLogSum: "Log",
  ReduceL1: "Abs",
  ReduceL2: "Abs",
  ReduceSumSquare: "Square",
  ReduceLogSumExp: "Identity",
  ReduceSum: "Identity",
  ReduceMax: "Identity",
  ReduceMin: "Identity",
  ReduceMean: "Identity",
  ReduceProd: "Identity",
};

/**
 * The way down: constant axes become the attribute; empty or absent axes with
 * noop_with_empty_axes=1 (the reduction is the identity) become the elementwise equivalent.
 */
const down: Adapter = (c) => {
  const node = c.node;
  const axes = constantIntsInput(c, 1, "axes");
  const noop = attrInt(node, "noop_with_empty_axes", 0);
  if ((axes === undefined || axes.length === 0) && noop !== 0) {
    const kind = ELEMENTWISE[node.opType] ?? "Identity";
    const x = node.inputs[0]!;
    if (kind === "Log") {
      const t = c.inputType(0);
      if (isTensor(t) && isIntegerType(t.elemType))
        c.fail(
          "noop_with_empty_axes=1 with no axes on an integer input has no elementwise equivalent (Log takes floats only)",
        );
    }
    const base: Omit<Node, "opType" | "inputs"> = {
      ...node,
      attributes: [],
      outputs: [node.outputs[0]!],
    };
    if (kind === "Square") return [{ ...base, opType: "Mul", inputs: [x, x] }];
    return [{ ...base, opType: kind, inputs: [x] }];
  }
  const rest = withoutAttributes(node, "axes", "noop_with_empty_axes");
  const attributes =
    axes && axes.length > 0
      ? [{ name: "axes", type: "INTS" as const, value: axes }, ...rest]
      : rest;
  return [{ ...node, inputs: withoutInput(node.inputs, 1), attributes }];
};

const OTHERS = [
  "ReduceL1",
  "ReduceL2",
  "ReduceLogSum",
  "ReduceLogSumExp",
  "ReduceMax",
  "ReduceMean",
  "ReduceMin",
  "ReduceProd",
  "ReduceSumSquare",
];

const AXES: AxesStep = {
  emptyIsAbsent: true,
  summaries: [
    "axes attribute -> constant int64 input (absent or [] stay absent)",
    "constant axes input -> attribute; noop_with_empty_axes=1 with no axes -> elementwise equivalent; run-time axes blocked",
  ],
  down,
};

export const rows: AdapterRow[] = [
  ...axesRows("ReduceSum", 11, 13, AXES),
  ...OTHERS.flatMap((op) => axesRows(op, 13, 18, AXES)),
  typeRestriction("ReduceMax", 12, 11),
  typeRestriction("ReduceMin", 12, 11),
  typeRestriction("ReduceMax", 20, 18),
  typeRestriction("ReduceMin", 20, 18),
];
