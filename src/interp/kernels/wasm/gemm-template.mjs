// The text of gemm.wat: a float64-accumulating matrix product over packed operands (see
// README.md, "Matrix products"). Imported by assemble.mjs.

import { acc, initAccumulators, panelLoops, range } from "./panels.mjs";

export const MR = 6; // rows of a tile (of A)
export const NR = 4; // columns of a tile (of B): NR / 2 f64x2 vectors

const V = NR / 2;

// One tile: C[ib*MR + r][jb*NR + c] = bias[ib*MR + r] + Σ_t A[r][t]·B[t][c], t in order, each
// product rounded to float64 (exact for float32 factors) and added in float64; rounded to float32
// once when stored. A's block is K × MR float64 (row r of step t at (t*MR + r)*8); B is float32,
// its NR values of step t of panel jb at b + jb·pstride + t·ldb (a packed panel: ldb 16, pstride
// 16K; B as it is, row-major: ldb 4N, pstride 16 — columns past N are read but never stored, so
// the memory must hold 16 bytes past B's last row). Only rows and columns inside M × N are stored.
function tile() {
  const init = initAccumulators(
    MR,
    V,
    (r) => `(f64x2.splat (f64.load offset=${8 * r} (local.get $bi)))`,
  );
  // B's NR float32 values of this step, widened to NR / 2 f64x2 (exact).
  const loads = range(V)
    .map(
      (v) =>
        `(local.set $b${v} (f64x2.promote_low_f32x4 (v128.load64_zero offset=${8 * v} align=4 (local.get $pb))))`,
    )
    .join("\n          ");
  const macs = range(MR)
    .map(
      (r) =>
        `(local.set $av (v128.load64_splat offset=${8 * r} (local.get $pa)))\n          ` +
        range(V)
          .map(
            (v) =>
              `(local.set ${acc(r, v)} (f64x2.add (local.get ${acc(r, v)}) (f64x2.mul (local.get $av) (local.get $b${v}))))`,
          )
          .join(" "),
    )
    .join("\n          ");
  // Row r's NR values as float32: two demoted pairs joined into one v128.
  const packed = (r) => {
    let e = `(f32x4.demote_f64x2_zero (local.get ${acc(r, 0)}))`;
    for (let v = 1; v < V; v++)
      e = `(i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 ${e} (f32x4.demote_f64x2_zero (local.get ${acc(r, v)})))`;
    return e;
  };
  const lanes = (r) =>
    range(NR)
      .map(
        (c) =>
          `(if (i32.gt_u (local.get $cols) (i32.const ${c})) (then (f32.store offset=${4 * c} (local.get $po) (f32.demote_f64 (f64x2.extract_lane ${c % 2} (local.get ${acc(r, c >> 1)}))))))`,
      )
      .join("\n            ");
  // Row r's NR values as float64 (out64): whole pairs, then a last single value.
  const lanes64 = (r) =>
    range(V)
      .map(
        (v) =>
          `(if (i32.ge_u (local.get $cols) (i32.const ${2 * v + 2})) (then (v128.store offset=${16 * v} (local.get $po) (local.get ${acc(r, v)}))) (else (if (i32.eq (local.get $cols) (i32.const ${2 * v + 1})) (then (f64.store offset=${16 * v} (local.get $po) (f64x2.extract_lane 0 (local.get ${acc(r, v)})))))))`,
      )
      .join("\n            ");
  const stores64 = range(MR)
    .map(
      (r) => `(if (i32.gt_u (local.get $rows) (i32.const ${r})) (then
          ${lanes64(r)}
          (local.set $po (i32.add (local.get $po) (local.get $ldc)))))`,
    )
    .join("\n        ");
  const stores = range(MR)
    .map(
      (r) => `(if (i32.gt_u (local.get $rows) (i32.const ${r})) (then
          (if (i32.eq (local.get $cols) (i32.const ${NR}))
            (then (v128.store (local.get $po) ${packed(r)}))
            (else ${lanes(r)}))
          (local.set $po (i32.add (local.get $po) (local.get $ldc)))))`,
    )
    .join("\n        ");
  return { init, loads, macs, stores, stores64 };
}

// The float32-accumulating tile (gemm32, for float16 and bfloat16 operands, whose products are
// exact in float32 or rounded there as float32 multiplication rounds them): MR rows × 2·NR
// columns, two of B's column panels side by side, in 2·MR f32x4 accumulators. A's block is K × MR
// float32 (pack_a32), splatted a row at a time; each step adds A[r][t]·B[t][c], rounded to
// float32, to the float32 sum, t in order from the bias (MR float32 a block). The second panel is
// read at pb + $p2 ($p2 = 0 when the tile has one panel: its lanes are computed, never stored).
function tile32() {
  const init = initAccumulators(
    MR,
    2,
    (r) => `(f32x4.splat (f32.load offset=${4 * r} (local.get $bi)))`,
  );
  // Step k (0 or 1) of the two at once: B's panels are packed (16 bytes a step).
  const loadsAt = (k) =>
    `(local.set $b0 (v128.load offset=${16 * k} align=4 (local.get $pb)))\n          ` +
    `(local.set $b1 (v128.load offset=${16 * k} align=4 (i32.add (local.get $pb) (local.get $p2))))`;
  const macsAt = (k) =>
    range(MR)
      .map(
        (r) =>
          `(local.set $av (v128.load32_splat offset=${4 * (r + MR * k)} (local.get $pa)))\n          ` +
          range(2)
            .map(
              (v) =>
                `(local.set ${acc(r, v)} (f32x4.add (local.get ${acc(r, v)}) (f32x4.mul (local.get $av) (local.get $b${v}))))`,
            )
            .join(" "),
      )
      .join("\n          ");
  const [loads, macs] = [loadsAt(0), macsAt(0)];
  const body2 = [loadsAt(0), macsAt(0), loadsAt(1), macsAt(1)].join("\n          ");
  const lanes = (r) =>
    range(2 * NR)
      .map(
        (c) =>
          `(if (i32.gt_u (local.get $cols) (i32.const ${c})) (then (f32.store offset=${4 * c} (local.get $po) (f32x4.extract_lane ${c % NR} (local.get ${acc(r, c >> 2)})))))`,
      )
      .join("\n            ");
  const stores = range(MR)
    .map(
      (r) => `(if (i32.gt_u (local.get $rows) (i32.const ${r})) (then
          (if (i32.eq (local.get $cols) (i32.const ${2 * NR}))
            (then (v128.store align=4 (local.get $po) (local.get ${acc(r, 0)})) (v128.store offset=16 align=4 (local.get $po) (local.get ${acc(r, 1)})))
            (else ${lanes(r)}))
          (local.set $po (i32.add (local.get $po) (local.get $ldc)))))`,
    )
    .join("\n        ");
  return { init, loads, macs, body2, stores };
}

