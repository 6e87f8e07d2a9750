// Builds the WebAssembly modules: writes reduce.wat and lcse.wat (the readable sources, generated
// from the templates below) and wasm-bytes.ts (the assembled bytes as base64), so that the
// runtime needs no assembler. Run after editing: `node src/interp/kernels/wasm/assemble.mjs`.
// Needs the `wabt` devDependency.

import { writeFileSync } from "node:fs";
import wabtInit from "wabt";
import { ewWat, gemmWat, hgemmWat } from "./gemm-template.mjs";
import { qgemmWat } from "./qgemm-template.mjs";

// Element transforms applied to each promoted f64x2 pair before it is summed.
// 0: x (Sum, Mean, LogSum); 1: |x| (L1); 2: x*x (SumSquare, L2).
const MODES = [
  { id: 0, vec: (e) => e, scalar: (e) => e },
  { id: 1, vec: (e) => `(f64x2.abs ${e})`, scalar: (e) => `(f64.abs ${e})` },
  {
    id: 2,
    vec: (e) => `(f64x2.mul (local.tee $t ${e}) (local.get $t))`,
    scalar: (e) => `(f64.mul (local.tee $ts ${e}) (local.get $ts))`,
  },
];

// Two float32 values at byte address `addr` + `off`, widened to f64x2.
const pair = (addr, off) =>
  `(f64x2.promote_low_f32x4 (v128.load64_zero offset=${off} align=4 ${addr}))`;

const K = 8; // f64x2 accumulators in sumN: 2K floats an iteration

function sumSeg(m) {
  // Sum of t(x[i]) over n contiguous float32 values at p. K independent f64x2 accumulators keep
  // the float64 adds from waiting on each other (the loop is add-latency bound); the tail is scalar.
  const locals = Array.from({ length: K }, (_, i) => `(local $a${i} v128)`).join(" ");
  const adds = Array.from(
    { length: K },
    (_, i) =>
      `(local.set $a${i} (f64x2.add (local.get $a${i}) ${m.vec(pair("(local.get $p)", 8 * i))}))`,
  ).join("\n        ");
  let total = "(local.get $a0)";
  for (let i = 1; i < K; i++) total = `(f64x2.add ${total} (local.get $a${i}))`;
  return `
  (func $sum${m.id} (export "sum${m.id}") (param $p i32) (param $n i32) (result f64)
    ${locals} (local $end i32) (local $stop i32) (local $s f64) (local $t v128) (local $ts f64)
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $stop (i32.add (local.get $p) (i32.shl (i32.and (local.get $n) (i32.const ${-2 * K})) (i32.const 2))))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $p) (local.get $stop)))
        ${adds}
        (local.set $p (i32.add (local.get $p) (i32.const ${8 * K})))
        (br $l)))
    (local.set $a0 ${total})
    (local.set $s (f64.add (f64x2.extract_lane 0 (local.get $a0)) (f64x2.extract_lane 1 (local.get $a0))))
    (block $done2
      (loop $t
        (br_if $done2 (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $s (f64.add (local.get $s) ${m.scalar("(f64.promote_f32 (f32.load (local.get $p)))")}))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (br $t)))
    (local.get $s))`;
}

function sumRows(m) {
  // out[r] += sum of row r, for rows of n contiguous float32 values (f64 results at q).
  return `
  (func $rows${m.id} (export "rows${m.id}") (param $p i32) (param $rows i32) (param $n i32) (param $q i32)
    (local $r i32)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (f64.store (local.get $q) (f64.add (f64.load (local.get $q)) (call $sum${m.id} (local.get $p) (local.get $n))))
        (local.set $p (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
        (local.set $q (i32.add (local.get $q) (i32.const 8)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $l))))`;
}

// The loops of a pass that adds into the float64 row at q: vector `steps` over `lanes` floats at
// a time (p advancing 4 bytes a float, q 8) while whole steps remain, then one float at a time,
// acc += `tail`.
function accLoops(lanes, steps, tail) {
  return `(local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $stop (i32.add (local.get $p) (i32.shl (i32.and (local.get $n) (i32.const -${lanes})) (i32.const 2))))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $p) (local.get $stop)))
        ${steps.join("\n        ")}
        (local.set $p (i32.add (local.get $p) (i32.const ${4 * lanes})))
        (local.set $q (i32.add (local.get $q) (i32.const ${8 * lanes})))
        (br $l)))
    (block $done2
      (loop $t
        (br_if $done2 (i32.ge_u (local.get $p) (local.get $end)))
        (f64.store (local.get $q) (f64.add (f64.load (local.get $q)) ${tail}))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (local.set $q (i32.add (local.get $q) (i32.const 8)))
        (br $t))))`;
}

