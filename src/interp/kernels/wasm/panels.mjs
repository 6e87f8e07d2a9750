// The loops of a blocked matrix product, shared by the float (gemm-template.mjs) and the integer
// (qgemm-template.mjs) kernels: column panels jb0 ≤ jb < jb1, within each every row block of MR
// rows, within each the summed index, one tile's loads and multiply-adds a step. The callers give
// the tile's code and where its results go. Imported by assemble.mjs through the templates.

/**
 * The loops' text. `MR`, `NR`: the tile; `K`: the local holding the count of summed steps;
 * `aStep`: bytes of A's row block per step (and of the bias per row block); `tile`: { init,
 * loads, macs, body2? } WAT (body2: two steps at once, for all but a last odd step); `po`: the WAT expression of the tile's first result address; `stores`: WAT
 * storing the tile there (only the rows and columns inside M × N); `panelStep`: panels a tile spans
 * (NR columns in all); `beforeRows`: WAT run per tile column, once `$cols` is known.
 */
export function panelLoops({ MR, NR, K, aStep, tile, po, stores, panelStep = 1, beforeRows = "" }) {
  // A tile spans panelStep panels of NR / panelStep columns each.
  const pc = NR / panelStep;
  return `(local.set $mb (i32.div_u (i32.add (local.get $M) (i32.const ${MR - 1})) (i32.const ${MR})))
    (local.set $jb (local.get $jb0))
    (block $jdone (loop $jl
      (br_if $jdone (i32.ge_u (local.get $jb) (local.get $jb1)))
      (local.set $cols (i32.sub (local.get $N) (i32.mul (local.get $jb) (i32.const ${pc}))))
      (if (i32.gt_u (local.get $cols) (i32.const ${NR})) (then (local.set $cols (i32.const ${NR}))))
      ${beforeRows}
      (local.set $ib (i32.const 0))
      (block $idone (loop $il
        (br_if $idone (i32.ge_u (local.get $ib) (local.get $mb)))
        (local.set $pa (i32.add (local.get $a) (i32.mul (local.get $ib) (i32.mul (local.get ${K}) (i32.const ${aStep})))))
        (local.set $pb (i32.add (local.get $b) (i32.mul (local.get $jb) (local.get $pstride))))
        (local.set $end (i32.add (local.get $pa) (i32.mul (local.get ${K}) (i32.const ${aStep}))))
        (local.set $bi (i32.add (local.get $bias) (i32.mul (local.get $ib) (i32.const ${aStep}))))
        ${tile.init}${
          tile.body2
            ? `
        (block $t2done (loop $t2l
          (br_if $t2done (i32.gt_u (i32.add (local.get $pa) (i32.const ${2 * aStep})) (local.get $end)))
          ${tile.body2}
          (local.set $pa (i32.add (local.get $pa) (i32.const ${2 * aStep})))
          (local.set $pb (i32.add (local.get $pb) (i32.shl (local.get $ldb) (i32.const 1))))
          (br $t2l)))`
            : ""
        }
        (block $tdone (loop $tl
          (br_if $tdone (i32.ge_u (local.get $pa) (local.get $end)))
          ${tile.loads}
          ${tile.macs}
          (local.set $pa (i32.add (local.get $pa) (i32.const ${aStep})))
          (local.set $pb (i32.add (local.get $pb) (local.get $ldb)))
          (br $tl)))
        (local.set $rows (i32.sub (local.get $M) (i32.mul (local.get $ib) (i32.const ${MR}))))
        (local.set $po ${po})
        ${stores}
        (local.set $ib (i32.add (local.get $ib) (i32.const 1)))
        (br $il)))
      (local.set $jb (i32.add (local.get $jb) (i32.const ${panelStep})))
      (br $jl))))`;
}

/** 0, 1, ..., n - 1. */
export const range = (n) => Array.from({ length: n }, (_, i) => i);

/** A tile accumulator's local: row r, vector v. */
export const acc = (r, v) => `$c${r}_${v}`;

/** The tile's accumulators set to each row's start (`start(r)`: a v128 expression), V a row. */
export function initAccumulators(rows, V, start) {
  return range(rows)
    .map((r) =>
      range(V)
        .map((v) => `(local.set ${acc(r, v)} ${start(r)})`)
        .join(" "),
    )
    .join("\n        ");
}
