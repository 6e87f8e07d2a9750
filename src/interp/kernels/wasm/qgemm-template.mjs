// The text of qgemm.wat: the integer matrix product of the quantized ops (ConvInteger,
// MatMulInteger, QLinearConv, QLinearMatMul), i8/u8 operands with their zero points subtracted,
// products accumulated in i32 (see README.md, "Integer products"). Imported by assemble.mjs.

import { acc, initAccumulators, panelLoops, range } from "./panels.mjs";

export const QMR = 4; // rows of a tile (of A)
export const QNR = 8; // columns of a tile (of B): QNR / 4 i32x4 accumulators a row

const V = QNR / 4;

// Operands are 16-bit: an 8-bit value minus its zero point lies in [-255, 255], so each product is
// exact and i32x4.dot_i16x8_s adds two of them exactly. The summed index t goes in pairs (t even,
// t + 1; a missing t + 1 is 0): A's row block holds, per pair, QMR i32 (row r's two values as
// the low and high i16), splatted; B's panel, per pair, QNR columns of two i16 (t, t + 1), so
// that one dot gives four columns' two products added. Sums wrap modulo 2^32 as i32 does, which
// is the exact sum reduced to int32 (the reference kernels' result).
function tile() {
  const init = initAccumulators(
    QMR,
    V,
    (r) => `(i32x4.splat (i32.load offset=${4 * r} (local.get $bi)))`,
  );
  const loads = range(V)
    .map((v) => `(local.set $b${v} (v128.load offset=${16 * v} (local.get $pb)))`)
    .join(" ");
  const macs = range(QMR)
    .map(
      (r) =>
        `(local.set $av (v128.load32_splat offset=${4 * r} (local.get $pa)))\n          ` +
        range(V)
          .map(
            (v) =>
              `(local.set ${acc(r, v)} (i32x4.add (local.get ${acc(r, v)}) (i32x4.dot_i16x8_s (local.get $av) (local.get $b${v}))))`,
          )
          .join(" "),
    )
    .join("\n          ");
  const lanes = (r) =>
    range(QNR)
      .map(
        (c) =>
          `(if (i32.gt_u (local.get $cols) (i32.const ${c})) (then (i32.store offset=${4 * c} (local.get $po) (i32x4.extract_lane ${c % 4} (local.get ${acc(r, c >> 2)})))))`,
      )
      .join("\n            ");
  const stores = range(QMR)
    .map(
      (r) => `(if (i32.gt_u (local.get $rows) (i32.const ${r})) (then
          (if (i32.eq (local.get $cols) (i32.const ${QNR}))
            (then ${range(V)
              .map((v) => `(v128.store offset=${16 * v} (local.get $po) (local.get ${acc(r, v)}))`)
              .join(" ")})
            (else ${lanes(r)}))
          (local.set $po (i32.add (local.get $po) (local.get $ldc)))))`,
    )
    .join("\n        ");
  return { init, loads, macs, stores };
}

// igemm(a, b, c, bias, M, N, KP, jb0, jb1, ldb, pstride, ldc): the tiles of column panels
// jb0 ≤ jb < jb1, all row blocks. A: packed row blocks (KP pairs × QMR i32 each); B: panel jb's
// pair p at b + jb·pstride + p·ldb (QNR·4 bytes); bias: M (rounded up to QMR) i32, the sums'
// start; c: i32 results, rows ldc bytes apart, only rows and columns inside M × N stored.
function igemm() {
  const t = tile();
  const accLocals = range(QMR)
    .flatMap((r) => range(V).map((v) => `(local $c${r}_${v} v128)`))
    .join(" ");
  return `
  (func (export "igemm") (param $a i32) (param $b i32) (param $c i32) (param $bias i32)
    (param $M i32) (param $N i32) (param $KP i32) (param $jb0 i32) (param $jb1 i32)
    (param $ldb i32) (param $pstride i32) (param $ldc i32)
    (local $jb i32) (local $ib i32) (local $mb i32) (local $pa i32) (local $pb i32) (local $end i32)
    (local $bi i32) (local $po i32) (local $rows i32) (local $cols i32)
    (local $av v128) ${range(V)
      .map((v) => `(local $b${v} v128)`)
      .join(" ")} ${accLocals}
    ${panelLoops({
      MR: QMR,
      NR: QNR,
      K: "$KP",
      aStep: 4 * QMR,
      tile: t,
      po: `(i32.add (local.get $c) (i32.add (i32.mul (i32.mul (local.get $ib) (i32.const ${QMR})) (local.get $ldc)) (i32.shl (i32.mul (local.get $jb) (i32.const ${QNR})) (i32.const 2))))`,
      stores: t.stores,
    })}`;
}

