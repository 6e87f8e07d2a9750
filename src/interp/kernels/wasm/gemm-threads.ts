// Helper threads for the matrix product (gemm.ts): the column panels of a product are split into
// tasks that this thread and the helpers claim from a shared ticket counter. A panel is computed
// by the same code whichever thread takes it, and every output by exactly one thread, so results
// never depend on the number of threads. The helpers run where threads.ts can start them (Node's
// worker_threads, or Web Workers in a cross-origin isolated browser worker) over the arena's
// shared memory; elsewhere, or without shared memory, everything runs on this thread.

import type { Arena } from "./gemm.js";
import { coreCount, helperPlatform, startHelper, type HelperThread } from "./threads.js";

// Control words (Int32Array over a SharedArrayBuffer), passed to the helpers' code as an object.
const C = {
  SEQ: 0, // even: a job is posted; odd: the caller is writing one (a sequence lock)
  NEXT: 1, // next task ticket
  DONE: 2, // tasks finished, all jobs together
  READY: 3, // helpers running
  FAILED: 4, // 1 if a helper's task threw
  FIRST: 5, // the job's first ticket
  NT: 6, // its tasks
  PER: 7, // panels per task
  PANELS: 8, // panels in all
  ARGS: 9, // a, b, c, bias, M, N, K, out64, ldb, pstride
  NARGS: 10,
  NPC: 19, // (ARGS + NARGS) panel chunks per row chunk
  RB: 20, // row blocks per row chunk
  HELPED: 21, // HELPED + i: tasks helper i has run (statistics)
} as const;
/** At most this many threads in all (so MAX_THREADS - 1 helpers). */
const MAX_THREADS = 4;
const WORDS = C.HELPED + MAX_THREADS;
const { SEQ, NEXT, DONE, READY, FAILED, FIRST, NT, PER, PANELS, ARGS, NARGS, NPC, RB } = C;

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

/** What a helper is handed: the control words, the arena's memory and its compiled module. */
export interface GemmHelperData {
  ctrl: Int32Array;
  memory: object;
  module: object;
  /** This helper's number (its statistics word). */
  index: number;
}

interface WasmInstanceApi {
  Instance: new (
    m: object,
    imports: object,
  ) => { exports: Record<string, (...args: number[]) => void> };
}

/**
 * A helper thread's whole life: instantiates the product over the shared memory, then waits for
 * jobs and claims their tasks until it is ended. Its source is also the Node helper's
 * (toString), and the browser's helper script (web/helper.ts) calls it, so it refers to nothing
 * outside its parameters.
 */
export function gemmHelperMain(data: GemmHelperData, task: typeof runTask, W: typeof C): void {
  const { ctrl, memory, module, index } = data;
  const wa = (globalThis as unknown as { WebAssembly: WasmInstanceApi }).WebAssembly;
  const gemm = new wa.Instance(module, { env: { memory } }).exports.gemm!;
  Atomics.add(ctrl, W.READY, 1);
  let seen = 0;
  for (;;) {
    Atomics.wait(ctrl, W.SEQ, seen);
    const s = Atomics.load(ctrl, W.SEQ);
    if (s & 1) continue; // being written: wait for the even value
    const first = ctrl[W.FIRST]!;
    const [n, per, panels, npc, rb] = [
      ctrl[W.NT]!,
      ctrl[W.PER]!,
      ctrl[W.PANELS]!,
      ctrl[W.NPC]!,
      ctrl[W.RB]!,
    ];
    const a: number[] = [];
    for (let i = 0; i < W.NARGS; i++) a.push(ctrl[W.ARGS + i]!);
    if (Atomics.load(ctrl, W.SEQ) !== s) continue; // torn: read again
    seen = s;
    for (;;) {
      const cur = Atomics.load(ctrl, W.NEXT);
      const t = (cur - first) | 0;
      if (t < 0 || t >= n) break;
      if (Atomics.compareExchange(ctrl, W.NEXT, cur, (cur + 1) | 0) !== cur) continue;
      try {
        task(gemm, a, t, per, panels, npc, rb);
      } catch {
        Atomics.store(ctrl, W.FAILED, 1);
      }
      Atomics.add(ctrl, W.HELPED + index, 1);
      if (((Atomics.add(ctrl, W.DONE, 1) + 1 - first) | 0) === n) Atomics.notify(ctrl, W.DONE);
    }
  }
}

/** The Node helper's source: the same functions as text. */
const NODE_SOURCE = `"use strict";
const { workerData } = process.getBuiltinModule("node:worker_threads");
(${gemmHelperMain.toString()})(workerData, ${runTask.toString()}, ${JSON.stringify(C)});
`;

/** The browser helper's entry (web/helper.ts): the same code over the data posted to it. */
export const runGemmHelper = (data: GemmHelperData): void => gemmHelperMain(data, runTask, C);

interface Helpers {
  threads: HelperThread[];
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

const wanted = (): number => Math.max(1, Math.min(threadLimit ?? coreCount(), MAX_THREADS));

function helpers(ar: Arena): Helpers | undefined {
  const n = wanted() - 1;
  if (n < 1 || !ar.shared) return undefined;
  if (helpersState !== undefined) return helpersState ?? undefined;
  if (!helperPlatform()) return undefined; // asked again next time (a script may be registered)
  helpersState = null;
  const threads: HelperThread[] = [];
  try {
    const ctrl = new Int32Array(new SharedArrayBuffer(4 * WORDS));
    for (let index = 0; index < n; index++) {
      const t = startHelper({
        kind: "gemm",
        nodeSource: NODE_SOURCE,
        data: { ctrl, memory: ar.memory, module: ar.module, index },
        onFail: () => disable(),
      });
      if (t) threads.push(t);
    }
    if (threads.length) helpersState = { threads, ctrl, arena: ar };
  } catch {
    for (const t of threads) t.terminate();
    helpersState = null;
  }
  return helpersState ?? undefined;
}

function disable(): void {
  const h = helpersState;
  if (!h) return;
  helpersState = null;
  for (const t of h.threads) t.terminate();
}

/**
 * Starts the helper threads, where they can run, without waiting for them (the browser's
 * interpreter worker does so on load, so that they run by the time a model is).
 */
export function startGemmHelpers(ar: Arena): void {
  helpers(ar);
}

/**
 * The helper threads: how many are running, and how many product tasks each has run so far (a
 * run's thread count is 1 + the helpers whose count grew over it).
 */
export function gemmThreadStats(): { ready: number; tasks: number[] } {
  const h = helpersState;
  if (!h) return { ready: 0, tasks: [] };
  return {
    ready: Atomics.load(h.ctrl, READY),
    tasks: h.threads.map((_, i) => Atomics.load(h.ctrl, C.HELPED + i)),
  };
}

/** Resolves true once the helper threads run (bench and tests: measure with them warm). */
export async function gemmHelpersReady(ar: Arena, timeoutMs = 10_000): Promise<boolean> {
  const h = helpers(ar);
  const until = Date.now() + timeoutMs;
  while (h && helpersState === h && Date.now() < until) {
    if (Atomics.load(h.ctrl, READY) >= h.threads.length) return true;
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
  // Helpers that are not running yet (a browser worker starts late) take no task: never waited for.
  const ready = h ? Atomics.load(h.ctrl, READY) : 0;
  if (!h || ready === 0 || h.arena !== ar) return alone();
  const { ctrl } = h;
  const threads = ready + 1;
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
