// Shape 15 -> 13: `start` and `end` (a range of the dims, each negative one counted from the
// rank, both clamped to [0, rank]) do not exist before 15. Slice of the whole shape along axis
// 0 means the same: Slice counts negative starts and ends from the dim and clamps them the same
// way, and an end left out is the rank, which the largest int64 clamps to.

import type { Adapter, AdapterRow } from "../adapter.js";
import { row } from "./kit.js";
import { intAttr, nodeSequence, nodeWithoutAttributes, opNode } from "./nodes.js";

const INT64_MAX = 2n ** 63n - 1n;

const down: Adapter = (c) => {
  const start = intAttr(c, "start");
  const end = intAttr(c, "end");
  const plain = nodeWithoutAttributes(c.node, "start", "end");
  if (!start && end === undefined) return [plain];
  const y = c.node.outputs[0]!;
  const seq = nodeSequence(c, y);
  const whole = seq.name("whole");
  plain.outputs = [whole];
  seq.nodes.push(plain);
  const starts = seq.ints("starts", [start ?? 0]);
  const ends = seq.ints("ends", [end ?? INT64_MAX]);
  const axes = seq.ints("axes", [0]);
  seq.nodes.push(opNode(c, "Slice", [whole, starts, ends, axes], [y]));
  return seq.nodes;
};

export const rows: AdapterRow[] = [
  row("Shape", 15, 13, "attributes 'start'/'end' become a Slice of the whole shape", down),
];