// One 8-bit value minus its zero point: (load8 p) − zp, signed or unsigned by $sgn.
const centred = (p, zp) =>
  `(i32.sub (if (result i32) (local.get $sgn) (then (i32.load8_s ${p})) (else (i32.load8_u ${p}))) ${zp})`;

// ipack(src, s1, s2, n1, n2, zp, zs, sgn, dst, R): an operand of n1 × n2 8-bit values (element
// (o, t) at src + o·s1 + t·s2; o the blocked index, t the summed one) in blocks of R along o,
// each pair of t as two i16 per o: A (R = QMR, o = row, t = column) or B (R = QNR, o = column,
// t = row). Element o's zero point is the i32 at zp + o·zs (zs 0: one for all). Entries past n1
// or n2 are 0.
const ipack = `
  (func (export "ipack") (param $src i32) (param $s1 i32) (param $s2 i32) (param $n1 i32) (param $n2 i32)
    (param $zp i32) (param $zs i32) (param $sgn i32) (param $dst i32) (param $R i32)
    (local $o0 i32) (local $t i32) (local $r i32) (local $h i32) (local $o i32) (local $tt i32)
    (block $od (loop $ol
      (br_if $od (i32.ge_u (local.get $o0) (local.get $n1)))
      (local.set $t (i32.const 0))
      (block $td (loop $tl
        (br_if $td (i32.ge_u (local.get $t) (local.get $n2)))
        (local.set $r (i32.const 0))
        (block $rd (loop $rl
          (br_if $rd (i32.ge_u (local.get $r) (local.get $R)))
          (local.set $o (i32.add (local.get $o0) (local.get $r)))
          (local.set $h (i32.const 0))
          (block $hd (loop $hl
            (br_if $hd (i32.ge_u (local.get $h) (i32.const 2)))
            (local.set $tt (i32.add (local.get $t) (local.get $h)))
            (i32.store16 (local.get $dst)
              (if (result i32) (i32.and (i32.lt_u (local.get $o) (local.get $n1)) (i32.lt_u (local.get $tt) (local.get $n2)))
                (then ${centred(
                  "(i32.add (local.get $src) (i32.add (i32.mul (local.get $o) (local.get $s1)) (i32.mul (local.get $tt) (local.get $s2))))",
                  "(i32.load (i32.add (local.get $zp) (i32.mul (local.get $o) (local.get $zs))))",
                )})
                (else (i32.const 0))))
            (local.set $dst (i32.add (local.get $dst) (i32.const 2)))
            (local.set $h (i32.add (local.get $h) (i32.const 1)))
            (br $hl)))
          (local.set $r (i32.add (local.get $r) (i32.const 1)))
          (br $rl)))
        (local.set $t (i32.add (local.get $t) (i32.const 2)))
        (br $tl)))
      (local.set $o0 (i32.add (local.get $o0) (local.get $R)))
      (br $ol))))`;

