// Where the run report's buttons go: the node with the largest difference or time ("worst"), and
// the first divergence of the result from the original (the earliest node whose values differ
// while its inputs' do not: src/app/divergence.ts). Each says what it found, and a run without
// differences says so rather than picking a node.

import { sci, type PaintMode } from "./paint.js";
import type { RunAnswer, SideName } from "./protocol.js";

/** A node to show (its pane and box key), or only a sentence when there is none. */
export interface RunTarget {
  side: SideName;
  key?: string;
  text: string;
}

/** The node with the largest difference (diff mode) or median time, in its pane. */
export function worstTarget(
  paint: RunAnswer["paint"],
  mode: PaintMode,
  hasResult: boolean,
): RunTarget | undefined {
  if (!paint || mode === "none") return undefined;
  const side: SideName = mode === "diff" || hasResult ? "b" : "a";
  const values: [string, number][] =
    mode === "diff"
      ? Object.entries(paint.diff ?? {})
          .filter(([k, d]) => k.startsWith("n") && d)
          .map(([k, d]) => [k, d![0]])
      : Object.entries(paint.ms[side] ?? {}).filter(([k]) => k.startsWith("n"));
  if (!values.length) return { side, text: "No node to go to: nothing was measured." };
  const [key, v] = values.reduce((m, x) => (x[1] > m[1] ? x : m));
  if (mode === "diff" && v === 0)
    return {
      side,
      text: `No differences: the ${values.length} matched nodes give the original's values exactly.`,
    };
  return {
    side,
    key,
    text:
      mode === "diff"
        ? `The largest difference: ${sci(v)}.`
        : `The slowest node: ${v.toFixed(2)} ms (median of ${paint.runs} run${paint.runs === 1 ? "" : "s"}).`,
  };
}

/** The result's first divergence from the original. */
export function firstTarget(paint: RunAnswer["paint"]): RunTarget {
  const f = paint?.first;
  if (!f)
    return {
      side: "b",
      text: "No differences: no matched value of the result differs from the original's.",
    };
  return {
    side: "b",
    key: f.key,
    text:
      `First divergence: ${f.label}, ${f.count} of ${f.total} values differ ` +
      `(up to ${f.ulps === Infinity ? "a different shape or NaN" : `${f.ulps} ulp`}, ${sci(f.abs)} absolute) while its inputs do not.`,
  };
}
