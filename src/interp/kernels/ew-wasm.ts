// float32 Add, Sub, Mul and Div in WebAssembly (ew.wat's `ew`, four values at a time): the
// operands pass through the product's arena in chunks (a copy in, the arithmetic, a copy out),
// which costs far less than a JavaScript loop over the same values. Each element is the same
// single IEEE float32 operation as on the other paths (a float64 result rounded to float32 is
// the correctly rounded float32 result for these four), so the results are identical.

import { erf, erfTable } from "./erf.js";
import { wasmMemoryOf } from "./wasm/memory.js";
import {
  f32At,
  f64At,
  gemmArena,
  gemmEnabled,
  packedConstant,
  scratchAlloc,
  scratchRelease,
  type Arena,
} from "./wasm/gemm.js";

const OPS = { add: 0, sub: 1, mul: 2, div: 3 } as const;
/** float32 values per chunk (three 64 KiB windows: a, b, the result). */
const CHUNK = 1 << 14;
/** Below this many outputs the JavaScript loop is as fast. */
const MIN = 1 << 12;

/**
 * out[i] = a[i mod pa] op b[i mod pb], where each period is out's length (an operand as large as
 * the output), 1 (one value) or a common P dividing it (an operand repeated along leading axes).
 * float32 arrays, or with `half` 1 float16 bits in and out: widened as widenHalfWasm widens, the
 * same float32 operation, rounded as narrowHalfWasm rounds (so the bits of the widen, compute,
 * narrow path), with no float32 copy of the operands or the result outside the arena. False
 * (nothing written) where the shapes or the platform do not allow it.
 */
export function arithWasm(
  op: keyof typeof OPS,
  a: Float32Array | Uint16Array,
  pa: number,
  b: Float32Array | Uint16Array,
  pb: number,
  out: Float32Array | Uint16Array,
  half: 0 | 1 = 0,
): boolean {
  const n = out.length;
  if (n < MIN || !gemmEnabled()) return false;
  const small = [pa, pb].filter((p) => p !== n);
  const P = Math.max(0, ...small.filter((p) => p !== 1)); // 0: whole chunks as one row
  if (P > CHUNK || small.some((p) => p !== P && p !== 1)) return false;
  const ar = gemmArena()!;
  try {
    const chunk = P ? Math.floor(CHUNK / P) * P : CHUNK;
    // 16 bytes spare a window: h2f widens whole vectors of four.
    const aAt = scratchAlloc(ar, chunk * 4 + 16, "an operand window");
    const bAt = scratchAlloc(ar, chunk * 4 + 16, "an operand window");
    const oAt = scratchAlloc(ar, chunk * 4 + 16, "a result window");
    const buf = ar.memory.buffer;
    // An operand's values [s, s + len) into its window as float32 (half bits widened downwards
    // in place, from the window's upper half).
    const put = (at: number, src: Float32Array | Uint16Array, s: number, len: number) => {
      if (!half) return f32At(ar, at, len).set((src as Float32Array).subarray(s, s + len));
      const bits = at + chunk * 2;
      new Uint16Array(buf, bits, len).set((src as Uint16Array).subarray(s, s + len));
      ar.ex.h2f!(bits, at, (len + 3) & ~3, 0);
    };
    // An operand smaller than the output is staged once: one value as a whole window of it,
    // a period as one row of P values.
    for (const [at, src, p] of [
      [aAt, a, pa],
      [bAt, b, pb],
    ] as const)
      if (p === 1) {
        put(at, src, 0, 1);
        f32At(ar, at, chunk).fill(f32At(ar, at, 1)[0]!);
      } else if (p !== n) put(at, src, 0, P);
    const ov = half ? new Uint16Array(buf, oAt, chunk) : f32At(ar, oAt, chunk);
    for (let s = 0; s < n; s += chunk) {
      const len = Math.min(chunk, n - s);
      if (pa === n) put(aAt, a, s, len);
      if (pb === n) put(bAt, b, s, len);
      const [rows, width] = P ? [len / P, P] : [1, len];
      const as = pa === n ? width * 4 : 0;
      const bs = pb === n ? width * 4 : 0;
      ar.ex.ew!(OPS[op], aAt, as, bAt, bs, oAt, rows, width);
      if (half) ar.ex.f2h!(oAt, oAt, len, 2 | 4);
      out.set(len === chunk ? ov : ov.subarray(0, len), s);
    }
  } finally {
    scratchRelease(ar);
  }
  return true;
}