// gemm(a, b, c, bias, M, N, K, jb0, jb1, out64, ldb, pstride): the tiles of column panels jb0 ≤ jb < jb1, all
// row blocks. c: the output, row-major with N columns, float32 (rounded once) or, with out64,
// float64 (unrounded); bias: M (rounded up to MR) float64.
// Packing: pack_a(src, rs, cs, M, K, dst) writes A (element (i, t) at src + 4(i·rs + t·cs)) as
// row blocks of MR float64 (rows past M are 0); pack_b(src, rs, cs, K, N, dst) B (element (t, j)
// at src + 4(t·rs + j·cs)) as column panels of NR float32.
function packFn(name, R, wide) {
  // outer: the blocked index (i or j, bound $n1); inner: t (bound $n2); lane r of a step reads
  // src + 4((o0 + r)·$s1 + t·$s2).
  return `
  (func (export "${name}") (param $src i32) (param $s1 i32) (param $s2 i32) (param $n1 i32) (param $n2 i32) (param $dst i32)
    (local $o0 i32) (local $t i32) (local $r i32) (local $p i32)
    (local.set $s1 (i32.shl (local.get $s1) (i32.const 2)))
    (local.set $s2 (i32.shl (local.get $s2) (i32.const 2)))
    (block $od (loop $ol
      (br_if $od (i32.ge_u (local.get $o0) (local.get $n1)))
      (local.set $t (i32.const 0))
      (block $td (loop $tl
        (br_if $td (i32.ge_u (local.get $t) (local.get $n2)))
        (local.set $p (i32.add (local.get $src) (i32.add (i32.mul (local.get $o0) (local.get $s1)) (i32.mul (local.get $t) (local.get $s2)))))
        (local.set $r (i32.const 0))
        (block $rd (loop $rl
          (br_if $rd (i32.ge_u (local.get $r) (i32.const ${R})))
          (${wide ? "f64" : "f32"}.store (local.get $dst)
            (if (result ${wide ? "f64" : "f32"}) (i32.lt_u (i32.add (local.get $o0) (local.get $r)) (local.get $n1))
              (then ${wide ? "(f64.promote_f32 (f32.load (local.get $p)))" : "(f32.load (local.get $p))"})
              (else (${wide ? "f64" : "f32"}.const 0))))
          (local.set $p (i32.add (local.get $p) (local.get $s1)))
          (local.set $dst (i32.add (local.get $dst) (i32.const ${wide ? 8 : 4})))
          (local.set $r (i32.add (local.get $r) (i32.const 1)))
          (br $rl)))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $tl)))
      (local.set $o0 (i32.add (local.get $o0) (i32.const ${R})))
      (br $ol))))`;
}

