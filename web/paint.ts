// Numbers on the graph: the colours and labels a run paints on each pane's boxes (differences
// from the original, or time per node), and the controls at the top of the run report. The page
// (main.ts) keeps the last run's numbers and applies them.

import type { Paint } from "./graph/types.js";
import { $ } from "./panels.js";
import type { RunAnswer, SideName } from "./protocol.js";

export type PaintMode = "diff" | "time" | "none";

/** A colour from green (t = 0) through amber to red (t = 1). */
const ramp = (t: number) => `hsl(${Math.round(120 * (1 - Math.min(1, Math.max(0, t))))} 75% 48%)`;
const NO_MATCH = "#9aa3ad";
export const sci = (x: number) => (x === 0 ? "0" : x.toExponential(1));

/**
 * The painted boxes of one side's view for a mode: differences on a log scale from 1e-9 (green)
 * to 1 (red), no match grey and never zero; times on a log scale over three decades below the
 * slowest. A view other than the main one is painted when it ran (RunAnswer's paint.views).
 */
export function paintFor(
  lastPaint: RunAnswer["paint"],
  side: SideName,
  mode: PaintMode,
  view = "main",
): Map<string, Paint> {
  const out = new Map<string, Paint>();
  if (!lastPaint || mode === "none") return out;
  const of = view === "main" ? lastPaint : lastPaint.views?.[side]?.[view];
  if (!of) return out;
  if (mode === "diff") {
    if (side !== "b" || !of.diff) return out;
    for (const [k, d] of Object.entries(of.diff)) {
      if (!d) out.set(k, { color: NO_MATCH, text: "no match" });
      else {
        const t = d[0] === 0 ? 0 : (Math.log10(d[0]) + 9) / 9;
        out.set(k, { color: ramp(t), text: `Δ${sci(d[0])} (${sci(d[1])} rel)` });
      }
    }
    return out;
  }
  const ms = view === "main" ? lastPaint.ms[side] : lastPaint.views?.[side]?.[view]?.ms;
  if (!ms) return out;
  const max = Math.max(
    ...Object.entries(ms)
      .filter(([k]) => k.startsWith("n"))
      .map(([, v]) => v),
    1e-3,
  );
  for (const [k, v] of Object.entries(ms)) {
    const t = v <= 0 ? 0 : 1 + Math.log10(Math.min(1, v / max)) / 3;
    out.set(k, { color: ramp(t), text: `${v < 10 ? v.toFixed(2) : Math.round(v)} ms` });
  }
  return out;
}

export function paintMode(): PaintMode {
  return (
    ((document.getElementById("paint-mode") as HTMLSelectElement | null)?.value as PaintMode) ??
    "none"
  );
}

/** The paint selector, its legend and "go to the worst", at the top of the run report. */
export function paintControls(
  r: RunAnswer,
  applyPaint: () => void,
  goToWorst: (bar: HTMLElement) => void,
  goToFirst: (bar: HTMLElement) => void,
): void {
  const box = $("run-report");
  if (!r.paint) {
    if (r.paintNote)
      box.prepend(Object.assign(document.createElement("p"), { textContent: r.paintNote }));
    return;
  }
  const bar = document.createElement("div");
  bar.id = "paint-bar";
  const select = document.createElement("select");
  select.id = "paint-mode";
  const modes: [PaintMode, string][] = [
    ...(r.paint.diff ? ([["diff", "differences from the original"]] as [PaintMode, string][]) : []),
    ["time", "time per node"],
    ["none", "nothing"],
  ];
  for (const [v, label] of modes) select.append(new Option(label, v));
  const runs = r.paint.runs;
  select.onchange = () => {
    applyPaint();
    legend.textContent = legendText(paintMode(), runs);
  };
  const worst = document.createElement("button");
  worst.id = "paint-worst";
  worst.textContent = "go to the worst";
  worst.onclick = () => goToWorst(bar);
  const legend = document.createElement("span");
  legend.className = "paint-legend";
  legend.textContent = legendText(modes[0]![0], runs);
  bar.append("Paint: ", select, " ", worst, " ");
  if (r.paint.diff) {
    const first = document.createElement("button");
    first.id = "paint-first";
    first.textContent = "go to the first divergence";
    first.title =
      "the earliest node in execution order whose values differ from the original's while its inputs' do not";
    first.onclick = () => goToFirst(bar);
    bar.append(first, " ");
  }
  bar.append(legend);
  bar.dataset.runs = String(runs);
  // For tests and scripts: how many boxes have no match, and the largest difference.
  const diffs = Object.entries(r.paint.diff ?? {}).filter(([k]) => k.startsWith("n"));
  bar.dataset.noMatch = String(diffs.filter(([, d]) => !d).length);
  bar.dataset.matched = String(diffs.filter(([, d]) => d).length);
  const worstDiff = diffs.reduce((m, [, d]) => Math.max(m, d?.[0] ?? 0), 0);
  bar.dataset.worst = String(worstDiff);
  if (r.paint.diff) bar.dataset.first = r.paint.first ? r.paint.first.key : "none";
  box.prepend(bar);
  if (r.paint.diff && !r.paint.first && worstDiff === 0) {
    const same = document.createElement("p");
    same.id = "no-differences";
    same.textContent = "No differences: every matched node gives the original's values exactly.";
    bar.after(same);
  }
}

function legendText(mode: PaintMode, runs: number): string {
  if (mode === "diff")
    return "green 0 … 1e-9 · amber 1e-5 · red ≥ 1 (log scale, absolute); grey: no match";
  if (mode === "time")
    return `median of ${runs} run${runs === 1 ? "" : "s"} · red: the slowest node · green: 1/1000 of it (log scale); groups: their sum`;
  return "";
}
