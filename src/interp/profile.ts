// The per-op profile of a run (RunOptions.profile): wall time, share of the total and bytes of
// outputs for every node of the main graph, and the same summed per op type. A node that calls
// a function or runs subgraphs (If, Loop, Scan) is timed as a whole.

import type { Function, Graph } from "../ir/types.js";
import type { RValue } from "./types.js";
import { storageByteSize } from "./budget.js";

export interface NodeProfile {
  /** The node's index in the main graph's node list. */
  index: number;
  /** The node's label, as errors name it ("node 3 (Conv 'conv1')"). */
  label: string;
  opType: string;
  /** Wall time in milliseconds. */
  ms: number;
  /** Bytes of the output tensors it produced (sequences: their items). */
  bytes: number;
  /** Share of the run's node time, in percent (filled in when the run ends). */
  share: number;
}

export interface OpTypeProfile {
  opType: string;
  /** Nodes of this op type. */
  count: number;
  ms: number;
  bytes: number;
  share: number;
}

/** Filled in by a run given `profile` (pass `{}` and read it afterwards). */
export interface RunProfile {
  /** Every node of the main graph in the order run. */
  nodes?: NodeProfile[];
  /** Per op type, most time first. */
  opTypes?: OpTypeProfile[];
  /** Sum of the nodes' times, in milliseconds. */
  totalMs?: number;
  /**
   * Per subgraph (If, Loop, Scan body) and local function that ran: each node's time, by its
   * index there, summed over every run of it (a Loop's iterations, a function's calls).
   */
  graphs?: Map<Graph | Function, number[]>;
}

/** Bytes of a node's outputs. */
export function outputBytes(outs: readonly (RValue | undefined)[]): number {
  let n = 0;
  for (const v of outs) {
    if (!v) continue;
    if ("dtype" in v) n += storageByteSize(v.data);
    else if (v.kind === "sequence") for (const t of v.items) n += storageByteSize(t.data);
  }
  return n;
}

/** Fills in shares, the per-op-type summary and the total once the nodes are timed. */
export function finishProfile(p: RunProfile, nodes: NodeProfile[]): void {
  const total = nodes.reduce((s, n) => s + n.ms, 0);
  const byOp = new Map<string, OpTypeProfile>();
  for (const n of nodes) {
    n.share = total > 0 ? (100 * n.ms) / total : 100 / nodes.length;
    const o = byOp.get(n.opType) ?? { opType: n.opType, count: 0, ms: 0, bytes: 0, share: 0 };
    o.count++;
    o.ms += n.ms;
    o.bytes += n.bytes;
    o.share += n.share;
    byOp.set(n.opType, o);
  }
  p.nodes = nodes;
  p.totalMs = total;
  p.opTypes = [...byOp.values()].sort((a, b) => b.ms - a.ms);
}

function bytesText(n: number): string {
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KiB`;
  return `${n} B`;
}

function table(head: string[], rows: string[][]): string[] {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join("  ");
  return [line(head), ...rows.map(line)];
}

/** The profile as text: the op types by time, then the `top` slowest nodes. */
export function formatProfile(p: RunProfile, top = 10): string {
  const ops = p.opTypes ?? [];
  const nodes = [...(p.nodes ?? [])].sort((a, b) => b.ms - a.ms).slice(0, top);
  const pct = (s: number) => `${s.toFixed(1)}%`;
  return [
    `profile: ${(p.totalMs ?? 0).toFixed(1)} ms in ${p.nodes?.length ?? 0} nodes`,
    ...table(
      ["op type", "nodes", "ms", "share", "output bytes"],
      ops.map((o) => [
        o.opType,
        String(o.count),
        o.ms.toFixed(1),
        pct(o.share),
        bytesText(o.bytes),
      ]),
    ),
    "",
    ...table(
      [`slowest ${nodes.length} nodes`, "ms", "share", "output bytes"],
      nodes.map((n) => [n.label, n.ms.toFixed(1), pct(n.share), bytesText(n.bytes)]),
    ),
  ].join("\n");
}
