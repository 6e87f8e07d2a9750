// Builds the reduction WebAssembly module: writes reduce.wat (the readable source, generated
// from the templates below) and reduce-wasm.ts (the assembled bytes as base64), so that the
// runtime needs no assembler. Run after editing: `node src/interp/kernels/wasm/assemble.mjs`.
// Needs the `wabt` devDependency.

import { writeFileSync } from "node:fs";
import wabtInit from "wabt";

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

function accRow(m) {
  // acc[i] += t(x[i]) for n contiguous float32 x at p and float64 acc at q: the inner loop of a
  // reduction over an outer axis, where whole rows are added into an output row.
  const step = (off) =>
    `(v128.store offset=${off * 2} align=8 (local.get $q) (f64x2.add (v128.load offset=${off * 2} align=8 (local.get $q)) ${m.vec(pair("(local.get $p)", off))}))`;
  return `
  (func $acc${m.id} (export "acc${m.id}") (param $p i32) (param $n i32) (param $q i32)
    (local $end i32) (local $stop i32) (local $t v128) (local $ts f64)
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $stop (i32.add (local.get $p) (i32.shl (i32.and (local.get $n) (i32.const -8)) (i32.const 2))))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $p) (local.get $stop)))
        ${step(0)}
        ${step(8)}
        ${step(16)}
        ${step(24)}
        (local.set $p (i32.add (local.get $p) (i32.const 32)))
        (local.set $q (i32.add (local.get $q) (i32.const 64)))
        (br $l)))
    (block $done2
      (loop $t
        (br_if $done2 (i32.ge_u (local.get $p) (local.get $end)))
        (f64.store (local.get $q) (f64.add (f64.load (local.get $q)) ${m.scalar("(f64.promote_f32 (f32.load (local.get $p)))")}))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (local.set $q (i32.add (local.get $q) (i32.const 8)))
        (br $t))))`;
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
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $stop (i32.add (local.get $p) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2))))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $p) (local.get $stop)))
        ${col(0)}
        ${col(8)}
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (local.set $q (i32.add (local.get $q) (i32.const 32)))
        (br $l)))
    (block $done2
      (loop $t
        (br_if $done2 (i32.ge_u (local.get $p) (local.get $end)))
        (f64.store (local.get $q) (f64.add (f64.load (local.get $q)) (f64.add (f64.add ${one(0)} ${one(1)}) (f64.add ${one(2)} ${one(3)}))))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (local.set $q (i32.add (local.get $q) (i32.const 8)))
        (br $t))))`;
}

const wat = `;; GENERATED by assemble.mjs: float32 sum-like reductions with float64 accumulation.
(module
  (memory (export "memory") 1)
${MODES.map((m) => sumSeg(m) + sumRows(m) + accRow(m) + accRow4(m)).join("\n")}
)
`;

const here = new URL(".", import.meta.url);
const wabt = await wabtInit();
const mod = wabt.parseWat("reduce.wat", wat, { simd: true });
mod.validate();
const { buffer } = mod.toBinary({});
writeFileSync(new URL("reduce.wat", here), wat);
const b64 = Buffer.from(buffer).toString("base64");
const lines = b64.match(/.{1,100}/g) ?? [];
writeFileSync(
  new URL("reduce-wasm.ts", here),
  `// GENERATED by assemble.mjs from the templates there (see reduce.wat); do not edit.\n` +
    `export const REDUCE_WASM_BASE64 =\n${lines.map((l) => `  "${l}"`).join(" +\n")};\n`,
);
console.log(`reduce.wasm: ${buffer.length} bytes`);
