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
  NPC: 9, // panel chunks per row chunk
  RB: 10, // row blocks per row chunk
  ARGS: 11, // the job's arguments (runTask's g)
  NARGS: 13,
  HELPED: 24, // HELPED + i: tasks helper i has run (statistics)
} as const;
/** At most this many threads in all (so MAX_THREADS - 1 helpers). */
const MAX_THREADS = 4;
const WORDS = C.HELPED + MAX_THREADS;
const { SEQ, NEXT, DONE, READY, FAILED, FIRST, NT, PER, PANELS, ARGS, NARGS, NPC, RB } = C;

/** Bytes of packed A a row chunk may take, so that it stays in the core's cache across panels. */
const CHUNK_BYTES = 1 << 18;

/**
 * A job's kind (its first argument): a product (float64-accumulating, or the integer one), or a
 * convolution's columns (im2col) for one.
 */
export const JOB = { float: 0, int: 1, colsFloat: 2, colsInt: 3 } as const;
/** Rows of a row block, per kind. */
const MRS = [6, 4, 1, 1];

/**
 * Task t of a job: of a product, row chunk ⌊t / npc⌋ (rb row blocks) × panel chunk t mod npc
 * (`per` panels); of a convolution's columns, panel chunk t. Runs on every thread; its source is
 * also the helper's (toString), so that all threads compute a task the same way.
 *
 * g, a product: kind, a, b, c, bias, M, N, K, out64, ldb, pstride (K in steps of the summed
 * index: pairs for the integer product); out64 2: float32 sums of half-type operands (gemm32),
 * then where their float16 / bfloat16 rounding goes and f2h's mode. Columns: kind, x, b, N, pstride, col0, then im2col32's
 * or im2col16's taps, K, Wp, sh, sw, OW, and a 64-byte window per thread (rq + 64·tid): the
 * panels of output positions col0 + j, j < N, at b + panel·pstride.
 */
function runTask(
  ex: Record<string, (...args: number[]) => void>,
  g: number[],
  t: number,
  per: number,
  panels: number,
  npc: number,
  rb: number,
  tid: number,
): void {
  const kind = g[0]!;
  const int = kind & 1;
  const rc = Math.floor(t / npc);
  const jb0 = (t - rc * npc) * per;
  const jb1 = Math.min(panels, jb0 + per);
  if (kind >= 2) {
    const nr = int ? 8 : 4;
    const [j0, j1] = [g[5]! + jb0 * nr, g[5]! + Math.min(g[3]!, jb1 * nr)];
    const dst = g[2]! + jb0 * g[4]!;
    const c = g.slice(6, 13);
    const im2col = int ? ex.im2col16! : ex.im2col32!;
    im2col(g[1]!, c[0]!, c[1]!, c[2]!, c[3]!, c[4]!, c[5]!, j0, j1, c[6]! + 64 * tid, dst);
    return;
  }
  const r0 = rc * rb * (int ? 4 : 6);
  const rows = Math.min(g[5]! - r0, rb * (int ? 4 : 6));
  // Both the integer product and the float32 sums of half-type operands take A, B, C and bias at
  // the panel's rows (4 bytes a value), then the same sizes, panels and B's layout.
  const at4 = (): number[] => [
    g[1]! + r0 * g[7]! * 4,
    g[2]!,
    g[3]! + r0 * g[6]! * 4,
    g[4]! + r0 * 4,
    rows,
    g[6]!,
    g[7]!,
    jb0,
    jb1,
    g[9]!,
    g[10]!,
  ];
  if (int) ex.igemm!(...at4(), g[6]! * 4);
  else if (g[8] === 2) {
    // float32 sums of half-type operands (gemm32), rounded to the half type (f2h from float32).
    ex.gemm32!(...at4());
    const N = g[6]!;
    const [c0, c1] = [jb0 * 4, Math.min(N, jb1 * 4)];
    for (let r = r0; r < r0 + rows; r++)
      ex.f2h!(g[3]! + (r * N + c0) * 4, g[11]! + (r * N + c0) * 2, c1 - c0, g[12]!);
  } else {
    ex.gemm!(
      g[1]! + r0 * g[7]! * 8,
      g[2]!,
      g[3]! + r0 * g[6]! * (g[8] ? 8 : 4),
      g[4]! + r0 * 8,
      rows,
      g[6]!,
      g[7]!,
      jb0,
      jb1,
      g[8]!,
      g[9]!,
      g[10]!,
    );
  }
}