// centre(src, C, H, W, zp, sgn, dst, Hp, Wp, top, left): C planes of H × W 8-bit values minus zp
// as i16 into planes of Hp × Wp at dst (each value at row top + h, column left + w), whose
// border is 0 (the zero point, centred: a convolution's padding); eight at a time along a row.
const centre = `
  (func (export "centre") (param $src i32) (param $C i32) (param $H i32) (param $W i32) (param $zp i32) (param $sgn i32)
    (param $dst i32) (param $Hp i32) (param $Wp i32) (param $top i32) (param $left i32)
    (local $c i32) (local $h i32) (local $w i32) (local $d i32) (local $z v128) (local $w8 i32)
    (memory.fill (local.get $dst) (i32.const 0) (i32.shl (i32.mul (local.get $C) (i32.mul (local.get $Hp) (local.get $Wp))) (i32.const 1)))
    (local.set $z (i16x8.splat (local.get $zp)))
    (local.set $w8 (i32.and (local.get $W) (i32.const -8)))
    (block $cd (loop $cl
      (br_if $cd (i32.ge_u (local.get $c) (local.get $C)))
      (local.set $h (i32.const 0))
      (block $hd (loop $hl
        (br_if $hd (i32.ge_u (local.get $h) (local.get $H)))
        (local.set $d (i32.add (local.get $dst) (i32.shl (i32.add (i32.mul (i32.add (i32.mul (local.get $c) (local.get $Hp)) (i32.add (local.get $top) (local.get $h))) (local.get $Wp)) (local.get $left)) (i32.const 1))))
        (local.set $w (i32.const 0))
        (block $vd (loop $vl
          (br_if $vd (i32.ge_u (local.get $w) (local.get $w8)))
          (v128.store align=2 (local.get $d) (i16x8.sub
            (if (result v128) (local.get $sgn)
              (then (i16x8.extend_low_i8x16_s (v128.load64_zero align=1 (local.get $src))))
              (else (i16x8.extend_low_i8x16_u (v128.load64_zero align=1 (local.get $src)))))
            (local.get $z)))
          (local.set $src (i32.add (local.get $src) (i32.const 8)))
          (local.set $d (i32.add (local.get $d) (i32.const 16)))
          (local.set $w (i32.add (local.get $w) (i32.const 8)))
          (br $vl)))
        (block $sd (loop $sl
          (br_if $sd (i32.ge_u (local.get $w) (local.get $W)))
          (i32.store16 (local.get $d) ${centred("(local.get $src)", "(local.get $zp)")})
          (local.set $src (i32.add (local.get $src) (i32.const 1)))
          (local.set $d (i32.add (local.get $d) (i32.const 2)))
          (local.set $w (i32.add (local.get $w) (i32.const 1)))
          (br $sl)))
        (local.set $h (i32.add (local.get $h) (i32.const 1)))
        (br $hl)))
      (local.set $c (i32.add (local.get $c) (i32.const 1)))
      (br $cl))))`;

// pad32(src, C, H, W, dst, Hp, Wp, top, left): C planes of H × W float32 into planes of Hp × Wp
// at dst (each value at row top + h, column left + w) whose border is 0: a convolution's padding.
const pad32 = `
  (func (export "pad32") (param $src i32) (param $C i32) (param $H i32) (param $W i32)
    (param $dst i32) (param $Hp i32) (param $Wp i32) (param $top i32) (param $left i32)
    (local $c i32) (local $h i32) (local $row i32)
    (memory.fill (local.get $dst) (i32.const 0) (i32.shl (i32.mul (local.get $C) (i32.mul (local.get $Hp) (local.get $Wp))) (i32.const 2)))
    (local.set $row (i32.shl (local.get $W) (i32.const 2)))
    (block $cd (loop $cl
      (br_if $cd (i32.ge_u (local.get $c) (local.get $C)))
      (local.set $h (i32.const 0))
      (block $hd (loop $hl
        (br_if $hd (i32.ge_u (local.get $h) (local.get $H)))
        (memory.copy
          (i32.add (local.get $dst) (i32.shl (i32.add (i32.mul (i32.add (i32.mul (local.get $c) (local.get $Hp)) (i32.add (local.get $top) (local.get $h))) (local.get $Wp)) (local.get $left)) (i32.const 2)))
          (local.get $src) (local.get $row))
        (local.set $src (i32.add (local.get $src) (local.get $row)))
        (local.set $h (i32.add (local.get $h) (i32.const 1)))
        (br $hl)))
      (local.set $c (i32.add (local.get $c) (i32.const 1)))
      (br $cl))))`;

