// Softmax, LogSoftmax and Hardmax 11 <-> 13. Before 13 the input is coerced to 2-D at `axis`
// (default 1) and the op runs over the flattened trailing dimensions; from 13 it runs over the
// single dimension `axis` (default -1). See SEMANTICS.md "Axis semantics across the Softmax family".

import { attr } from "../../ir/index.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import { row } from "./kit.js";
import { intAttr, normAxis, opNode, rankOf, withAttributes } from "./nodes.js";

/** 11 -> 13: keep the axis when it is the last one; otherwise Flatten -> op(axis=1) -> Reshape. */
const up: Adapter = (c: AdapterContext) => {
  const axis = intAttr(c, "axis")!;
  const rank = rankOf(c, 0);
  if (axis === -1 || (rank !== undefined && normAxis(axis, rank) === rank - 1))
    return [withAttributes(c.node, { axis: attr("axis", axis) })];
  const x = c.node.inputs[0]!;
  const y = c.node.outputs[0]!;
  const flat = c.fresh(`${y}_2d`);
  const out2d = c.fresh(`${y}_2d_out`);
  const shape = c.fresh(`${x}_shape`);
  const op = withAttributes(c.node, { axis: attr("axis", 1) });
  op.inputs = [flat];
  op.outputs = [out2d];
  return [
    opNode(c, "Flatten", [x], [flat], { axis }),
    op,
    opNode(c, "Shape", [x], [shape]),
    opNode(c, "Reshape", [out2d, shape], [y]),
  ];
};

/** 13 -> 11: the last axis maps to axis -1; another axis is moved last and back with Transpose. */
const down: Adapter = (c: AdapterContext) => {
  const axis = intAttr(c, "axis")!;
  const rank = rankOf(c, 0);
  if (axis === -1) return [withAttributes(c.node, { axis: attr("axis", -1) })];
  if (rank === undefined)
    c.fail(`axis ${axis} is not known to be the last one (the input's rank is unknown)`, {
      kind: "fix-dims",
    });
  const a = normAxis(axis, rank);
  if (a === rank - 1) return [withAttributes(c.node, { axis: attr("axis", -1) })];
  const perm = Array.from({ length: rank }, (_, i) => i);
  perm[a] = rank - 1;
  perm[rank - 1] = a;
  const x = c.node.inputs[0]!;
  const y = c.node.outputs[0]!;
  const moved = c.fresh(`${x}_t`);
  const out = c.fresh(`${y}_t`);
  const op = withAttributes(c.node, { axis: attr("axis", -1) });
  op.inputs = [moved];
  op.outputs = [out];
  return [
    opNode(c, "Transpose", [x], [moved], { perm }),
    op,
    opNode(c, "Transpose", [out], [y], { perm }),
  ];
};

export const rows: AdapterRow[] = ["Softmax", "LogSoftmax", "Hardmax"].flatMap((op) => [
  row(
    op,
    11,
    13,
    "the 2-D coercion at axis becomes one axis: kept when last, else Flatten -> op -> Reshape",
    up,
  ),
  row(
    op,
    13,
    11,
    "one axis becomes the 2-D coercion: axis -1 when last, else Transpose -> op -> Transpose",
    down,
  ),
]);
