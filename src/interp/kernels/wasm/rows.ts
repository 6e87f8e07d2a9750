// float32 sum-like reductions in WebAssembly: row sums (K rows of R contiguous values, one float64
// result per row) cut into tasks of at most CHUNK values, and column sums of inputs read in place.
//
// - "direct": the input lives in a shared WebAssembly memory of its own (memory.ts; allocStorage
//   puts large float32 tensors there) and is read in place.
// - "threads": the same, with the tasks run by the calling thread and one helper thread (Node:
//   worker_threads). Both claim tasks from a shared counter, so a helper that is slow to wake
//   (the machine is busy) costs only its own share, never a wait for work it has not begun.
// - "staged": a plain Float32Array input; the calling thread copies task after task into a ring
//   of windows in a shared staging memory while the helper reduces the filled ones.
// - "copy": a plain input on one thread: each task's values are copied into a window of the
//   reduce module's own memory and reduced there.
// Measured (README.md): copying out of a SharedArrayBuffer into module memory is ~1.6x slower
// than out of an ArrayBuffer, so a helper copying half of a SAB-backed input did not pay; reading
// in place did.

import type { MessagePort } from "node:worker_threads";
import { reduceMemModule, reduceMemWasm, type ReduceMemWasm, type ReduceWasm } from "./loader.js";
import { allocWasmBacked, wasmMemoryOf, type SharedWasmMemory } from "./memory.js";
import { helperPlatform, nodeBuiltin, startHelper, type HelperThread } from "./threads.js";

/** float32 values a task reduces (512 KiB: a copied window stays in L2 cache). */
export const CHUNK = 1 << 17;
/** Byte address of the float64 accumulators in the reduce module's memory, after the window. */
export const ACC_BASE = CHUNK * 4;
/** The reduce module's memory a reduction needs: the window and up to CHUNK float64 accumulators. */
export const WASM_BYTES = ACC_BASE + CHUNK * 8;
/** Row results per task in the direct path: each thread has half of the memory's scratch. */
const SCRATCH_ROWS = 4096;

/** How a row reduction is cut into tasks. */
interface Layout {
  /** Values per task at most. */
  chunk: number;
  /** Whole rows per task (R <= chunk), or 0 when each row is cut into P pieces. */
  per: number;
  /** Pieces per row (1 when per > 0). */
  P: number;
  /** Number of tasks. */
  n: number;
}

function layout(K: number, R: number, maxRows: number, chunk = CHUNK): Layout {
  if (R <= chunk) {
    const per = Math.min(maxRows, Math.floor(chunk / R));
    return { chunk, per, P: 1, n: Math.ceil(K / per) };
  }
  const P = Math.ceil(R / chunk);
  return { chunk, per: 0, P, n: K * P };
}

/** Row results from task results (a row's pieces summed in order). */
function gather(res: Float64Array, lay: Layout, K: number, out: Float64Array): void {
  if (lay.per > 0) {
    if (res !== out) out.set(res.subarray(0, K));
    return;
  }
  for (let r = 0; r < K; r++) {
    let s = 0;
    for (let p = 0; p < lay.P; p++) s += res[r * lay.P + p]!;
    out[r] = s;
  }
}

/** What a row reduction sums: K rows of R values of x into out, t by mode (see reduceRows). */
interface RowSum {
  mode: 0 | 1 | 2;
  x: Float32Array;
  K: number;
  R: number;
  out: Float64Array;
}

/** An input's WebAssembly memory, the scratch in it, and the in-place functions over it. */
interface InPlace {
  memory: SharedWasmMemory;
  scratch: number;
  api: ReduceMemWasm;
}

/**
 * out[r] = Σ t(x[r*R .. r*R + R)) for K rows, in float64 (t by mode 0: x, 1: |x|, 2: x²).
 * `threaded`: the helper thread may take part. Returns the way it ran.
 */
export function reduceRows(
  w: ReduceWasm,
  mode: 0 | 1 | 2,
  x: Float32Array,
  K: number,
  R: number,
  out: Float64Array,
  threaded: boolean,
): "threads" | "staged" | "direct" | "copy" {
  const sum: RowSum = { mode, x, K, R, out };
  const owner = inPlace(x);
  if (owner) return reduceDirect(owner, sum, threaded);
  if (threaded && reduceStaged(sum)) return "staged";
  reduceCopy(w, sum);
  return "copy";
}