// A convolution's columns, im2col16 and im2col32 (x, taps, K, Wp, sh, sw, OW, j0, N, rq, dst):
// for output positions j0 ≤ j < N (rounded up to panels of `nr`), from padded planes at x of
// `esz`-byte values (centre's or pad32's, Wp wide). taps: per summed index t, the byte offset of
// its value from a position's window origin (plane, row and column in the window, padding
// included); position (oh, ow)'s origin is x + esz·(oh·sh·Wp + ow·sw). The panel's origins are
// kept at rq (nr i32; -1 past N). When the panel's positions are consecutive in one output row at
// stride 1, `whole` makes a step's values from one v128 load per tap; otherwise `each` value by
// value. Both advance $tp over the taps and $dst over the panel.
function columns(name, nr, esz, whole, each) {
  const shift = Math.log2(esz);
  return `
  (func (export "${name}") (param $x i32) (param $taps i32) (param $K i32) (param $Wp i32)
    (param $sh i32) (param $sw i32) (param $OW i32) (param $j0 i32) (param $N i32) (param $rq i32) (param $dst i32)
    (local $c i32) (local $j i32) (local $base i32) (local $tp i32) (local $end i32) (local $v i32)
    (local.set $end (i32.add (local.get $taps) (i32.shl (local.get $K) (i32.const 2))))
    (block $jd (loop $jl
      (br_if $jd (i32.ge_u (local.get $j0) (local.get $N)))
      (local.set $c (i32.const 0))
      (block $cd (loop $cl
        (br_if $cd (i32.ge_u (local.get $c) (i32.const ${nr})))
        (local.set $j (i32.add (local.get $j0) (local.get $c)))
        (i32.store (i32.add (local.get $rq) (i32.shl (local.get $c) (i32.const 2)))
          (if (result i32) (i32.lt_u (local.get $j) (local.get $N))
            (then (i32.add (local.get $x) (i32.shl (i32.add
              (i32.mul (i32.mul (i32.div_u (local.get $j) (local.get $OW)) (local.get $sh)) (local.get $Wp))
              (i32.mul (i32.rem_u (local.get $j) (local.get $OW)) (local.get $sw))) (i32.const ${shift}))))
            (else (i32.const -1))))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $cl)))
      (local.set $tp (local.get $taps))
      (if (i32.and (i32.eq (local.get $sw) (i32.const 1))
            (i32.and (i32.le_u (i32.add (local.get $j0) (i32.const ${nr})) (local.get $N))
              (i32.le_u (i32.add (i32.rem_u (local.get $j0) (local.get $OW)) (i32.const ${nr})) (local.get $OW))))
        (then
          (local.set $base (i32.load (local.get $rq)))
          (block $td (loop $tl
            (br_if $td (i32.ge_u (local.get $tp) (local.get $end)))
            ${whole}
            (br $tl))))
        (else
          (block $td (loop $tl
            (br_if $td (i32.ge_u (local.get $tp) (local.get $end)))
            ${each}
            (br $tl)))))
      (local.set $j0 (i32.add (local.get $j0) (i32.const ${nr})))
      (br $jl))))`;
}

// im2col16: the integer product's B layout (ipack's), i16 values from centre's planes, K even
// (an odd K's last pair gets a tap reading the plane of zeros after the input's): a pair's two
// taps as two v128 loads interleaved, or value c (column c >> 1, tap t + (c & 1)) by value.
const im2col16 = columns(
  "im2col16",
  QNR,
  2,
  `(v128.store (local.get $dst) (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23
              (v128.load align=2 (i32.add (local.get $base) (i32.load (local.get $tp))))
              (v128.load align=2 (i32.add (local.get $base) (i32.load offset=4 (local.get $tp))))))
            (v128.store offset=16 (local.get $dst) (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31
              (v128.load align=2 (i32.add (local.get $base) (i32.load (local.get $tp))))
              (v128.load align=2 (i32.add (local.get $base) (i32.load offset=4 (local.get $tp))))))
            (local.set $dst (i32.add (local.get $dst) (i32.const ${4 * QNR})))
            (local.set $tp (i32.add (local.get $tp) (i32.const 8)))`,
  `(local.set $c (i32.const 0))
            (block $vd (loop $vl
              (br_if $vd (i32.ge_u (local.get $c) (i32.const ${2 * QNR})))
              (local.set $base (i32.load (i32.add (local.get $rq) (i32.shl (i32.shr_u (local.get $c) (i32.const 1)) (i32.const 2)))))
              (local.set $v (i32.const 0))
              (if (i32.ne (local.get $base) (i32.const -1)) (then
                (local.set $v (i32.load16_s (i32.add (local.get $base)
                  (i32.load (i32.add (local.get $tp) (i32.shl (i32.and (local.get $c) (i32.const 1)) (i32.const 2)))))))))
              (i32.store16 (i32.add (local.get $dst) (i32.shl (local.get $c) (i32.const 1))) (local.get $v))
              (local.set $c (i32.add (local.get $c) (i32.const 1)))
              (br $vl)))
            (local.set $dst (i32.add (local.get $dst) (i32.const ${4 * QNR})))
            (local.set $tp (i32.add (local.get $tp) (i32.const 8)))`,
);

