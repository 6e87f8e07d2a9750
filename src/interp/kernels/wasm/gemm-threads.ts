// Helper threads for the matrix product (gemm.ts): the column panels of a product are split into
// tasks that this thread and the helpers claim from a shared ticket counter. A panel is computed
// by the same code whichever thread takes it, and every output by exactly one thread, so results
// never depend on the number of threads. Node only (worker_threads over the arena's shared
// memory); elsewhere, or without shared memory, everything runs on this thread.

import type { Worker } from "node:worker_threads";
import type { Arena } from "./gemm.js";

// Control words (Int32Array over a SharedArrayBuffer).
const SEQ = 0; // even: a job is posted; odd: the caller is writing one (a sequence lock)
const NEXT = 1; // next task ticket
const DONE = 2; // tasks finished, all jobs together
const READY = 3; // helpers running
const FAILED = 4; // 1 if a helper's task threw
const FIRST = 5; // the job's first ticket
const NT = 6; // its tasks
const PER = 7; // panels per task
const PANELS = 8; // panels in all
const ARGS = 9; // a, b, c, bias, M, N, K, out64, ldb, pstride
const NARGS = 10;
const NPC = ARGS + NARGS; // panel chunks per row chunk
const RB = NPC + 1; // row blocks per row chunk
const WORDS = RB + 1;

/** Bytes of packed A a row chunk may take, so that it stays in the core's cache across panels. */
const CHUNK_BYTES = 1 << 18;
const MR_BYTES = 6 * 8; // a row block's float64 per step of the summed index (MR = 6)

/**
 * Task t of a product: row chunk ⌊t / npc⌋ (rb row blocks) × panel chunk t mod npc (`per`
 * panels). Runs on every thread; its source is also the helper's (toString), so that all threads
 * compute a task the same way.
 */
function runTask(
  gemm: (...args: number[]) => void,
  g: number[],
  t: number,
  per: number,
  panels: number,
  npc: number,
  rb: number,
): void {
  const rc = Math.floor(t / npc);
  const jb0 = (t - rc * npc) * per;
  const r0 = rc * rb * 6;
  const rows = Math.min(g[4]! - r0, rb * 6);
  const esz = g[7] ? 8 : 4;
  gemm(
    g[0]! + r0 * g[6]! * 8,
    g[1]!,
    g[2]! + r0 * g[5]! * esz,
    g[3]! + r0 * 8,
    rows,
    g[5]!,
    g[6]!,
    jb0,
    Math.min(panels, jb0 + per),
    g[7]!,
    g[8]!,
    g[9]!,
  );
}

const HELPER_SOURCE = `"use strict";
${runTask.toString()}
const { workerData } = process.getBuiltinModule("node:worker_threads");
const { ctrl, memory, module } = workerData;
const gemm = new WebAssembly.Instance(module, { env: { memory } }).exports.gemm;
Atomics.add(ctrl, ${READY}, 1);
let seen = 0;
for (;;) {
  Atomics.wait(ctrl, ${SEQ}, seen);
  const s = Atomics.load(ctrl, ${SEQ});
  if (s & 1) continue; // being written: wait for the even value
  const first = ctrl[${FIRST}], n = ctrl[${NT}], per = ctrl[${PER}], panels = ctrl[${PANELS}];
  const npc = ctrl[${NPC}], rb = ctrl[${RB}];
  const a = [];
  for (let i = 0; i < ${NARGS}; i++) a.push(ctrl[${ARGS} + i]);
  if (Atomics.load(ctrl, ${SEQ}) !== s) continue; // torn: read again
  seen = s;
  for (;;) {
    const cur = Atomics.load(ctrl, ${NEXT});
    const t = (cur - first) | 0;
    if (t < 0 || t >= n) break;
    if (Atomics.compareExchange(ctrl, ${NEXT}, cur, (cur + 1) | 0) !== cur) continue;
    try {
      runTask(gemm, a, t, per, panels, npc, rb);
    } catch {
      Atomics.store(ctrl, ${FAILED}, 1);
    }
    if (((Atomics.add(ctrl, ${DONE}, 1) + 1 - first) | 0) === n) Atomics.notify(ctrl, ${DONE});
  }
}
`;

interface Helpers {
  workers: Worker[];
  ctrl: Int32Array;
  arena: Arena;
}

let helpersState: Helpers | null | undefined;
let threadLimit: number | undefined;
/** Products of at least this many multiply-adds use the helper threads. */
let minWork = 1 << 21;

/** Test and bench hook: at most `n` threads in all (1: this thread only); undefined: the cores. */
export function setGemmThreads(n: number | undefined, threshold?: number): void {
  threadLimit = n;
  if (threshold !== undefined) minWork = threshold;
}