/**
 * The WebAssembly memory of an input that lives in one (and the in-place functions over it), or
 * undefined: the input must then be copied in.
 */
export function inPlace(x: Float32Array): InPlace | undefined {
  const owner = wasmMemoryOf(x.buffer);
  const api = owner && reduceMemWasm(owner.memory);
  return owner && api && { ...owner, api };
}

// ---------------------------------------------------------------------------------------------
// Copy path: plain input, calling thread only.

function reduceCopy(w: ReduceWasm, { mode, x, K, R, out }: RowSum): void {
  const lay = layout(K, R, Infinity);
  w.reserve(WASM_BYTES);
  const heap = new Float32Array(w.memory.buffer, 0, CHUNK);
  const acc = new Float64Array(w.memory.buffer, ACC_BASE, CHUNK);
  const res = lay.per > 0 ? out : new Float64Array(K * lay.P);
  for (let t = 0; t < lay.n; t++) {
    if (lay.per > 0) {
      const r0 = t * lay.per;
      const g = Math.min(lay.per, K - r0);
      heap.set(x.subarray(r0 * R, (r0 + g) * R));
      acc.fill(0, 0, g);
      w.rows[mode](0, g, R, ACC_BASE);
      res.set(acc.subarray(0, g), r0);
    } else {
      const row = Math.floor(t / lay.P);
      const c = (t - row * lay.P) * CHUNK;
      const e = Math.min(R, c + CHUNK);
      heap.set(x.subarray(row * R + c, row * R + e));
      res[t] = w.sum[mode](0, e - c);
    }
  }
  gather(res, lay, K, out);
}

// ---------------------------------------------------------------------------------------------
// Direct path: the input's own memory, read in place, by this thread and the helper.

/** One direct reduction; posted to the helper as it is. */
interface Job extends Layout {
  memory: SharedWasmMemory;
  /** Byte address of x[0] in the memory. */
  p0: number;
  /** Byte address of the memory's scratch: this thread uses the first half, the helper the second. */
  scratch: number;
  mode: 0 | 1 | 2;
  K: number;
  R: number;
  /** Task results: row sums (per > 0, length K) or piece sums (length K * P). */
  res: Float64Array;
  /** Value of the shared ticket counter when the job started: task t is ticket first + t. */
  first: number;
  /**
   * 0: the input is read in place. Else a staged job: the calling thread copies task t's values
   * to byte (t % slots) * CHUNK * 4 of the (staging) memory before the task may be claimed.
   */
  slots: number;
  /**
   * Column job (sums over leading axes, in place): windows of `cols` columns, `nw` windows per
   * block of R rows of K columns, `outer` blocks; task t is window t % nw of block t / nw.
   * 0 for row jobs.
   */
  cols: number;
  nw: number;
  outer: number;
}

type JobDefaults = "p0" | "first" | "slots" | "cols" | "nw" | "outer";

/** A job with the fields not given at 0: a row job in place, starting at ticket 0. */
function job(j: Omit<Job, JobDefaults> & Partial<Pick<Job, JobDefaults>>): Job {
  return { p0: 0, first: 0, slots: 0, cols: 0, nw: 0, outer: 0, ...j };
}

/** A column task: acc[0..wn) = Σ_r t(x[o][r][c..c+wn)), four rows a pass, then to res. */
function runColumnTask(api: ReduceMemWasm, scr: Float64Array, j: Job, t: number): void {
  const o = Math.floor(t / j.nw);
  const c = (t - o * j.nw) * j.cols;
  const wn = Math.min(j.cols, j.K - c);
  const stride = j.K * 4;
  const acc1 = api.acc[j.mode];
  const acc4 = api.acc4[j.mode];
  scr.fill(0, 0, wn);
  let p = j.p0 + (o * j.R * j.K + c) * 4;
  let r = 0;
  for (; r + 4 <= j.R; r += 4, p += 4 * stride) acc4(p, stride, wn, j.scratch);
  for (; r < j.R; r++, p += stride) acc1(p, wn, j.scratch);
  j.res.set(scr.subarray(0, wn), o * j.K + c);
}