function accRow(m) {
  // acc[i] += t(x[i]) for n contiguous float32 x at p and float64 acc at q: the inner loop of a
  // reduction over an outer axis, where whole rows are added into an output row.
  const step = (off) =>
    `(v128.store offset=${off * 2} align=8 (local.get $q) (f64x2.add (v128.load offset=${off * 2} align=8 (local.get $q)) ${m.vec(pair("(local.get $p)", off))}))`;
  return `
  (func $acc${m.id} (export "acc${m.id}") (param $p i32) (param $n i32) (param $q i32)
    (local $end i32) (local $stop i32) (local $t v128) (local $ts f64)
    ${accLoops(8, [step(0), step(8), step(16), step(24)], m.scalar("(f64.promote_f32 (f32.load (local.get $p)))"))}`;
}

function accRow4(m) {
  // acc[i] += t(x0[i]) + t(x1[i]) + t(x2[i]) + t(x3[i]) for four rows x_r at p + r*stride: one
  // pass over the accumulator row for four input rows (the accumulator traffic dominated acc).
  const row = (r, off) =>
    m.vec(pair(r === 0 ? "(local.get $p)" : `(i32.add (local.get $p) (local.get $s${r}))`, off));
  const col = (off) =>
    `(v128.store offset=${off * 2} align=8 (local.get $q) (f64x2.add (v128.load offset=${off * 2} align=8 (local.get $q)) (f64x2.add (f64x2.add ${row(0, off)} ${row(1, off)}) (f64x2.add ${row(2, off)} ${row(3, off)}))))`;
  const one = (r) =>
    m.scalar(
      `(f64.promote_f32 (f32.load ${r === 0 ? "(local.get $p)" : `(i32.add (local.get $p) (local.get $s${r}))`}))`,
    );
  return `
  (func $acc4_${m.id} (export "acc4_${m.id}") (param $p i32) (param $stride i32) (param $n i32) (param $q i32)
    (local $end i32) (local $stop i32) (local $t v128) (local $ts f64) (local $s1 i32) (local $s2 i32) (local $s3 i32)
    (local.set $s1 (local.get $stride))
    (local.set $s2 (i32.shl (local.get $stride) (i32.const 1)))
    (local.set $s3 (i32.add (local.get $s2) (local.get $stride)))
    ${accLoops(4, [col(0), col(8)], `(f64.add (f64.add ${one(0)} ${one(1)}) (f64.add ${one(2)} ${one(3)}))`)}`;
}

// ---------------------------------------------------------------------------------------------
// LogCumSumExp: two independent scans at once, one per f64x2 lane (two rows, or two columns).

const bitsToF64 = (hex) => new Float64Array(new BigUint64Array([BigInt(hex)]).buffer)[0];
const f2 = (v) => `(v128.const f64x2 ${fmt(v)} ${fmt(v)})`;
const i2 = (v) => `(v128.const i64x2 ${v} ${v})`;
function fmt(v) {
  if (Number.isNaN(v)) return "nan";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  return String(v); // shortest round-trip form: wabt reads back the same double
}
// ln 2 split so that k * LN2_HI is exact for the k that occur (|k| < 2^11).
const LN2_HI = bitsToF64("0x3FE62E42FEE00000");
const LN2_LO = bitsToF64("0x3DEA39EF35793C76");

/** Horner's scheme in f64x2: c[0] + x*(c[1] + x*(...)). */
function horner(x, c) {
  let e = f2(c[c.length - 1]);
  for (let i = c.length - 2; i >= 0; i--) e = `(f64x2.add ${f2(c[i])} (f64x2.mul ${e} ${x}))`;
  return e;
}

