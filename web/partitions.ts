// The partitions a target's backend would form (check --target's), as paint on the graph: each
// node of a partition gets a band in its partition's colour and its number (P1, P2, …), so that
// the boundaries, where the model goes back and forth between devices, can be seen.

import type { Paint } from "./graph/types.js";
import type { CheckSide } from "./protocol.js";

/** Colours far apart, repeated past the tenth partition. */
const PALETTE = [
  "#1f77b4",
  "#2ca02c",
  "#9467bd",
  "#17becf",
  "#bcbd22",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#aec7e8",
  "#98df8a",
];

/** The main view's paint for one side's partitions (empty when the check had no target). */
export function partitionPaint(side: CheckSide | undefined): Map<string, Paint> {
  const out = new Map<string, Paint>();
  for (const n of side?.partitions?.nodes ?? [])
    out.set(`n${n.index}`, {
      color: PALETTE[n.partition % PALETTE.length]!,
      text: `P${n.partition + 1}`,
    });
  return out;
}