/** The key of the Erf table kept in the arena for the run. */
const ERF_KEY = {};

/**
 * Runs `f(xAt, yAt, len)` over src in windows of the arena (src's values copied in at xAt, f's
 * float32 results at yAt copied out to out); `before` may pin constants first. False (nothing
 * written) where the platform does not allow it or the tensor is small.
 */
function mapChunks(
  src: Float32Array,
  out: Float32Array,
  f: (xAt: number, yAt: number, len: number, s: number) => void,
  before?: () => void,
): boolean {
  const n = out.length;
  if (n < MIN || !gemmEnabled()) return false;
  const ar = gemmArena()!;
  try {
    before?.();
    const xAt = scratchAlloc(ar, CHUNK * 4, "an operand window");
    const yAt = scratchAlloc(ar, CHUNK * 4, "a result window");
    const [xv, yv] = [f32At(ar, xAt, CHUNK), f32At(ar, yAt, CHUNK)];
    for (let s = 0; s < n; s += CHUNK) {
      const len = Math.min(CHUNK, n - s);
      xv.set(src.subarray(s, s + len));
      f(xAt, yAt, len, s);
      out.set(len === CHUNK ? yv : yv.subarray(0, len), s);
    }
  } finally {
    scratchRelease(ar);
  }
  return true;
}

/**
 * out = erf(src) for float32 values, by ewmem.wat's erf32 (erfFloat32's evaluation); the values
 * it leaves to the reference (|x| ≥ 6, NaN, a close call) are computed by `erf` here.
 */
export function erfWasm(src: Float32Array, out: Float32Array): boolean {
  const ar = gemmArena();
  const t = erfTable();
  let table = 0;
  let fixAt = 0;
  return mapChunks(
    src,
    out,
    (xAt, yAt, len) => {
      const cnt = ar!.ex.erf32!(xAt, yAt, len, table, fixAt) as unknown as number;
      const fix = new Int32Array(ar!.memory.buffer, fixAt, cnt);
      const [xv, yv] = [f32At(ar!, xAt, len), f32At(ar!, yAt, len)];
      for (let i = 0; i < cnt; i++) yv[fix[i]!] = erf(xv[fix[i]!]!);
    },
    () => {
      table = packedConstant(ar!, ERF_KEY, "erf", t.length * 8, (at) =>
        f64At(ar!, at, t.length).set(t),
      );
      fixAt = scratchAlloc(ar!, CHUNK * 4, "indices");
    },
  );
}

/**
 * HardSigmoid of float32 values in float32 steps (ewmem.wat's hsig): fl(fl(a·x) + b) clamped to
 * [0, 1], NaN passed on; `swish`: times x (HardSwish).
 */
export function hardSigmoidWasm(
  src: Float32Array,
  out: Float32Array,
  a: number,
  b: number,
  swish = false,
): boolean {
  const ar = gemmArena();
  return mapChunks(src, out, (xAt, yAt, len) => ar!.ex.hsig!(xAt, yAt, len, a, b, swish ? 1 : 0));
}

/** float32 Relu (ewmem.wat's relu): x < 0 ? 0 : x, NaN and −0 unchanged. */
export function reluWasm(src: Float32Array, out: Float32Array): boolean {
  const ar = gemmArena();
  return mapChunks(src, out, (xAt, yAt, len) => ar!.ex.relu!(xAt, yAt, len));
}

/**
 * float16 / bfloat16 bits (`half` 1 / 2) as float32 (ewmem.wat's h2f: toFloat32's values, every
 * float16 NaN as 0x7fc00000), in windows of the arena. False where the platform does not allow it.
 */
export function widenHalfWasm(src: Uint16Array, half: 1 | 2, out: Float32Array): boolean {
  return inWindows(src.length, "a result window", (ar, at) => {
    const bits = at + CHUNK * 2; // widened downwards in place, as stage does
    const [bv, yv] = [new Uint16Array(ar.memory.buffer, bits, CHUNK), f32At(ar, at, CHUNK)];
    return (s, len) => {
      bv.set(src.subarray(s, s + len));
      ar.ex.h2f!(bits, at, (len + 3) & ~3, half - 1);
      out.set(len === CHUNK ? yv : yv.subarray(0, len), s);
    };
  });
}