// exp(x) for x <= 0 (or -inf): x = k ln2 + r, |r| <= ln2/2; exp(r) by its Taylor series to r^13
// (remainder < 1e-17); 2^k built in the exponent bits. Below -708 the result is 0: such terms
// change no float32 result (the kernel uses this path only for float32 and narrower outputs).
const invFact = Array.from({ length: 14 }, (_, k) => {
  let f = 1;
  for (let i = 2; i <= k; i++) f *= i;
  return 1 / f;
});
// Locals of one chain carry a suffix (A, B, ...), so that independent chains can share a loop.
const expInto = (x, out, q) => `
    (local.set $k${q} (f64x2.nearest (f64x2.mul (local.get ${x}) ${f2(1 / Math.LN2)})))
    (local.set $r${q} (f64x2.sub (f64x2.sub (local.get ${x}) (f64x2.mul (local.get $k${q}) ${f2(LN2_HI)})) (f64x2.mul (local.get $k${q}) ${f2(LN2_LO)})))
    (local.set ${out} (f64x2.mul ${horner(`(local.get $r${q})`, invFact)}
      (i64x2.shl (i64x2.add (i64x2.extend_low_i32x4_s (i32x4.trunc_sat_f64x2_s_zero (local.get $k${q}))) ${i2(1023)}) (i32.const 52))))
    (local.set ${out} (v128.bitselect ${f2(0)} (local.get ${out}) (f64x2.lt (local.get ${x}) ${f2(-708)})))`;

// log1p(t) for finite t >= 0: u = 1 + t = 2^e * f with f in [sqrt(1/2), sqrt(2)); log f = 2 atanh(s),
// s = (f - 1)/(f + 1), by its series to s^23 (|s| <= 0.172: remainder < 1e-18); plus the
// correction (t - (u - 1))/u for the rounding of 1 + t.
const atanhCoef = Array.from({ length: 11 }, (_, i) => 1 / (2 * i + 3)); // 1/3, 1/5, ..., 1/23
const log1pInto = (t, out, q) => `
    (local.set $u${q} (f64x2.add (local.get ${t}) ${f2(1)}))
    (local.set $c${q} (f64x2.div (f64x2.sub (local.get ${t}) (f64x2.sub (local.get $u${q}) ${f2(1)})) (local.get $u${q})))
    (local.set $mant${q} (v128.and (local.get $u${q}) ${i2("0x000FFFFFFFFFFFFF")}))
    (local.set $big${q} (i64x2.gt_s (local.get $mant${q}) ${i2("0x6A09E667F3BCD")}))
    (local.set $ex${q} (i64x2.sub (i64x2.sub (i64x2.shr_u (local.get $u${q}) (i32.const 52)) ${i2(1023)}) (local.get $big${q})))
    (local.set $f${q} (v128.or (local.get $mant${q}) (v128.bitselect ${i2("0x3FE0000000000000")} ${i2("0x3FF0000000000000")} (local.get $big${q}))))
    (local.set $s${q} (f64x2.div (f64x2.sub (local.get $f${q}) ${f2(1)}) (f64x2.add (local.get $f${q}) ${f2(1)})))
    (local.set $s${q} (f64x2.add (local.get $s${q}) (local.get $s${q})))
    (local.set $z${q} (f64x2.mul (f64x2.mul (local.get $s${q}) (local.get $s${q})) ${f2(0.25)}))
    (local.set $lf${q} (f64x2.add (local.get $s${q}) (f64x2.mul (local.get $s${q}) (f64x2.mul (local.get $z${q}) ${horner(`(local.get $z${q})`, atanhCoef)}))))
    (local.set $exf${q} (f64x2.convert_low_i32x4_s (i8x16.shuffle 0 1 2 3 8 9 10 11 0 1 2 3 8 9 10 11 (local.get $ex${q}) (local.get $ex${q}))))
    (local.set ${out} (f64x2.add (f64x2.mul (local.get $exf${q}) ${f2(LN2_HI)})
      (f64x2.add (f64x2.mul (local.get $exf${q}) ${f2(LN2_LO)}) (f64x2.add (local.get $lf${q}) (local.get $c${q})))))`;

const CHAINS = ["A", "B"]; // two f64x2 chains: four scans a call
const LANES = CHAINS.length * 2;
const CHAIN_LOCALS = [
  "m",
  "t",
  "nan",
  "pinf",
  "v",
  "d",
  "x",
  "e",
  "gt",
  "valid",
  "y",
  "k",
  "r",
  "u",
  "c",
  "mant",
  "big",
  "ex",
  "f",
  "s",
  "z",
  "lf",
  "exf",
];