// dw2d(plane, PW, wq, offs, nK, OH, OW, sh, sw, bias, out): one channel of a depthwise 2-D
// convolution over a zero-padded float64 plane PW wide; output (oh, ow) = bias + Σ_q
// plane[oh·sh·PW + ow·sw + offs[q]] · wq[q] in order of q, two outputs (f64x2 lanes) at a time,
// rounded once to float32 into out.
const dw2d = `
  (func (export "dw2d") (param $plane i32) (param $PW i32) (param $wq i32) (param $offs i32) (param $nK i32)
    (param $OH i32) (param $OW i32) (param $sh i32) (param $sw i32) (param $bias f64) (param $out i32)
    (local $oh i32) (local $ow i32) (local $b0 i32) (local $b1 i32) (local $q i32) (local $o i32) (local $acc v128) (local $s f64)
    (local.set $sw (i32.shl (local.get $sw) (i32.const 3)))
    (block $hd (loop $hl
      (br_if $hd (i32.ge_u (local.get $oh) (local.get $OH)))
      (local.set $b0 (i32.add (local.get $plane) (i32.shl (i32.mul (i32.mul (local.get $oh) (local.get $sh)) (local.get $PW)) (i32.const 3))))
      (local.set $ow (i32.const 0))
      (block $wd (loop $wl
        (br_if $wd (i32.gt_u (i32.add (local.get $ow) (i32.const 2)) (local.get $OW)))
        (local.set $b1 (i32.add (local.get $b0) (local.get $sw)))
        (local.set $acc (f64x2.splat (local.get $bias)))
        (local.set $q (i32.const 0))
        (block $qd (loop $ql
          (br_if $qd (i32.ge_u (local.get $q) (local.get $nK)))
          (local.set $o (i32.shl (i32.load (i32.add (local.get $offs) (i32.shl (local.get $q) (i32.const 2)))) (i32.const 3)))
          (local.set $acc (f64x2.add (local.get $acc) (f64x2.mul
            (v128.load64_lane 1 (i32.add (local.get $b1) (local.get $o)) (v128.load64_zero (i32.add (local.get $b0) (local.get $o))))
            (v128.load64_splat (i32.add (local.get $wq) (i32.shl (local.get $q) (i32.const 3)))))))
          (local.set $q (i32.add (local.get $q) (i32.const 1)))
          (br $ql)))
        (f32.store (local.get $out) (f32.demote_f64 (f64x2.extract_lane 0 (local.get $acc))))
        (f32.store offset=4 (local.get $out) (f32.demote_f64 (f64x2.extract_lane 1 (local.get $acc))))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (local.set $b0 (i32.add (local.get $b1) (local.get $sw)))
        (local.set $ow (i32.add (local.get $ow) (i32.const 2)))
        (br $wl)))
      (if (i32.lt_u (local.get $ow) (local.get $OW)) (then
        (local.set $s (local.get $bias))
        (local.set $q (i32.const 0))
        (block $sd (loop $sl
          (br_if $sd (i32.ge_u (local.get $q) (local.get $nK)))
          (local.set $o (i32.shl (i32.load (i32.add (local.get $offs) (i32.shl (local.get $q) (i32.const 2)))) (i32.const 3)))
          (local.set $s (f64.add (local.get $s) (f64.mul (f64.load (i32.add (local.get $b0) (local.get $o))) (f64.load (i32.add (local.get $wq) (i32.shl (local.get $q) (i32.const 3)))))))
          (local.set $q (i32.add (local.get $q) (i32.const 1)))
          (br $sl)))
        (f32.store (local.get $out) (f32.demote_f64 (local.get $s)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))))
      (local.set $oh (i32.add (local.get $oh) (i32.const 1)))
      (br $hl))))`;

// ew(op, a, as, b, bs, o, rows, P): float32 arithmetic (op 0: +, 1: −, 2: ×, 3: ÷), rows of P
// values: o[r][j] = a[r][j] op b[r][j], a's rows `as` bytes apart (0: one row for all), b's `bs`,
// o's P·4; four values at a time (f32x4, each the correctly rounded float32 result, as a float64
// operation rounded to float32 is), then one at a time.
const ewOps = ["add", "sub", "mul", "div"];
const ewPick = (kind) =>
  ewOps.reduceRight(
    (rest, op, i) =>
      rest === null
        ? `(${kind}.${op} (local.get $x) (local.get $y))`
        : `(if (result ${kind === "f32" ? "f32" : "v128"}) (i32.eq (local.get $op) (i32.const ${i})) (then (${kind}.${op} (local.get $x) (local.get $y))) (else ${rest}))`,
    null,
  );
const ew = `
  (func (export "ew") (param $op i32) (param $a i32) (param $as i32) (param $b i32) (param $bs i32)
    (param $o i32) (param $rows i32) (param $P i32)
    (local $r i32) (local $j i32) (local $pa i32) (local $pb i32) (local $vend i32) (local $x v128) (local $y v128)
    (local $xs f32) (local $ys f32)
    (local.set $vend (i32.and (local.get $P) (i32.const -4)))
    (block $rd (loop $rl
      (br_if $rd (i32.ge_u (local.get $r) (local.get $rows)))
      (local.set $pa (local.get $a))
      (local.set $pb (local.get $b))
      (local.set $j (i32.const 0))
      (block $vd (loop $vl
        (br_if $vd (i32.ge_u (local.get $j) (local.get $vend)))
        (local.set $x (v128.load align=4 (local.get $pa)))
        (local.set $y (v128.load align=4 (local.get $pb)))
        (v128.store align=4 (local.get $o) ${ewPick("f32x4")})
        (local.set $pa (i32.add (local.get $pa) (i32.const 16)))
        (local.set $pb (i32.add (local.get $pb) (i32.const 16)))
        (local.set $o (i32.add (local.get $o) (i32.const 16)))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $vl)))
      (block $sd (loop $sl
        (br_if $sd (i32.ge_u (local.get $j) (local.get $P)))
        (local.set $xs (f32.load (local.get $pa)))
        (local.set $ys (f32.load (local.get $pb)))
        (f32.store (local.get $o) ${ewPick("f32").replaceAll("$x", "$xs").replaceAll("$y", "$ys")})
        (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
        (local.set $pb (i32.add (local.get $pb) (i32.const 4)))
        (local.set $o (i32.add (local.get $o) (i32.const 4)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $sl)))
      (local.set $a (i32.add (local.get $a) (local.get $as)))
      (local.set $b (i32.add (local.get $b) (local.get $bs)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rl))))`;