/**
 * float32 values rounded to float16 / bfloat16 bits (`half` 1 / 2) as encodeHalf rounds them
 * (ewmem.wat's f2h from float32, NaN kept), in windows of the arena. False where the platform
 * does not allow it.
 */
export function narrowHalfWasm(src: Float32Array, half: 1 | 2, out: Uint16Array): boolean {
  return inWindows(src.length, "an operand window", (ar, at) => {
    const [xv, yv] = [f32At(ar, at, CHUNK), new Uint16Array(ar.memory.buffer, at, CHUNK)];
    return (s, len) => {
      xv.set(src.subarray(s, s + len));
      ar.ex.f2h!(at, at, len, (half - 1) | 2 | 4);
      out.set(len === CHUNK ? yv : yv.subarray(0, len), s);
    };
  });
}

/**
 * Runs `n` elements through one window of CHUNK float32s of the arena (`what` names it in a
 * budget error): `setup` gets the window's address and gives the step for each [s, s + len).
 * False (nothing done) below MIN elements or where the platform does not allow WebAssembly.
 */
function inWindows(
  n: number,
  what: string,
  setup: (ar: Arena, at: number) => (s: number, len: number) => void,
): boolean {
  if (n < MIN || !gemmEnabled()) return false;
  const ar = gemmArena()!;
  try {
    const step = setup(ar, scratchAlloc(ar, CHUNK * 4, what));
    for (let s = 0; s < n; s += CHUNK) step(s, Math.min(CHUNK, n - s));
  } finally {
    scratchRelease(ar);
  }
  return true;
}

/**
 * float32 arithmetic over rows (a broadcast merged to its last axis, as elementwise.ts's
 * blockedFloat does): for each row r of `len` outputs at r·len, out = a op b with a's values from
 * `aAt(r)` stepping `da` (1, or 0: one value for the row), b's likewise. Rows of at least
 * `CHUNK / 4` values only (else false, nothing written).
 */