/** Byte address of task t's first value. */
function taskAddr(j: Job, t: number): number {
  if (j.slots > 0) return (t % j.slots) * j.chunk * 4;
  if (j.per > 0) return j.p0 + t * j.per * j.R * 4;
  const row = Math.floor(t / j.P);
  return j.p0 + (row * j.R + (t - row * j.P) * j.chunk) * 4;
}

/** One task on this thread. The helper's copy is in HELPER_SOURCE; the tests run both. */
function runTask(api: ReduceMemWasm, scr: Float64Array, j: Job, t: number): void {
  if (j.cols > 0) return runColumnTask(api, scr, j, t);
  const p = taskAddr(j, t);
  if (j.per > 0) {
    const r0 = t * j.per;
    const g = Math.min(j.per, j.K - r0);
    scr.fill(0, 0, g);
    api.rows[j.mode](p, g, j.R, j.scratch);
    j.res.set(scr.subarray(0, g), r0);
  } else {
    const c = (t % j.P) * j.chunk;
    j.res[t] = api.sum[j.mode](p, Math.min(j.R, c + j.chunk) - c);
  }
}

function reduceDirect(
  { api, memory, scratch }: InPlace,
  { mode, x, K, R, out }: RowSum,
  threaded: boolean,
): "threads" | "direct" {
  const lay = layout(K, R, SCRATCH_ROWS);
  const scr = new Float64Array(memory.buffer, scratch, SCRATCH_ROWS);
  const j = job({ ...lay, memory, p0: x.byteOffset, scratch, mode, K, R, res: out });
  const h = threaded && lay.n > 1 ? helper() : undefined;
  if (h) {
    const resLen = lay.per > 0 ? K : K * lay.P;
    if (h.res.length < resLen) h.res = new Float64Array(new SharedArrayBuffer(resLen * 8));
    j.res = h.res;
    if (runThreaded(api, scr, h, j)) {
      gather(j.res, lay, K, out);
      return "threads";
    }
  }
  j.res = lay.per > 0 ? out : new Float64Array(K * lay.P);
  for (let t = 0; t < lay.n; t++) runTask(api, scr, j, t);
  gather(j.res, lay, K, out);
  return "direct";
}

// Staged path: a plain input is copied, task by task, into a ring of SLOTS windows of a shared
// staging memory by the calling thread, while the helper reduces the windows already filled. The
// calling thread reduces a window itself when the ring is full and the helper is behind.
// 8 windows of 2^17 values (4 MiB, made once). Measured: smaller windows (2^14–2^16 values) were
// slower (per-task overhead), 4–16 windows or 2^18 values the same.
const SLOTS = 8;
const STAGE_CHUNK = CHUNK;
let staging: ReturnType<typeof inPlace> | null | undefined;

function reduceStaged({ mode, x, K, R, out }: RowSum): boolean {
  const lay = layout(K, R, SCRATCH_ROWS, STAGE_CHUNK);
  const h = lay.n > 1 ? helper() : undefined;
  if (!h) return false;
  if (staging === undefined) {
    const buf = allocWasmBacked(SLOTS * STAGE_CHUNK * 4);
    staging = (buf && inPlace(new Float32Array(buf, 0, SLOTS * STAGE_CHUNK))) || null;
  }
  if (!staging) return false;
  const { api, memory, scratch } = staging;
  const view = new Float32Array(memory.buffer, 0, SLOTS * STAGE_CHUNK);
  const resLen = lay.per > 0 ? K : K * lay.P;
  if (h.res.length < resLen) h.res = new Float64Array(new SharedArrayBuffer(resLen * 8));
  const j = job({ ...lay, memory, scratch, mode, K, R, res: h.res, slots: SLOTS });
  const stage = (t: number): void => {
    let a: number;
    let b: number;
    if (lay.per > 0) {
      a = t * lay.per * R;
      b = Math.min(K * R, a + lay.per * R);
    } else {
      const row = Math.floor(t / lay.P);
      a = row * R + (t - row * lay.P) * STAGE_CHUNK;
      b = Math.min(row * R + R, a + STAGE_CHUNK);
    }
    view.set(x.subarray(a, b), (t % SLOTS) * STAGE_CHUNK);
  };
  const scr = new Float64Array(memory.buffer, scratch, SCRATCH_ROWS);
  if (!runThreaded(api, scr, h, j, stage)) return false;
  gather(j.res, lay, K, out);
  return true;
}

