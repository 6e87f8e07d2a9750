// Shared by the whole-process benchmarks (whole.ts, large.ts): one process timed as a user meets
// it, wall time and peak RSS (GNU time's %M, when /usr/bin/time is there).

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export interface Run {
  ms: number;
  /** Peak RSS in MB (GNU time), or NaN. */
  rssMB: number;
}

const gnuTime = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

/** One process: wall time and peak RSS. Throws with its stderr when it fails. */
export function time(cmd: string, args: string[]): Run {
  const full = gnuTime ? [gnuTime, ["-f", "%M", cmd, ...args]] : [cmd, args];
  const t0 = performance.now();
  const r = spawnSync(full[0] as string, full[1] as string[], {
    encoding: "utf8",
    maxBuffer: 1 << 26,
    timeout: 1_800_000,
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed:\n${r.stderr}`);
  const kb = gnuTime ? Number(r.stderr.trim().split("\n").pop()) : NaN;
  return { ms, rssMB: kb / 1024 };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The median time and the largest peak RSS of runs of one job. */
export function summary(runs: Run[]): Run {
  return { ms: median(runs.map((r) => r.ms)), rssMB: Math.max(...runs.map((r) => r.rssMB)) };
}

export const fmtMs = (ms: number) =>
  ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
export const fmtRun = (r: Run) =>
  `${fmtMs(r.ms)}${Number.isNaN(r.rssMB) ? "" : `, ${r.rssMB.toFixed(0)} MB`}`;
export const verdict = (ok: boolean) => (ok ? "[meets target]" : "[misses target]");