// erf32(src, dst, n, table, fix): erf of n float32 values by erf.ts's table (Taylor coefficients
// of degree 8 about k/64, 9 float64 a point), in float64, the same operations in the same order as
// erfFloat32 there; a result is stored only where both ends of ±2^-40 around it round to the same
// float32 (±0 gives +0, as the reference's series does). The indices of the others (|x| ≥ 6, NaN, a close call) are
// written at fix, and their count returned: the caller computes those by the reference series.
const erf32 = `
  (func (export "erf32") (param $src i32) (param $dst i32) (param $n i32) (param $table i32) (param $fix i32) (result i32)
    (local $i i32) (local $x f32) (local $ax f64) (local $h f64) (local $p f64) (local $b i32) (local $k i32) (local $lo f32) (local $cnt i32)
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $x (f32.load (local.get $src)))
      (local.set $ax (f64.promote_f32 (f32.abs (local.get $x))))
      (if (f64.eq (local.get $ax) (f64.const 0))
        (then (f32.store (local.get $dst) (f32.const 0)))
        (else (if (f64.lt (local.get $ax) (f64.const 6))
          (then
            (local.set $k (i32.trunc_f64_u (f64.add (f64.mul (local.get $ax) (f64.const 64)) (f64.const 0.5))))
            (local.set $h (f64.sub (local.get $ax) (f64.mul (f64.convert_i32_u (local.get $k)) (f64.const 0.015625))))
            (local.set $b (i32.add (local.get $table) (i32.mul (local.get $k) (i32.const 72))))
            (local.set $p (f64.load offset=64 (local.get $b)))
            ${range(8)
              .map(
                (j) =>
                  `(local.set $p (f64.add (f64.mul (local.get $p) (local.get $h)) (f64.load offset=${8 * (7 - j)} (local.get $b))))`,
              )
              .join("\n            ")}
            (local.set $lo (f32.demote_f64 (f64.sub (local.get $p) (f64.mul (local.get $p) (f64.const 0x1p-40)))))
            (if (f32.eq (local.get $lo) (f32.demote_f64 (f64.add (local.get $p) (f64.mul (local.get $p) (f64.const 0x1p-40)))))
              (then (f32.store (local.get $dst) (select (f32.neg (local.get $lo)) (local.get $lo) (f32.lt (local.get $x) (f32.const 0)))))
              (else
                (i32.store (i32.add (local.get $fix) (i32.shl (local.get $cnt) (i32.const 2))) (local.get $i))
                (local.set $cnt (i32.add (local.get $cnt) (i32.const 1))))))
          (else
            (i32.store (i32.add (local.get $fix) (i32.shl (local.get $cnt) (i32.const 2))) (local.get $i))
            (local.set $cnt (i32.add (local.get $cnt) (i32.const 1)))))))
      (local.set $src (i32.add (local.get $src) (i32.const 4)))
      (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.get $cnt))`;

// hsig(src, dst, n, alpha, beta, swish): HardSigmoid of n float32 values in float32 steps, as
// onnxruntime computes it: v = fl(fl(alpha·x) + beta), 0 where v < 0 and 1 where v > 1 (NaN and
// −0 pass unchanged, as kernels/nn.ts's loop leaves them); swish 1: times x (HardSwish). Four at a
// time (n rounded up to 4).
const hsig = `
  (func (export "hsig") (param $src i32) (param $dst i32) (param $n i32) (param $a f32) (param $b f32) (param $sw i32)
    (local $end i32) (local $va v128) (local $vb v128) (local $x v128) (local $v v128)
    (local.set $va (f32x4.splat (local.get $a)))
    (local.set $vb (f32x4.splat (local.get $b)))
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 2))))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $src) (local.get $end)))
      (local.set $x (v128.load align=4 (local.get $src)))
      (local.set $v (f32x4.add (f32x4.mul (local.get $va) (local.get $x)) (local.get $vb)))
      (local.set $v (v128.andnot (local.get $v) (f32x4.lt (local.get $v) (f32x4.splat (f32.const 0)))))
      (local.set $v (v128.bitselect (f32x4.splat (f32.const 1)) (local.get $v) (f32x4.gt (local.get $v) (f32x4.splat (f32.const 1)))))
      (if (local.get $sw) (then (local.set $v (f32x4.mul (local.get $x) (local.get $v)))))
      (v128.store align=4 (local.get $dst) (local.get $v))
      (local.set $src (i32.add (local.get $src) (i32.const 16)))
      (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
      (br $l))))`;

// h2f(src, dst, n, bf): n float16 (bf 0) or bfloat16 (bf 1) bit patterns (u16 at src) widened to
// float32 at dst, four at a time (n is rounded up to 4: the caller leaves room). Exact; every
// float16 NaN becomes 0x7fc00000, the value float16Table (../../../ir/dtype.ts) holds for it, and a
// bfloat16 keeps its bits.
const h2f = `
  (func (export "h2f") (param $src i32) (param $dst i32) (param $n i32) (param $bf i32)
    (local $end i32) (local $v v128) (local $em v128) (local $r v128)
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 1))))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $src) (local.get $end)))
      (local.set $v (v128.load16x4_u align=2 (local.get $src)))
      (if (local.get $bf)
        (then (local.set $r (i32x4.shl (local.get $v) (i32.const 16))))
        (else
          (local.set $em (v128.and (local.get $v) (v128.const i32x4 0x7fff 0x7fff 0x7fff 0x7fff)))
          (local.set $r (v128.bitselect
            (f32x4.mul (f32x4.convert_i32x4_s (local.get $em)) (f32x4.splat (f32.const 0x1p-24)))
            (i32x4.add (i32x4.shl (local.get $em) (i32.const 13)) (i32x4.splat (i32.const 0x38000000)))
            (i32x4.lt_s (local.get $em) (i32x4.splat (i32.const 0x400)))))
          (local.set $r (v128.bitselect (i32x4.splat (i32.const 0x7f800000)) (local.get $r)
            (i32x4.eq (local.get $em) (i32x4.splat (i32.const 0x7c00)))))
          (local.set $r (v128.or (local.get $r) (i32x4.shl (v128.and (local.get $v) (i32x4.splat (i32.const 0x8000))) (i32.const 16))))
          (local.set $r (v128.bitselect (i32x4.splat (i32.const 0x7fc00000)) (local.get $r)
            (i32x4.gt_s (local.get $em) (i32x4.splat (i32.const 0x7c00)))))))
      (v128.store align=4 (local.get $dst) (local.get $r))
      (local.set $src (i32.add (local.get $src) (i32.const 8)))
      (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
      (br $l))))`;