// im2col32: the float64 product's B panels (NR = 4 float32 per step) from pad32's planes: one
// v128 per tap, or value by value (0 past N).
const im2col32 = columns(
  "im2col32",
  4,
  4,
  `(v128.store (local.get $dst) (v128.load align=4 (i32.add (local.get $base) (i32.load (local.get $tp)))))
            (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
            (local.set $tp (i32.add (local.get $tp) (i32.const 4)))`,
  `(local.set $c (i32.const 0))
            (block $vd (loop $vl
              (br_if $vd (i32.ge_u (local.get $c) (i32.const 4)))
              (local.set $base (i32.load (i32.add (local.get $rq) (i32.shl (local.get $c) (i32.const 2)))))
              (f32.store (i32.add (local.get $dst) (i32.shl (local.get $c) (i32.const 2)))
                (if (result f32) (i32.ne (local.get $base) (i32.const -1))
                  (then (f32.load (i32.add (local.get $base) (i32.load (local.get $tp)))))
                  (else (f32.const 0))))
              (local.set $c (i32.add (local.get $c) (i32.const 1)))
              (br $vl)))
            (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
            (local.set $tp (i32.add (local.get $tp) (i32.const 4)))`,
);

// dql(src, n, dst, scale, zp): DynamicQuantizeLinear's quantization of n float32 values (n rounded
// up to 4; the caller leaves room): the float32 quotient x / scale (f32x4.div: correctly rounded,
// as the reference's float64 quotient rounded to float32), rounded half to even, plus zp,
// clamped to [0, 255] in float32 (NaN stays NaN) and truncated with NaN as 0: the reference's
// Math.min/Math.max/Math.trunc into a Uint8Array. minmax(src, n, out): the least and greatest so
// far (four lanes of each at out, out + 16) and n float32 values (NaN ignored, as the
// reference's < and > comparisons do), back at out.
const dql = `
  (func (export "dql") (param $src i32) (param $n i32) (param $dst i32) (param $scale f32) (param $zp f32)
    (local $end i32) (local $s v128) (local $z v128) (local $q v128)
    (local.set $s (f32x4.splat (local.get $scale)))
    (local.set $z (f32x4.splat (local.get $zp)))
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 2))))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $src) (local.get $end)))
      (local.set $q (f32x4.add (f32x4.nearest (f32x4.div (v128.load (local.get $src)) (local.get $s))) (local.get $z)))
      (local.set $q (f32x4.min (f32x4.splat (f32.const 255)) (f32x4.max (f32x4.splat (f32.const 0)) (local.get $q))))
      (local.set $q (i32x4.trunc_sat_f32x4_s (local.get $q)))
      (v128.store32_lane 0 (local.get $dst) (i8x16.shuffle 0 4 8 12 0 0 0 0 0 0 0 0 0 0 0 0 (local.get $q) (local.get $q)))
      (local.set $src (i32.add (local.get $src) (i32.const 16)))
      (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
      (br $l))))
  (func (export "minmax") (param $src i32) (param $n i32) (param $out i32)
    (local $end i32) (local $lo v128) (local $hi v128) (local $v v128)
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $lo (v128.load (local.get $out)))
    (local.set $hi (v128.load offset=16 (local.get $out)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $src) (local.get $end)))
      (local.set $v (v128.load (local.get $src)))
      (local.set $lo (f32x4.pmin (local.get $lo) (local.get $v)))
      (local.set $hi (f32x4.pmax (local.get $hi) (local.get $v)))
      (local.set $src (i32.add (local.get $src) (i32.const 16)))
      (br $l)))
    (v128.store (local.get $out) (local.get $lo))
    (v128.store offset=16 (local.get $out) (local.get $hi)))`;

export function qgemmWat(memory) {
  return `;; GENERATED by assemble.mjs (qgemm-template.mjs): i32-accumulating integer matrix product, ${QMR}x${QNR} tiles; convolutions' columns.
(module
  ${memory}
${igemm()}
${ipack}
${centre}
${im2col16}
${pad32}
${im2col32}
${dql})
`;
}