/** What a helper is handed: the control words, the arena's memory and its compiled modules. */
export interface GemmHelperData {
  ctrl: Int32Array;
  memory: object;
  modules: object[];
  /** This helper's number (its statistics word; its thread number in a job is index + 1). */
  index: number;
}

interface WasmInstanceApi {
  Instance: new (
    m: object,
    imports: object,
  ) => { exports: Record<string, (...args: number[]) => void> };
}

/**
 * A helper thread's whole life: instantiates the modules over the shared memory, then waits for
 * jobs and claims their tasks until it is ended. Its source is also the Node helper's
 * (toString), and the browser's helper script (web/helper.ts) calls it, so it refers to nothing
 * outside its parameters.
 */
export function gemmHelperMain(data: GemmHelperData, task: typeof runTask, W: typeof C): void {
  const { ctrl, memory, modules, index } = data;
  const wa = (globalThis as unknown as { WebAssembly: WasmInstanceApi }).WebAssembly;
  const ex: Record<string, (...args: number[]) => void> = {};
  for (const m of modules) Object.assign(ex, new wa.Instance(m, { env: { memory } }).exports);
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
        task(ex, a, t, per, panels, npc, rb, index + 1);
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
        data: { ctrl, memory: ar.memory, modules: ar.modules, index },
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

/** The most threads a job may run on (this one and the helpers), for per-thread windows. */
export const JOB_THREADS = MAX_THREADS;

/**
 * Runs a job (args: runTask's g) of `panels` column panels on this thread and the helpers: a
 * product in row chunks whose packed A stays in cache, each over all panels; a convolution's
 * columns in chunks of panels.
 */
export function runPanels(ar: Arena, args: number[], panels: number, workPerPanel: number): void {
  const kind = args[0]!;
  // A product's row chunks; a convolution's columns are one "row".
  const [M, K] = kind < 2 ? [args[5]!, args[7]!] : [1, 1];
  const mb = Math.ceil(M / MRS[kind]!);
  // float32 sums (args[8] 2: gemm32) pack A in float32, and take column panels in pairs.
  const f32 = kind === JOB.float && args[8] === 2;
  const blockBytes = K * MRS[kind]! * (kind & 1 || f32 ? 4 : 8);
  const rb = Math.max(1, Math.min(mb, Math.floor(CHUNK_BYTES / blockBytes)));
  const nrc = Math.ceil(mb / rb);
  const h = workPerPanel * panels >= minWork ? helpers(ar) : undefined;
  const ex = ar.ex;
  // Helpers that are not running yet (a browser worker starts late) take no task: never waited for.
  const ready = h ? Atomics.load(h.ctrl, READY) : 0;
  const threads = !h || ready === 0 || h.arena !== ar ? 1 : ready + 1;
  let per = Math.max(1, Math.ceil((panels * nrc) / (threads * 6) / nrc));
  if (f32) per += per & 1;
  const npc = Math.ceil(panels / per);
  const n = nrc * npc;
  const alone = (): void => {
    for (let t = 0; t < n; t++) runTask(ex, args, t, per, panels, npc, rb, 0);
  };
  if (threads === 1) return alone();
  const { ctrl } = h!;
  const first = Atomics.load(ctrl, NEXT); // === DONE: no job is open
  Atomics.add(ctrl, SEQ, 1);
  ctrl[FIRST] = first;
  ctrl[NT] = n;
  ctrl[PER] = per;
  ctrl[PANELS] = panels;
  ctrl[NPC] = npc;
  ctrl[RB] = rb;
  for (let i = 0; i < NARGS; i++) ctrl[ARGS + i] = args[i] ?? 0;
  Atomics.add(ctrl, SEQ, 1);
  Atomics.notify(ctrl, SEQ);
  for (;;) {
    const cur = Atomics.load(ctrl, NEXT);
    const t = (cur - first) | 0;
    if (t >= n) break;
    if (Atomics.compareExchange(ctrl, NEXT, cur, (cur + 1) | 0) !== cur) continue;
    runTask(ex, args, t, per, panels, npc, rb, 0);
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