function wanted(): number {
  const proc = (globalThis as { process?: NodeJS.Process }).process;
  const os = proc?.getBuiltinModule?.("node:os") as typeof import("node:os") | undefined;
  const cores = os ? (os.availableParallelism?.() ?? os.cpus().length) : 1;
  return Math.max(1, Math.min(threadLimit ?? cores, 4));
}

function helpers(ar: Arena): Helpers | undefined {
  const n = wanted() - 1;
  if (n < 1 || !ar.shared) return undefined;
  if (helpersState !== undefined) return helpersState ?? undefined;
  helpersState = null;
  try {
    const proc = (globalThis as { process?: NodeJS.Process }).process;
    const wt = proc?.getBuiltinModule?.("node:worker_threads") as
      typeof import("node:worker_threads") | undefined;
    if (!proc || !wt) return undefined;
    const ctrl = new Int32Array(new SharedArrayBuffer(4 * WORDS));
    const workers: Worker[] = [];
    for (let i = 0; i < n; i++) {
      const w = new wt.Worker(HELPER_SOURCE, {
        eval: true,
        execArgv: [],
        workerData: { ctrl, memory: ar.memory, module: ar.module },
      });
      w.unref();
      w.on("error", () => disable());
      w.on("exit", () => disable());
      workers.push(w);
    }
    proc.once("exit", () => disable());
    helpersState = { workers, ctrl, arena: ar };
  } catch {
    helpersState = null;
  }
  return helpersState ?? undefined;
}

function disable(): void {
  const h = helpersState;
  if (!h) return;
  helpersState = null;
  for (const w of h.workers) void w.terminate();
}

/** Resolves true once the helper threads run (bench and tests: measure with them warm). */
export async function gemmHelpersReady(ar: Arena, timeoutMs = 10_000): Promise<boolean> {
  const h = helpers(ar);
  const until = Date.now() + timeoutMs;
  while (h && helpersState === h && Date.now() < until) {
    if (Atomics.load(h.ctrl, READY) >= h.workers.length) return true;
    await new Promise((r) => setTimeout(r, 2));
  }
  return false;
}

/**
 * Computes a product (args: a, b, c, bias, M, N, K, out64, ldb, pstride) of `panels` column panels: in row
 * chunks whose packed A stays in cache, each over all panels, on this thread and the helpers.
 */
export function runPanels(ar: Arena, args: number[], panels: number, workPerPanel: number): void {
  const [M, K] = [args[4]!, args[6]!];
  const mb = Math.ceil(M / 6);
  const rb = Math.max(1, Math.min(mb, Math.floor(CHUNK_BYTES / (K * MR_BYTES))));
  const nrc = Math.ceil(mb / rb);
  const h = workPerPanel * panels >= minWork ? helpers(ar) : undefined;
  const alone = (): void => {
    for (let rc = 0; rc < nrc; rc++) runTask(ar.gemm, args, rc, panels, panels, 1, rb);
  };
  if (!h || Atomics.load(h.ctrl, READY) === 0 || h.arena !== ar) return alone();
  const { ctrl } = h;
  const threads = h.workers.length + 1;
  const per = Math.max(1, Math.ceil((panels * nrc) / (threads * 6) / nrc));
  const npc = Math.ceil(panels / per);
  const n = nrc * npc;
  const first = Atomics.load(ctrl, NEXT); // === DONE: no job is open
  Atomics.add(ctrl, SEQ, 1);
  ctrl[FIRST] = first;
  ctrl[NT] = n;
  ctrl[PER] = per;
  ctrl[PANELS] = panels;
  ctrl[NPC] = npc;
  ctrl[RB] = rb;
  for (let i = 0; i < NARGS; i++) ctrl[ARGS + i] = args[i]!;
  Atomics.add(ctrl, SEQ, 1);
  Atomics.notify(ctrl, SEQ);
  for (;;) {
    const cur = Atomics.load(ctrl, NEXT);
    const t = (cur - first) | 0;
    if (t >= n) break;
    if (Atomics.compareExchange(ctrl, NEXT, cur, (cur + 1) | 0) !== cur) continue;
    runTask(ar.gemm, args, t, per, panels, npc, rb);
    Atomics.add(ctrl, DONE, 1);
  }
  // Wait for the helpers' last tasks; one that makes no progress for 5 s is given up, and the
  // whole product is computed here (the same values, so a late helper's writes change nothing).
  for (;;) {
    const done = Atomics.load(ctrl, DONE);
    if (((done - first) | 0) >= n) break;
    if (Atomics.wait(ctrl, DONE, done, 5000) === "timed-out" && Atomics.load(ctrl, DONE) === done) {
      disable();
      return alone();
    }
  }
  if (Atomics.load(ctrl, FAILED)) {
    disable();
    alone();
  }
}