/**
 * Column sums in place: outerK blocks of R rows of K values, out[o*K + k] = Σ_r t(x[o][r][k]),
 * in windows of columns accumulated in the memory's scratch, four rows a pass, in the same order
 * as the copying path in ../reduce.ts (so the results are identical). `threaded`: windows are
 * narrowed to make at least 8 tasks (never under 256 columns) and shared with the helper.
 */
export function reduceColumnsDirect(
  api: ReduceMemWasm,
  memory: SharedWasmMemory,
  scratch: number,
  mode: 0 | 1 | 2,
  x: Float32Array,
  outerK: number,
  R: number,
  K: number,
  out: Float64Array,
  threaded: boolean,
): "threads" | "direct" {
  const h = threaded ? helper() : undefined;
  const W = h
    ? Math.min(SCRATCH_ROWS, Math.max(256, Math.ceil(K / 8 / 16) * 16))
    : Math.min(K, SCRATCH_ROWS);
  const nw = Math.ceil(K / W);
  const j = job({
    ...{ chunk: 0, per: 0, P: 0, n: outerK * nw },
    memory,
    p0: x.byteOffset,
    scratch,
    mode,
    K,
    R,
    res: out,
    cols: W,
    nw,
    outer: outerK,
  });
  const scr = new Float64Array(memory.buffer, scratch, SCRATCH_ROWS);
  if (h && j.n > 1) {
    if (h.res.length < out.length) h.res = new Float64Array(new SharedArrayBuffer(out.length * 8));
    j.res = h.res;
    if (runThreaded(api, scr, h, j)) {
      out.set(j.res.subarray(0, out.length));
      return "threads";
    }
    j.res = out;
  }
  for (let t = 0; t < j.n; t++) runColumnTask(api, scr, j, t);
  return "direct";
}

// Shared control words (Int32Array over a SharedArrayBuffer).
const SEQ = 0; // bumped by the calling thread for each job posted to the helper
const NEXT = 1; // next task ticket (claimed by compareExchange)
const DONE = 2; // tasks finished, all jobs together
const READY = 3; // 1 once the helper is running
const FAILED = 4; // 1 if a helper task threw
const HELPED = 5; // tasks the helper has run (statistics for tests and benchmarks)
const AVAIL = 6; // tickets below this may be claimed (staged jobs: their values are copied)
const SLOT0 = 8; // SLOT0 + s: ticket + 1 of the last finished task in staging slot s

