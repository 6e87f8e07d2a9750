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

/** The status line after a check against a target: what is marked, and the partitions. */
export function targetCheckStatus(
  target: string,
  checked: Partial<Record<"a" | "b", CheckSide>> | undefined,
): string {
  const all = [...(checked?.a?.nodes ?? []), ...(checked?.b?.nodes ?? [])];
  const partial = all.filter((x) => x.partial).length;
  const parts = [checked?.a, checked?.b]
    .map((c) => c?.partitions?.count)
    .filter((c) => c !== undefined)
    .join(" and ");
  return (
    (all.length
      ? `${target}: ${all.length} node(s) not fully supported, marked on the graph (red: unsupported ${all.length - partial}, orange: partial ${partial}).`
      : `${target}: every node supported.`) +
    ` ${parts} partition(s), coloured on the graph; the report lists the nodes that split them.`
  );
}