// f2h(src, dst, n, mode): n float64 (float32 with mode & 2) values at src rounded to float16
// (mode & 1 = 0) or bfloat16 (mode & 1) bits at dst (u16), as numberToFloat16Bits /
// numberToBfloat16Bits (../../../ir/dtype.ts) round them (float16 to nearest even from the
// value, bfloat16 from the float32 nearest to it); every NaN becomes the quiet NaN 0x7e00 /
// 0x7fc0, as fromProductSums (../../tensor.ts) writes a product's NaN, unless mode & 4 (a NaN then
// keeps its sign, and a bfloat16 its top payload bits, quieted, as those functions do).
const f2h = `
  (func (export "f2h") (param $src i32) (param $dst i32) (param $n i32) (param $mode i32)
    (local $end i32) (local $x f64) (local $hi i32) (local $lo i32) (local $s i32) (local $e i32) (local $m i32) (local $u i32) (local $r i32)
    (local $bf i32) (local $w i32) (local $vend i32) (local $v v128) (local $va v128) (local $vs v128) (local $vr v128)
    (local $vn v128) (local $vns v128)
    (local.set $bf (i32.and (local.get $mode) (i32.const 1)))
    (local.set $w (select (i32.const 4) (i32.const 8) (i32.and (local.get $mode) (i32.const 2))))
    (local.set $end (i32.add (local.get $src) (i32.mul (local.get $n) (local.get $w))))
    ;; float32 to float16 (mode 2 or 6), four at a time: nearest even by integer arithmetic on
    ;; the bits (normal results; a carry into the exponent, and past it to 0x7c00, is the right
    ;; rounding), subnormal ones by a float32 addition of 0.5 (its rounding is the result's), NaN
    ;; as 0x7e00 (with its sign where mode & 4); then the scalar loop for the last n mod 4.
    (if (i32.eq (i32.and (local.get $mode) (i32.const 3)) (i32.const 2)) (then
      (local.set $vns (i32x4.splat (select (i32.const 0x8000) (i32.const 0) (i32.and (local.get $mode) (i32.const 4)))))
      (local.set $vend (i32.add (local.get $src) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2))))
      (block $vd (loop $vl
        (br_if $vd (i32.ge_u (local.get $src) (local.get $vend)))
        (local.set $v (v128.load align=4 (local.get $src)))
        (local.set $va (v128.and (local.get $v) (i32x4.splat (i32.const 0x7fffffff))))
        (local.set $vs (v128.and (i32x4.shr_u (local.get $v) (i32.const 16)) (i32x4.splat (i32.const 0x8000))))
        (local.set $vr (i32x4.min_u (i32x4.splat (i32.const 0x7c00)) (i32x4.shr_u
          (i32x4.add (i32x4.sub (local.get $va) (i32x4.splat (i32.const 0x37fff001)))
            (v128.and (i32x4.shr_u (local.get $va) (i32.const 13)) (i32x4.splat (i32.const 1))))
          (i32.const 13))))
        (local.set $vr (v128.bitselect (local.get $vr)
          (i32x4.sub (f32x4.add (local.get $va) (f32x4.splat (f32.const 0.5))) (i32x4.splat (i32.const 0x3f000000)))
          (i32x4.ge_u (local.get $va) (i32x4.splat (i32.const 0x38800000)))))
        (local.set $vn (i32x4.gt_u (local.get $va) (i32x4.splat (i32.const 0x7f800000))))
        (local.set $vr (v128.or (v128.bitselect (i32x4.splat (i32.const 0x7e00)) (local.get $vr) (local.get $vn))
          (v128.and (local.get $vs) (v128.or (v128.not (local.get $vn)) (local.get $vns)))))
        (v128.store64_lane align=2 0 (local.get $dst) (i16x8.narrow_i32x4_u (local.get $vr) (local.get $vr)))
        (local.set $src (i32.add (local.get $src) (i32.const 16)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 8)))
        (br $vl)))))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $src) (local.get $end)))
      (local.set $x (if (result f64) (i32.and (local.get $mode) (i32.const 2))
        (then (f64.promote_f32 (f32.load (local.get $src))))
        (else (f64.load (local.get $src)))))
      (if (local.get $bf)
        (then
          (local.set $u (i32.reinterpret_f32 (f32.demote_f64 (local.get $x))))
          (local.set $r (if (result i32) (i32.gt_u (i32.and (local.get $u) (i32.const 0x7fffffff)) (i32.const 0x7f800000))
            (then (i32.or (i32.shr_u (local.get $u) (i32.const 16)) (i32.const 0x40)))
            (else (i32.shr_u (i32.add (local.get $u) (i32.add (i32.const 0x7fff) (i32.and (i32.shr_u (local.get $u) (i32.const 16)) (i32.const 1)))) (i32.const 16))))))
        (else
          (local.set $hi (i32.wrap_i64 (i64.shr_u (i64.reinterpret_f64 (local.get $x)) (i64.const 32))))
          (local.set $lo (i32.wrap_i64 (i64.reinterpret_f64 (local.get $x))))
          (local.set $s (i32.and (i32.shr_u (local.get $hi) (i32.const 16)) (i32.const 0x8000)))
          (local.set $e (i32.sub (i32.and (i32.shr_u (local.get $hi) (i32.const 20)) (i32.const 0x7ff)) (i32.const 1023)))
          (local.set $r (if (result i32) (i32.eq (local.get $e) (i32.const 1024))
            (then (select (i32.const 0x7e00) (i32.const 0x7c00) (i32.or (i32.and (local.get $hi) (i32.const 0xfffff)) (local.get $lo))))
            (else (if (result i32) (i32.gt_s (local.get $e) (i32.const 15))
              (then (i32.const 0x7c00))
              (else (if (result i32) (i32.ge_s (local.get $e) (i32.const -14))
                (then
                  (local.set $m (i32.and (local.get $hi) (i32.const 0x3ff)))
                  (i32.add (i32.or (i32.shl (i32.add (local.get $e) (i32.const 15)) (i32.const 10)) (i32.and (i32.shr_u (local.get $hi) (i32.const 10)) (i32.const 0x3ff)))
                    (i32.or (i32.gt_u (local.get $m) (i32.const 0x200))
                      (i32.and (i32.eq (local.get $m) (i32.const 0x200))
                        (i32.or (i32.ne (local.get $lo) (i32.const 0)) (i32.and (i32.shr_u (local.get $hi) (i32.const 10)) (i32.const 1)))))))
                (else (if (result i32) (i32.lt_s (local.get $e) (i32.const -26))
                  (then (i32.const 0))
                  (else (i32.trunc_f64_u (f64.nearest (f64.mul (f64.abs (local.get $x)) (f64.const 0x1p24)))))))))))))
          (local.set $r (i32.or (local.get $r) (local.get $s)))))
      (if (i32.and (f64.ne (local.get $x) (local.get $x)) (i32.eqz (i32.and (local.get $mode) (i32.const 4))))
        (then (local.set $r (select (i32.const 0x7fc0) (i32.const 0x7e00) (local.get $bf)))))
      (i32.store16 (local.get $dst) (local.get $r))
      (local.set $src (i32.add (local.get $src) (local.get $w)))
      (local.set $dst (i32.add (local.get $dst) (i32.const 2)))
      (br $l))))`;