// The helper thread: waits on SEQ, takes the newest job from its port (receiveMessageOnPort is
// synchronous: the helper's event loop never runs), instantiates the row-sum module over the
// job's memory (a few µs) and claims tickets while they belong to that job. A job that is already
// finished (the calling thread did every task) is a no-op: its tickets are spent. It drops the
// job (and so the tensor's memory) before waiting again.
const HELPER_SOURCE = `"use strict";
const { workerData, receiveMessageOnPort } = process.getBuiltinModule("node:worker_threads");
const { ctrl, port, module, scratchRows } = workerData;
Atomics.store(ctrl, ${READY}, 1);
let seen = 0;
for (;;) {
  Atomics.wait(ctrl, ${SEQ}, seen);
  seen = Atomics.load(ctrl, ${SEQ});
  let m, j;
  while ((m = receiveMessageOnPort(port)) !== undefined) j = m.message;
  if (j === undefined) continue;
  const t0 = (Atomics.load(ctrl, ${NEXT}) - j.first) | 0;
  if (t0 < 0 || t0 >= j.n) continue;
  let ex, scr, q;
  try {
    ex = new WebAssembly.Instance(module, { env: { memory: j.memory } }).exports;
    q = j.scratch + scratchRows * 8;
    scr = new Float64Array(j.memory.buffer, q, scratchRows);
  } catch {
    Atomics.store(ctrl, ${FAILED}, 1);
    continue;
  }
  const rows = [ex.rows0, ex.rows1, ex.rows2][j.mode];
  const sum = [ex.sum0, ex.sum1, ex.sum2][j.mode];
  const acc1 = [ex.acc0, ex.acc1, ex.acc2][j.mode];
  const acc4 = [ex.acc4_0, ex.acc4_1, ex.acc4_2][j.mode];
  for (;;) {
    const cur = Atomics.load(ctrl, ${NEXT});
    const t = (cur - j.first) | 0;
    if (t < 0 || t >= j.n) break;
    const avail = Atomics.load(ctrl, ${AVAIL});
    if (((cur - avail) | 0) >= 0) {
      Atomics.wait(ctrl, ${AVAIL}, avail); // staged: wait for the next window to be copied
      continue;
    }
    if (Atomics.compareExchange(ctrl, ${NEXT}, cur, (cur + 1) | 0) !== cur) continue;
    try {
      if (j.cols > 0) {
        // a column window (runColumnTask)
        const o = Math.floor(t / j.nw);
        const c = (t - o * j.nw) * j.cols;
        const wn = Math.min(j.cols, j.K - c);
        const stride = j.K * 4;
        scr.fill(0, 0, wn);
        let p = j.p0 + (o * j.R * j.K + c) * 4;
        let r = 0;
        for (; r + 4 <= j.R; r += 4, p += 4 * stride) acc4(p, stride, wn, q);
        for (; r < j.R; r++, p += stride) acc1(p, wn, q);
        j.res.set(scr.subarray(0, wn), o * j.K + c);
      } else if (j.per > 0) {
        // whole rows (runTask, taskAddr)
        const r0 = t * j.per;
        const g = Math.min(j.per, j.K - r0);
        const p = j.slots > 0 ? (t % j.slots) * j.chunk * 4 : j.p0 + r0 * j.R * 4;
        scr.fill(0, 0, g);
        rows(p, g, j.R, q);
        j.res.set(scr.subarray(0, g), r0);
      } else {
        // a piece of a long row
        const row = Math.floor(t / j.P);
        const c = (t - row * j.P) * j.chunk;
        const p = j.slots > 0 ? (t % j.slots) * j.chunk * 4 : j.p0 + (row * j.R + c) * 4;
        j.res[t] = sum(p, Math.min(j.R, c + j.chunk) - c);
      }
    } catch {
      Atomics.store(ctrl, ${FAILED}, 1);
    }
    Atomics.add(ctrl, ${HELPED}, 1);
    if (j.slots > 0) Atomics.store(ctrl, ${SLOT0} + (t % j.slots), (cur + 1) | 0);
    const done = (Atomics.add(ctrl, ${DONE}, 1) + 1 - j.first) | 0;
    if (done === j.n || j.slots > 0) Atomics.notify(ctrl, ${DONE});
  }
  j = ex = scr = undefined;
}
`;

interface Helper {
  thread: HelperThread;
  ctrl: Int32Array;
  port: MessagePort;
  /** Task results, shared with the helper; grown as needed. */
  res: Float64Array;
}

let helperState: Helper | null | undefined;

/**
 * Starts the helper thread once (threads.ts; Node only: the helper takes its jobs from a message
 * port synchronously, which a browser worker cannot); undefined where it cannot run.
 */
function helper(): Helper | undefined {
  if (helperState !== undefined) return helperState ?? undefined;
  helperState = null;
  try {
    const wt =
      helperPlatform() === "node"
        ? nodeBuiltin<typeof import("node:worker_threads")>("node:worker_threads")
        : undefined;
    const module = reduceMemModule();
    if (!wt || !module) return undefined;
    const ctrl = new Int32Array(new SharedArrayBuffer(4 * (SLOT0 + SLOTS)));
    const { port1, port2 } = new wt.MessageChannel();
    const thread = startHelper({
      kind: "rows",
      nodeOnly: true,
      nodeSource: HELPER_SOURCE,
      data: { ctrl, port: port2, module, scratchRows: SCRATCH_ROWS },
      transfer: [port2],
      onFail: () => disableHelper(),
    });
    if (!thread) return undefined;
    port1.unref();
    helperState = { thread, ctrl, port: port1, res: new Float64Array(new SharedArrayBuffer(8)) };
  } catch {
    helperState = null;
  }
  return helperState ?? undefined;
}