// One step of one chain (lanes 2i and 2i+1).
const step = (q, i) => `
        (local.set $v${q} (f64x2.replace_lane 1 (f64x2.splat (f64.promote_f32 (f32.load (local.get $p${2 * i})))) (f64.promote_f32 (f32.load (local.get $p${2 * i + 1})))))
        (local.set $nan${q} (v128.or (local.get $nan${q}) (f64x2.ne (local.get $v${q}) (local.get $v${q}))))
        (local.set $pinf${q} (v128.or (local.get $pinf${q}) (f64x2.eq (local.get $v${q}) ${f2(Infinity)})))
        ;; finite values update the state; -inf adds nothing; NaN and +inf only set their masks
        (local.set $valid${q} (v128.and (f64x2.gt (local.get $v${q}) ${f2(-Infinity)}) (f64x2.lt (local.get $v${q}) ${f2(Infinity)})))
        (local.set $d${q} (f64x2.sub (local.get $v${q}) (local.get $m${q})))
        (local.set $gt${q} (f64x2.gt (local.get $d${q}) ${f2(0)}))
        (local.set $x${q} (f64x2.neg (f64x2.abs (local.get $d${q}))))
        ${expInto(`$x${q}`, `$e${q}`, q)}
        ;; a new maximum rescales the sum: t = (t + 1) e^(m - v); otherwise t += e^(v - m)
        (local.set $t${q} (v128.bitselect
          (v128.bitselect (f64x2.mul (f64x2.add (local.get $t${q}) ${f2(1)}) (local.get $e${q})) (f64x2.add (local.get $t${q}) (local.get $e${q})) (local.get $gt${q}))
          (local.get $t${q}) (local.get $valid${q})))
        (local.set $m${q} (v128.bitselect (local.get $v${q}) (local.get $m${q}) (v128.and (local.get $valid${q}) (local.get $gt${q}))))
        ${log1pInto(`$t${q}`, `$y${q}`, q)}
        ;; m = -inf (nothing finite yet) gives -inf + log1p(0) = -inf
        (local.set $y${q} (f64x2.add (local.get $m${q}) (local.get $y${q})))
        (local.set $y${q} (v128.bitselect ${f2(Infinity)} (local.get $y${q}) (local.get $pinf${q})))
        (local.set $y${q} (v128.bitselect ${f2(NaN)} (local.get $y${q}) (local.get $nan${q})))
        (f64.store (local.get $q${2 * i}) (f64x2.extract_lane 0 (local.get $y${q})))
        (f64.store (local.get $q${2 * i + 1}) (f64x2.extract_lane 1 (local.get $y${q})))`;

const lanes = (f) => Array.from({ length: LANES }, (_, l) => f(l)).join(" ");
// lcse4(p0..p3, q0..q3, n, stepIn, stepOut, state): n steps of four scans; lane L reads float32 at
// pL + j*stepIn and writes float64 at qL + j*stepOut. The running state (per chain: max m, scaled
// sum t of the terms other than the max, NaN-seen and +inf-seen masks; 128 bytes in all) is read
// from and written back to `state`, so a long scan can be done in pieces.
const lcse = `
  (func $lcse${LANES} (export "lcse${LANES}") ${lanes((l) => `(param $p${l} i32)`)} ${lanes((l) => `(param $q${l} i32)`)} (param $n i32) (param $si i32) (param $so i32) (param $st i32)
    (local $j i32) ${CHAINS.map((q) => CHAIN_LOCALS.map((v) => `(local $${v}${q} v128)`).join(" ")).join("\n    ")}
    ${CHAINS.map((q, i) => ["m", "t", "nan", "pinf"].map((v, k) => `(local.set $${v}${q} (v128.load offset=${64 * i + 16 * k} (local.get $st)))`).join("\n    ")).join("\n    ")}
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        ${CHAINS.map((q, i) => step(q, i)).join("\n")}
        ${lanes((l) => `(local.set $p${l} (i32.add (local.get $p${l}) (local.get $si)))`)}
        ${lanes((l) => `(local.set $q${l} (i32.add (local.get $q${l}) (local.get $so)))`)}
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l)))
    ${CHAINS.map((q, i) => ["m", "t", "nan", "pinf"].map((v, k) => `(v128.store offset=${64 * i + 16 * k} (local.get $st) (local.get $${v}${q}))`).join("\n    ")).join("\n    ")})`;

