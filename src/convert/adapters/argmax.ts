// ArgMax and ArgMin 12 -> 11: `select_last_index` = 1 (the last of equal extremes) does not exist
// before 12. It is the first extreme of the input reversed along the axis (a Slice with step -1),
// counted from the other end: (dim - 1) - index.

import type { Node } from "../../ir/types.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import { row } from "./kit.js";
import {
  intAttr,
  nodeSequence,
  nodeWithoutAttributes,
  normAxis,
  opNode,
  tensorTypeOf,
} from "./nodes.js";

const down: Adapter = (c: AdapterContext) => {
  if (intAttr(c, "select_last_index") !== 1)
    return [nodeWithoutAttributes(c.node, "select_last_index")];
  const axis = intAttr(c, "axis")!;
  const x = c.node.inputs[0]!;
  const y = c.node.outputs[0]!;
  const seq = nodeSequence(c, y);
  const out: Node[] = seq.nodes;
  const k = seq.ints;
  const starts = k("starts", [-1]);
  const ends = k("ends", [-(2n ** 63n)]);
  const axes = k("axes", [axis]);
  const steps = k("steps", [-1]);
  const reversed = c.fresh(`${x}_reversed`);
  out.push(opNode(c, "Slice", [x, starts, ends, axes, steps], [reversed]));
  const first = c.fresh(`${y}_from_end`);
  const arg = nodeWithoutAttributes(c.node, "select_last_index");
  arg.inputs = [reversed];
  arg.outputs = [first];
  out.push(arg);
  const shape = tensorTypeOf(c, 0)?.shape;
  const dim = shape ? shape[normAxis(axis, shape.length)] : undefined;
  let last: string;
  if (typeof dim === "number") last = k("last", [dim - 1], true);
  else {
    const s = c.fresh(`${x}_shape`);
    const d = c.fresh(`${x}_dim`);
    last = c.fresh(`${y}_last`);
    out.push(
      opNode(c, "Shape", [x], [s]),
      opNode(c, "Gather", [s, k("axis", [axis], true)], [d]),
      opNode(c, "Sub", [d, k("one", [1], true)], [last]),
    );
  }
  out.push(opNode(c, "Sub", [last, first], [y]));
  return out;
};

export const rows: AdapterRow[] = ["ArgMax", "ArgMin"].map((op) =>
  row(
    op,
    12,
    11,
    "select_last_index=1 becomes the op on the input reversed along the axis, counted from the end",
    down,
  ),
);