// relu(src, dst, n): float32 Relu, x < 0 ? 0 : x (NaN and −0 pass unchanged), four at a time
// (n rounded up to 4).
const relu = `
  (func (export "relu") (param $src i32) (param $dst i32) (param $n i32)
    (local $end i32) (local $v v128)
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 2))))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $src) (local.get $end)))
      (local.set $v (v128.load align=4 (local.get $src)))
      (v128.store align=4 (local.get $dst) (v128.andnot (local.get $v) (f32x4.lt (local.get $v) (f32x4.splat (f32.const 0)))))
      (local.set $src (i32.add (local.get $src) (i32.const 16)))
      (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
      (br $l))))`;

// Resize's separable passes, as resample.ts's resampleAxis computes them in float64.
// rszh(src, W, OH, taps, idx, wts, dst): an axis with W values after it (rows of W): output row
// x = 0 + Σ_k w_k · row(idx_k) over the taps with w_k ≠ 0, in order, two values at a time; src
// float32 rows (widened, exact), dst float64. rszw(src, rows, W, OW, taps, idx, wts, dst): the
// last axis of rows of W float64 values: output x = 0 + Σ_k w_k · v[idx_k] (w_k ≠ 0), rounded
// to float32 once. idx: i32 per (output, tap); wts: f64.
const rsz = `
  (func (export "rszh") (param $src i32) (param $W i32) (param $OH i32) (param $taps i32) (param $idx i32) (param $wts i32) (param $dst i32)
    (local $x i32) (local $j i32) (local $k i32) (local $w f64) (local $acc v128) (local $s f64) (local $row i32) (local $kk i32)
    (block $xd (loop $xl
      (br_if $xd (i32.ge_u (local.get $x) (local.get $OH)))
      (local.set $j (i32.const 0))
      (block $jd (loop $jl
        (br_if $jd (i32.ge_u (local.get $j) (local.get $W)))
        (local.set $acc (v128.const i64x2 0 0))
        (local.set $s (f64.const 0))
        (local.set $k (i32.const 0))
        (block $kd (loop $kl
          (br_if $kd (i32.ge_u (local.get $k) (local.get $taps)))
          (local.set $kk (i32.add (i32.mul (local.get $x) (local.get $taps)) (local.get $k)))
          (local.set $w (f64.load (i32.add (local.get $wts) (i32.shl (local.get $kk) (i32.const 3)))))
          (if (f64.ne (local.get $w) (f64.const 0)) (then
            (local.set $row (i32.add (local.get $src) (i32.shl (i32.add (i32.mul (i32.load (i32.add (local.get $idx) (i32.shl (local.get $kk) (i32.const 2)))) (local.get $W)) (local.get $j)) (i32.const 2))))
            (if (i32.lt_u (i32.add (local.get $j) (i32.const 1)) (local.get $W))
              (then (local.set $acc (f64x2.add (local.get $acc) (f64x2.mul (f64x2.splat (local.get $w))
                (f64x2.promote_low_f32x4 (v128.load64_zero align=4 (local.get $row)))))))
              (else (local.set $s (f64.add (local.get $s) (f64.mul (local.get $w) (f64.promote_f32 (f32.load (local.get $row))))))))))
          (local.set $k (i32.add (local.get $k) (i32.const 1)))
          (br $kl)))
        (if (i32.lt_u (i32.add (local.get $j) (i32.const 1)) (local.get $W))
          (then (v128.store (local.get $dst) (local.get $acc)) (local.set $dst (i32.add (local.get $dst) (i32.const 16))))
          (else (f64.store (local.get $dst) (local.get $s)) (local.set $dst (i32.add (local.get $dst) (i32.const 8)))))
        (local.set $j (i32.add (local.get $j) (i32.const 2)))
        (br $jl)))
      (local.set $x (i32.add (local.get $x) (i32.const 1)))
      (br $xl))))
  (func (export "rszw") (param $src i32) (param $rows i32) (param $W i32) (param $OW i32) (param $taps i32) (param $idx i32) (param $wts i32) (param $dst i32)
    (local $r i32) (local $x i32) (local $k i32) (local $kk i32) (local $w f64) (local $s f64)
    (block $rd (loop $rl
      (br_if $rd (i32.ge_u (local.get $r) (local.get $rows)))
      (local.set $x (i32.const 0))
      (block $xd (loop $xl
        (br_if $xd (i32.ge_u (local.get $x) (local.get $OW)))
        (local.set $s (f64.const 0))
        (local.set $kk (i32.mul (local.get $x) (local.get $taps)))
        (local.set $k (i32.const 0))
        (block $kd (loop $kl
          (br_if $kd (i32.ge_u (local.get $k) (local.get $taps)))
          (local.set $w (f64.load (i32.add (local.get $wts) (i32.shl (local.get $kk) (i32.const 3)))))
          (if (f64.ne (local.get $w) (f64.const 0)) (then
            (local.set $s (f64.add (local.get $s) (f64.mul (local.get $w)
              (f64.load (i32.add (local.get $src) (i32.shl (i32.load (i32.add (local.get $idx) (i32.shl (local.get $kk) (i32.const 2)))) (i32.const 3)))))))))
          (local.set $kk (i32.add (local.get $kk) (i32.const 1)))
          (local.set $k (i32.add (local.get $k) (i32.const 1)))
          (br $kl)))
        (f32.store (local.get $dst) (f32.demote_f64 (local.get $s)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (local.set $x (i32.add (local.get $x) (i32.const 1)))
        (br $xl)))
      (local.set $src (i32.add (local.get $src) (i32.shl (local.get $W) (i32.const 3))))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rl))))`;

