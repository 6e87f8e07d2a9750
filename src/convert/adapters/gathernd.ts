// GatherND 12 -> 11: `batch_dims` = b does not exist before 12. The first b dimensions of data
// and indices are then matched entry by entry; the same element is reached without batch_dims
// when each index tuple is prefixed with its own batch coordinates: a grid of the batch positions
// (Range, reshaped and expanded to the indices' shape with a last dimension of 1) per batch
// dimension, concatenated before the indices along the last axis.

import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import { row } from "./kit.js";
import { intAttr, nodeSequence, nodeWithoutAttributes, rankOf } from "./nodes.js";

const down: Adapter = (c: AdapterContext) => {
  const b = intAttr(c, "batch_dims") ?? 0;
  const n = nodeWithoutAttributes(c.node, "batch_dims");
  if (b === 0) return [n];
  const rank = rankOf(c, 1);
  if (rank === undefined) c.fail(`batch_dims=${b} needs the rank of the indices, which is unknown`);
  const [data, indices] = c.node.inputs as [string, string];
  const y = c.node.outputs[0]!;
  const seq = nodeSequence(c, y);
  const k = seq.ints;
  const op = seq.op;
  const shape = op("Shape", [indices], "indices_shape");
  const lead = op("Slice", [shape, k("start", [0]), k("end", [-1]), k("axis0", [0])], "lead_shape");
  const gridShape = op("Concat", [lead, k("one", [1])], "grid_shape", { axis: 0 });
  const zero = k("zero", [0], true);
  const step = k("step", [1], true);
  const parts: string[] = [];
  for (let j = 0; j < b; j++) {
    const dim = op("Gather", [shape, k(`dim${j}_index`, [j], true)], `dim${j}`);
    const positions = op("Range", [zero, dim, step], `positions${j}`);
    const view = Array.from({ length: rank }, (_, i) => (i === j ? -1 : 1));
    const reshaped = op("Reshape", [positions, k(`view${j}`, view)], `positions${j}_view`);
    parts.push(op("Expand", [reshaped, gridShape], `batch${j}`));
  }
  const full = op("Concat", [...parts, indices], "indices_full", { axis: -1 });
  n.inputs = [data, full];
  return [...seq.nodes, n];
};

export const rows: AdapterRow[] = [
  row("GatherND", 12, 11, "batch_dims: each index tuple prefixed with its batch coordinates", down),
];