export function arithRowsWasm(
  op: keyof typeof OPS,
  a: Float32Array,
  aAt: (r: number) => number,
  da: number,
  b: Float32Array,
  bAt: (r: number) => number,
  db: number,
  out: Float32Array,
  len: number,
): boolean {
  const n = out.length;
  if (len < CHUNK / 4 || n < MIN || !gemmEnabled()) return false;
  const ar = gemmArena()!;
  try {
    const xAt = scratchAlloc(ar, CHUNK * 4, "an operand window");
    const yAt = scratchAlloc(ar, CHUNK * 4, "an operand window");
    const oAt = scratchAlloc(ar, CHUNK * 4, "a result window");
    const [xv, yv, ov] = [f32At(ar, xAt, CHUNK), f32At(ar, yAt, CHUNK), f32At(ar, oAt, CHUNK)];
    const rows = n / len;
    for (let r = 0; r < rows; r++) {
      const [ja, kb] = [aAt(r), bAt(r)];
      for (let s = 0; s < len; s += CHUNK) {
        const m = Math.min(CHUNK, len - s);
        if (da) xv.set(a.subarray(ja + s, ja + s + m));
        else xv.fill(a[ja]!, 0, m);
        if (db) yv.set(b.subarray(kb + s, kb + s + m));
        else yv.fill(b[kb]!, 0, m);
        ar.ex.ew!(OPS[op], xAt, 0, yAt, 0, oAt, 1, m);
        out.set(m === CHUNK ? ov : ov.subarray(0, m), r * len + s);
      }
    }
  } finally {
    scratchRelease(ar);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// In a tensor's own memory: a float32 or int32 tensor of 2^20 elements or more lives in a shared
// WebAssembly memory of its own (../tensor.ts); an instance of the arena's modules over that
// memory reads it where it is, and overwrites it where the executor lets the kernel
// (ctx.donated), with no copy at all.

interface WasmInstanceCtor {
  Instance: new (m: object, imports: object) => { exports: Record<string, unknown> };
}
const tensorInstances = new WeakMap<object, Record<string, (...args: number[]) => number>>();

/** The arena's modules over the memory of `data` (undefined: not in a memory of its own). */
function inMemory(
  data: Float32Array | Int32Array,
): { ex: Record<string, (...args: number[]) => number>; at: number; scratch: number } | undefined {
  const m = wasmMemoryOf(data.buffer);
  if (!m || !gemmEnabled()) return undefined;
  const ar = gemmArena()!;
  if (!ar.shared) return undefined;
  let ex = tensorInstances.get(m.memory);
  if (!ex) {
    const wa = (globalThis as unknown as { WebAssembly: WasmInstanceCtor }).WebAssembly;
    ex = {};
    for (const mod of ar.modules)
      Object.assign(ex, new wa.Instance(mod, { env: { memory: m.memory } }).exports);
    tensorInstances.set(m.memory, ex);
  }
  return { ex, at: data.byteOffset, scratch: m.scratch };
}

/** float32 Relu in place (relu over the tensor's own memory). False: not there. */
export function reluInPlace(data: Float32Array): boolean {
  const m = inMemory(data);
  if (!m) return false;
  m.ex.relu!(m.at, m.at, (data.length + 3) & ~3);
  return true;
}

/**
 * data = data op s (or s op data with `left`), in place, where s is one value for every
 * `inner` consecutive elements, the next of `values` for the next (cycling through them: a
 * scalar, or a per-channel operand). False: not in a memory of its own.
 */
export function arithInPlace(
  op: keyof typeof OPS,
  data: Float32Array,
  values: ArrayLike<number>,
  inner: number,
  left: boolean,
): boolean {
  const m = inMemory(data);
  if (!m) return false;
  const n = data.length;
  if (values.length === 1) {
    m.ex.ews!(OPS[op], m.at, (n + 3) & ~3, values[0]!, left ? 1 : 0);
    return true;
  }
  if (inner % 4 !== 0) return false; // rows must be whole vectors
  for (let r = 0, o = 0; o < n; r++, o += inner)
    m.ex.ews!(OPS[op], m.at + 4 * o, inner, values[r % values.length]!, left ? 1 : 0);
  return true;
}

/** int32 values become float32 in place (as a Float32Array stores them); the float32 view. */
export function intToFloatInPlace(data: Int32Array): Float32Array | undefined {
  const m = inMemory(data);
  if (!m) return undefined;
  m.ex.i2f!(m.at, (data.length + 3) & ~3);
  return new Float32Array(data.buffer, data.byteOffset, data.length);
}

/**
 * DynamicQuantizeLinear's passes (qgemm.wat's minmax and dql) reading float32 values in their
 * own memory, the results through its scratch: the least and greatest of 0 and the values, then,
 * given the scale and zero point they make, the quantized values. Undefined: not there.
 */
export function dynamicQuantizeInPlace(
  x: Float32Array,
  params: (min: number, max: number) => { scale: number; zero: number },
  out: () => Uint8Array,
): { y: Uint8Array; scale: number; zero: number } | undefined {
  const m = inMemory(x);
  if (!m) return undefined;
  const n = x.length;
  const lanes = new Float32Array(x.buffer, m.scratch, 8).fill(0);
  m.ex.minmax!(m.at, n & ~3, m.scratch);
  let min = 0;
  let max = 0;
  for (let l = 0; l < 4; l++) {
    if (lanes[l]! < min) min = lanes[l]!;
    if (lanes[4 + l]! > max) max = lanes[4 + l]!;
  }
  for (let i = n & ~3; i < n; i++) {
    if (x[i]! < min) min = x[i]!;
    if (x[i]! > max) max = x[i]!;
  }
  const { scale, zero } = params(min, max);
  const y = out();
  const win = new Uint8Array(x.buffer, m.scratch, SCRATCH_WINDOW);
  const div = Math.fround(scale === 0 ? 1 : scale);
  for (let s = 0; s < n; s += SCRATCH_WINDOW) {
    const len = Math.min(SCRATCH_WINDOW, n - s);
    m.ex.dql!(m.at + 4 * s, (len + 3) & ~3, m.scratch, div, zero);
    y.set(len === SCRATCH_WINDOW ? win : win.subarray(0, len), s);
  }
  return { y, scale, zero };
}
/** Values quantized at a time into a tensor memory's scratch. */
const SCRATCH_WINDOW = 1 << 15;
