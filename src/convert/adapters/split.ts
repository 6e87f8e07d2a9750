// Split 11 <-> 13 (the `split` attribute became an optional input) and 13 <-> 18 (`num_outputs`:
// with no split given, 18 needs the number of outputs, and splits unevenly when the dimension does
// not divide; 13 splits only evenly).

import { attr, getAttr } from "../../ir/index.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import { axesRows, row } from "./kit.js";
import {
  int64Constant,
  intAttr,
  normAxis,
  tensorTypeOf,
  withAttributes,
  nodeWithoutAttributes,
} from "./nodes.js";

/** 13 -> 18: without a split input, 18 requires num_outputs (= the number of outputs). */
const up18: Adapter = (c: AdapterContext) => {
  if ((c.node.inputs[1] ?? "") !== "") return undefined;
  return [withAttributes(c.node, { num_outputs: attr("num_outputs", c.node.outputs.length) })];
};

/** 18 -> 13: num_outputs goes; an uneven split becomes an explicit split input. */
const down13: Adapter = (c: AdapterContext) => {
  const n = getAttr(c.node, "num_outputs");
  if (!n) return undefined;
  const out = nodeWithoutAttributes(c.node, "num_outputs");
  if ((c.node.inputs[1] ?? "") !== "") return [out];
  const parts = c.node.outputs.length;
  const t = tensorTypeOf(c, 0);
  const axis = intAttr(c, "axis")!;
  const dim = t?.shape ? t.shape[normAxis(axis, t.shape.length)] : undefined;
  if (typeof dim !== "number")
    c.fail(
      `num_outputs=${parts} along a dimension of unknown size: 13 splits only evenly, 18 may not`,
    );
  if (dim % parts === 0) return [out];
  const chunk = Math.ceil(dim / parts);
  const sizes = Array.from({ length: parts }, (_, i) =>
    Math.max(0, Math.min(chunk, dim - chunk * i)),
  );
  const [k, name] = int64Constant(c, `${c.node.outputs[0] || "split"}_split`, sizes);
  out.inputs = [c.node.inputs[0]!, name];
  return [k, out];
};

export const rows: AdapterRow[] = [
  ...axesRows("Split", 11, 13, {
    attribute: "split",
    summaries: [
      "split attribute -> constant int64 input",
      "constant split input -> attribute (a split computed at run time blocks)",
    ],
  }),
  row("Split", 13, 18, "no split input: num_outputs = the number of outputs", up18),
  row(
    "Split",
    18,
    13,
    "num_outputs removed; an uneven split becomes an explicit split input",
    down13,
  ),
];