function disableHelper(): void {
  if (helperState) {
    const h = helperState;
    helperState = null;
    h.port.close();
    h.thread.terminate();
  }
}

let helperOnly = false;
/** Test hook: the calling thread runs no task of a threaded job, so the helper runs them all. */
export function setHelperOnly(on: boolean): void {
  helperOnly = on;
}

/** Whether the helper thread is running, and how many tasks it has run. */
export function helperStats(): { ready: boolean; tasks: number } {
  const h = helperState;
  return h
    ? { ready: Atomics.load(h.ctrl, READY) === 1, tasks: Atomics.load(h.ctrl, HELPED) }
    : { ready: false, tasks: 0 };
}

/** Starts the helper thread if needed; resolves true once it runs (false if it cannot). */
export async function helperReady(timeoutMs = 10_000): Promise<boolean> {
  const h = helper();
  const until = Date.now() + timeoutMs;
  while (h && helperState === h && Date.now() < until) {
    if (Atomics.load(h.ctrl, READY) === 1) return true;
    await new Promise((r) => setTimeout(r, 2));
  }
  return false;
}

/**
 * Runs a job on both threads; false if the helper failed (the caller then runs it alone). With
 * `stage`, a staged job: stage(t) copies task t's values into its slot.
 */
function runThreaded(
  api: ReduceMemWasm,
  scr: Float64Array,
  h: Helper,
  j: Job,
  stage?: (t: number) => void,
): boolean {
  const { ctrl } = h;
  // Nobody claims tickets between jobs (a late helper claims only inside its own job's range),
  // so NEXT === DONE here and this job owns tickets [first, first + n).
  const first = Atomics.load(ctrl, NEXT);
  j.first = first;
  Atomics.store(ctrl, AVAIL, stage ? first : (first + j.n) | 0);
  try {
    h.port.postMessage(j);
  } catch {
    return giveUp(); // the job could not be sent (no tickets were taken)
  }
  Atomics.add(ctrl, SEQ, 1);
  Atomics.notify(ctrl, SEQ);
  /** Claims and runs the oldest available task; false when none is available. */
  const claim = (): boolean => {
    for (;;) {
      const cur = Atomics.load(ctrl, NEXT);
      if (((cur - first) | 0) >= j.n || ((cur - Atomics.load(ctrl, AVAIL)) | 0) >= 0) return false;
      if (Atomics.compareExchange(ctrl, NEXT, cur, (cur + 1) | 0) !== cur) continue;
      const t = (cur - first) | 0;
      runTask(api, scr, j, t);
      if (stage) Atomics.store(ctrl, SLOT0 + (t % j.slots), (cur + 1) | 0);
      Atomics.add(ctrl, DONE, 1);
      return true;
    }
  };
  // Waits for DONE to move (a helper task finished); false after 5 s without progress.
  let idle = 0;
  const waitDone = (done: number): boolean =>
    Atomics.wait(ctrl, DONE, done, 1000) !== "timed-out" || ++idle < 5;
  if (stage)
    for (let t = 0; t < j.n; t++) {
      if (t >= j.slots) {
        // The slot's previous task (t - slots) must be finished: run tasks meanwhile, or wait.
        const slot = SLOT0 + (t % j.slots);
        const want = (first + t - j.slots + 1) | 0;
        while (Atomics.load(ctrl, slot) !== want) {
          if (!helperOnly && claim()) continue;
          const done = Atomics.load(ctrl, DONE);
          if (Atomics.load(ctrl, slot) !== want && !waitDone(done)) return giveUp();
        }
      }
      stage(t);
      Atomics.store(ctrl, AVAIL, (first + t + 1) | 0);
      Atomics.notify(ctrl, AVAIL);
    }
  if (!helperOnly) while (claim());
  // Wait for the tasks the helper holds.
  for (;;) {
    const done = Atomics.load(ctrl, DONE);
    if (((done - first) | 0) === j.n) break;
    if (!waitDone(done)) return giveUp();
  }
  if (Atomics.load(ctrl, FAILED) !== 0) return giveUp();
  return true;
}

function giveUp(): false {
  disableHelper();
  return false;
}