// In place, over a tensor's own memory (../ew-wasm.ts): ews(op, p, n, s, left): n float32 at p
// become p op s (left 0) or s op p (left 1), op as ew's, four at a time (n rounded up to 4: the
// memory holds whole vectors). i2f(p, n): n int32 at p become float32 (rounded to nearest even,
// as a Float32Array stores a number).
const inPlace = `
  (func (export "ews") (param $op i32) (param $p i32) (param $n i32) (param $s f32) (param $left i32)
    (local $end i32) (local $x v128) (local $y v128) (local $t v128)
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $y (f32x4.splat (local.get $s)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $p) (local.get $end)))
      (local.set $x (v128.load align=4 (local.get $p)))
      (if (local.get $left) (then (local.set $t (local.get $x)) (local.set $x (local.get $y)) (local.set $y (local.get $t))))
      (v128.store align=4 (local.get $p) ${ewPick("f32x4")})
      (if (local.get $left) (then (local.set $y (local.get $x))))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br $l))))
  (func (export "i2f") (param $p i32) (param $n i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $p) (local.get $end)))
      (v128.store align=4 (local.get $p) (f32x4.convert_i32x4_s (v128.load align=4 (local.get $p))))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br $l))))`;

// mp2d(src, H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw, dst): 2-D MaxPool of a float32 plane
// without indices, ../pool2d.ts's rule: the window's taps inside the plane in kernel order, a
// tap taken when greater, when it is the first, or when it is NaN and the value so far is not.
const mp2d = `
  (func (export "mp2d") (param $src i32) (param $H i32) (param $W i32) (param $OH i32) (param $OW i32)
    (param $KH i32) (param $KW i32) (param $sh i32) (param $sw i32) (param $dh i32) (param $dw i32)
    (param $ph i32) (param $pw i32) (param $dst i32)
    (local $oh i32) (local $ow i32) (local $kh i32) (local $kw i32) (local $ih i32) (local $iw i32)
    (local $acc f32) (local $v f32) (local $seen i32)
    (block $hd (loop $hl
      (br_if $hd (i32.ge_u (local.get $oh) (local.get $OH)))
      (local.set $ow (i32.const 0))
      (block $wd (loop $wl
        (br_if $wd (i32.ge_u (local.get $ow) (local.get $OW)))
        (local.set $acc (f32.const -inf))
        (local.set $seen (i32.const 0))
        (local.set $kh (i32.const 0))
        (block $khd (loop $khl
          (br_if $khd (i32.ge_u (local.get $kh) (local.get $KH)))
          (local.set $ih (i32.add (i32.sub (i32.mul (local.get $oh) (local.get $sh)) (local.get $ph)) (i32.mul (local.get $kh) (local.get $dh))))
          (if (i32.lt_u (local.get $ih) (local.get $H)) (then
            (local.set $kw (i32.const 0))
            (block $kwd (loop $kwl
              (br_if $kwd (i32.ge_u (local.get $kw) (local.get $KW)))
              (local.set $iw (i32.add (i32.sub (i32.mul (local.get $ow) (local.get $sw)) (local.get $pw)) (i32.mul (local.get $kw) (local.get $dw))))
              (if (i32.lt_u (local.get $iw) (local.get $W)) (then
                (local.set $v (f32.load (i32.add (local.get $src) (i32.shl (i32.add (i32.mul (local.get $ih) (local.get $W)) (local.get $iw)) (i32.const 2)))))
                (if (i32.or (i32.or (f32.gt (local.get $v) (local.get $acc)) (i32.eqz (local.get $seen)))
                      (i32.and (f32.ne (local.get $v) (local.get $v)) (f32.eq (local.get $acc) (local.get $acc))))
                  (then (local.set $acc (local.get $v))))
                (local.set $seen (i32.const 1))))
              (local.set $kw (i32.add (local.get $kw) (i32.const 1)))
              (br $kwl)))))
          (local.set $kh (i32.add (local.get $kh) (i32.const 1)))
          (br $khl)))
        ;; (through float64 and back, as the JavaScript loop's value goes: a signalling NaN quieted)
        (f32.store (local.get $dst) (f32.demote_f64 (f64.promote_f32 (local.get $acc))))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (local.set $ow (i32.add (local.get $ow) (i32.const 1)))
        (br $wl)))
      (local.set $oh (i32.add (local.get $oh) (i32.const 1)))
      (br $hl))))`;