// The modules, each under 4 KiB: browsers refuse to compile larger modules synchronously on
// their main thread, and the loader compiles synchronously on first use.
const modules = {
  reduce: `;; GENERATED by assemble.mjs: float32 sum-like reductions with float64 accumulation.
(module
  (memory (export "memory") 1)
${MODES.map((m) => sumSeg(m) + sumRows(m) + accRow(m) + accRow4(m)).join("\n")}
)
`,
  // The same functions again, over an imported shared memory: large float32 tensors are allocated in a
  // shared WebAssembly.Memory of their own (../../tensor.ts), which an instance of this module
  // reads in place, on any thread, with no copy.
  reducemem: `;; GENERATED by assemble.mjs: float32 sum-like reductions over a tensor's own (shared) memory.
(module
  (import "env" "memory" (memory 1 65536 shared))
${MODES.map((m) => sumSeg(m) + sumRows(m) + accRow(m) + accRow4(m)).join("\n")}
)
`,
  // The matrix product, and elementwise arithmetic and Erf, over an imported memory (the product's
  // arena): shared where threads help. Only the shared variants are shipped: where shared memory
  // is unavailable, loader.ts's unsharedMemory makes the plain ones (checked below).
  gemmmem: gemmWat(`(import "env" "memory" (memory 1 65536 shared))`),
  ewmem: ewWat(`(import "env" "memory" (memory 1 65536 shared))`),
  // The float32-accumulating product of float16 and bfloat16 operands, over the same memory.
  hgemm: hgemmWat(`(import "env" "memory" (memory 1 65536 shared))`),
  // The integer product of the quantized ops, over the same memory.
  qgemm: qgemmWat(`(import "env" "memory" (memory 1 65536 shared))`),
  lcse: `;; GENERATED by assemble.mjs: LogCumSumExp scans, two lanes at a time, in float64.
(module
  (memory (export "memory") 1)
${lcse}
)
`,
};

const here = new URL(".", import.meta.url);
const wabt = await wabtInit();
let ts = "// GENERATED by assemble.mjs from the templates there (see *.wat); do not edit.\n";
for (const [name, wat] of Object.entries(modules)) {
  const mod = wabt.parseWat(`${name}.wat`, wat, { simd: true, threads: true });
  // wabt's validator rejects shared memories whatever the features say; V8 checks those modules.
  if (!wat.includes(" shared)")) mod.validate();
  const { buffer } = mod.toBinary({});
  if (!WebAssembly.validate(buffer)) throw new Error(`${name}.wasm does not validate`);
  if (buffer.length > 4096) throw new Error(`${name}.wasm is ${buffer.length} bytes, over 4 KiB`);
  writeFileSync(new URL(`${name}.wat`, here), wat);
  const lines =
    Buffer.from(buffer)
      .toString("base64")
      .match(/.{1,100}/g) ?? [];
  ts += `export const ${name.toUpperCase()}_WASM_BASE64 =\n${lines.map((l) => `  "${l}"`).join(" +\n")};\n`;
  console.log(`${name}.wasm: ${buffer.length} bytes`);
}
writeFileSync(new URL("wasm-bytes.ts", here), ts);

// The plain-memory modules are the shared ones with the limits' shared bit cleared.
for (const [name, make] of [
  ["gemmmem", gemmWat],
  ["ewmem", ewWat],
  ["hgemm", hgemmWat],
  ["qgemm", qgemmWat],
]) {
  const bin = (wat) =>
    Buffer.from(wabt.parseWat("x.wat", wat, { simd: true, threads: true }).toBinary({}).buffer);
  const shared = bin(modules[name]);
  const plain = bin(make(`(import "env" "memory" (memory 1 65536))`));
  const i = shared.indexOf(Buffer.from([6, 109, 101, 109, 111, 114, 121, 2, 3]));
  const patched = Buffer.from(shared);
  patched[i + 8] = 1;
  if (i < 0 || !patched.equals(plain))
    throw new Error(`${name}: clearing the shared bit does not give the plain module`);
}