/** The elementwise module (ew, erf32, hsig, h2f, f2h, relu, rszh, rszw, ews, i2f, mp2d) over a memory. */
export function ewWat(memory) {
  return `;; GENERATED by assemble.mjs (gemm-template.mjs): float32 elementwise arithmetic and Erf.
(module
  ${memory}
${ew}
${erf32}
${hsig}
${h2f}
${f2h}
${relu}
${rsz}
${inPlace}
${mp2d})
`;
}

export function gemmWat(memory) {
  const t = tile();
  const accLocals = range(MR)
    .flatMap((r) => range(V).map((v) => `(local $c${r}_${v} v128)`))
    .join(" ");
  const bLocals = range(V)
    .map((v) => `(local $b${v} v128)`)
    .join(" ");
  return `;; GENERATED by assemble.mjs (gemm-template.mjs): float64-accumulating matrix product, ${MR}x${NR} tiles.
(module
  ${memory}
  (func (export "gemm") (param $a i32) (param $b i32) (param $c i32) (param $bias i32)
    (param $M i32) (param $N i32) (param $K i32) (param $jb0 i32) (param $jb1 i32) (param $out64 i32)
    (param $ldb i32) (param $pstride i32)
    (local $jb i32) (local $ib i32) (local $mb i32) (local $pa i32) (local $pb i32) (local $end i32)
    (local $bi i32) (local $po i32) (local $rows i32) (local $cols i32) (local $ldc i32)
    (local $av v128) ${bLocals} ${accLocals}
    (local.set $ldc (i32.shl (local.get $N) (i32.add (i32.const 2) (local.get $out64))))
    ${panelLoops({
      MR,
      NR,
      K: "$K",
      aStep: 8 * MR,
      tile: t,
      po: `(i32.add (local.get $c) (i32.shl (i32.add (i32.mul (i32.mul (local.get $ib) (i32.const ${MR})) (local.get $N)) (i32.mul (local.get $jb) (i32.const ${NR}))) (i32.add (i32.const 2) (local.get $out64))))`,
      stores: `(if (local.get $out64) (then
        ${t.stores64})
        (else
        ${t.stores}))`,
    })}
${packFn("pack_a", MR, true)}
${packFn("pack_b", NR, false)}
${dw2d})
`;
}

// hgemm: the float32-accumulating product of float16 and bfloat16 operands (tile32), and pack_a32
// (A in row blocks of MR float32), over the same imported memory: a module of its own, as gemmmem
// would pass 4 KiB with it.
export function hgemmWat(memory) {
  const t32 = tile32();
  const acc32Locals = range(MR)
    .flatMap((r) => range(2).map((v) => `(local $c${r}_${v} v128)`))
    .join(" ");
  return `;; GENERATED by assemble.mjs (gemm-template.mjs): float32-accumulating matrix product, ${MR}x${2 * NR} tiles.
(module
  ${memory}
  (func (export "gemm32") (param $a i32) (param $b i32) (param $c i32) (param $bias i32)
    (param $M i32) (param $N i32) (param $K i32) (param $jb0 i32) (param $jb1 i32)
    (param $ldb i32) (param $pstride i32)
    (local $jb i32) (local $ib i32) (local $mb i32) (local $pa i32) (local $pb i32) (local $end i32)
    (local $bi i32) (local $po i32) (local $rows i32) (local $cols i32) (local $ldc i32) (local $p2 i32)
    (local $av v128) (local $b0 v128) (local $b1 v128) ${acc32Locals}
    (local.set $ldc (i32.shl (local.get $N) (i32.const 2)))
    ${panelLoops({
      MR,
      NR: 2 * NR,
      K: "$K",
      aStep: 4 * MR,
      tile: t32,
      po: `(i32.add (local.get $c) (i32.shl (i32.add (i32.mul (i32.mul (local.get $ib) (i32.const ${MR})) (local.get $N)) (i32.mul (local.get $jb) (i32.const ${NR}))) (i32.const 2)))`,
      stores: t32.stores,
      panelStep: 2,
      beforeRows: `(local.set $p2 (select (local.get $pstride) (i32.const 0) (i32.gt_u (local.get $cols) (i32.const ${NR}))))`,
    })}
${packFn("pack_a32", MR, false)})
`;
}
