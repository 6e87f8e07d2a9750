// Linear algebra beyond MatMul/Gemm (those are in nn.ts): Einsum, Det.

import { einsumEquationError } from "../../check/einsum.js";
import { attrString } from "../../ir/attributes.js";
import { fromFloat64, toFloat64, scratch } from "../tensor.js";
import type { Kernel } from "../types.js";
import { checkedCount, fail, input, strides } from "./util.js";

const prod = (xs: readonly number[]) => xs.reduce((p, d) => p * d, 1);

// ---------------------------------------------------------------------------------------------
// Einsum: every index letter becomes a loop; products are summed over letters not in the output.

const Einsum: Kernel = (ctx, inputs) => {
  const xs = inputs.map((_, i) => input(ctx, inputs, i));
  const eq = attrString(ctx.node, "equation", "").replace(/\s+/g, "");
  // The checker's rules: an equation it would report is refused, never run.
  const why = einsumEquationError(
    eq,
    xs.length,
    xs.map((x) => x.shape.length),
  );
  if (why) fail(ctx, why);
  const [lhs, rhsGiven] = eq.split("->") as [string, string | undefined];
  const terms = lhs.split(",");
  // Ellipsis dimensions get letters that cannot clash with user letters.
  const ellipsisRank = Math.max(
    0,
    ...terms.map((t, i) => (t.includes("...") ? xs[i]!.shape.length - (t.length - 3) : 0)),
  );
  const ell = Array.from({ length: ellipsisRank }, (_, k) => String.fromCharCode(0x100 + k));
  const expand = (t: string, rank: number) => {
    if (!t.includes("...")) return [...t];
    const n = rank - (t.length - 3);
    const [a, b] = t.split("...") as [string, string];
    return [...a, ...ell.slice(ellipsisRank - n), ...b];
  };
  const labels = terms.map((t, i) => expand(t, xs[i]!.shape.length));
  const size = new Map<string, number>();
  labels.forEach((ls, i) => {
    if (ls.length !== xs[i]!.shape.length)
      fail(
        ctx,
        `operand ${i} has rank ${xs[i]!.shape.length}, '${terms[i]}' names ${ls.length} axes`,
      );
    ls.forEach((l, k) => {
      const d = xs[i]!.shape[k]!;
      const prev = size.get(l);
      if (prev === undefined || prev === 1) size.set(l, d);
      else if (d !== 1 && d !== prev) fail(ctx, `index '${l}' has sizes ${prev} and ${d}`);
    });
  });
  let out: string[];
  if (rhsGiven !== undefined)
    out = expand(
      rhsGiven,
      rhsGiven.includes("...") ? ellipsisRank + rhsGiven.length - 3 : rhsGiven.length,
    );
  else {
    const counts = new Map<string, number>();
    for (const ls of labels) for (const l of ls) counts.set(l, (counts.get(l) ?? 0) + 1);
    out = [
      ...ell,
      ...[...counts]
        .filter(([l, c]) => c === 1 && !ell.includes(l))
        .map(([l]) => l)
        .sort(),
    ];
  }
  const summed = [...size.keys()].filter((l) => !out.includes(l));
  const outShape = out.map((l) => size.get(l) ?? 1);
  checkedCount(ctx, outShape);
  const all = [...out, ...summed];
  const dims = all.map((l) => size.get(l)!);
  const vals = xs.map((x) => toFloat64(x));
  const steps = labels.map((ls, i) => {
    const st = strides(xs[i]!.shape);
    return all.map((l) =>
      ls.reduce((acc, m, k) => (m === l && xs[i]!.shape[k] !== 1 ? acc + st[k]! : acc), 0),
    );
  });
  const result = scratch(Float64Array, prod(outShape));
  const nOut = result.length;
  const nSum = prod(summed.map((l) => size.get(l)!));
  const coord = new Array<number>(all.length).fill(0);
  for (let o = 0; o < nOut; o++) {
    let rem = o;
    for (let k = out.length - 1; k >= 0; k--) {
      coord[k] = rem % dims[k]!;
      rem = Math.floor(rem / dims[k]!);
    }
    let acc = 0;
    for (let s = 0; s < nSum; s++) {
      let r2 = s;
      for (let k = all.length - 1; k >= out.length; k--) {
        coord[k] = r2 % dims[k]!;
        r2 = Math.floor(r2 / dims[k]!);
      }
      let p = 1;
      for (let i = 0; i < xs.length; i++) {
        let off = 0;
        const st = steps[i]!;
        for (let k = 0; k < all.length; k++) off += coord[k]! * st[k]!;
        p *= vals[i]![off]!;
      }
      acc += p;
    }
    result[o] = acc;
  }
  return [fromFloat64(xs[0]!.dtype, outShape, result)];
};

// ---------------------------------------------------------------------------------------------
// Det: Gaussian elimination with partial pivoting, per matrix of the batch.

const Det: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const r = x.shape.length;
  if (r < 2 || x.shape[r - 1] !== x.shape[r - 2])
    fail(ctx, `input must be [..., M, M], got [${x.shape.join(",")}]`);
  const n = x.shape[r - 1]!;
  const v = toFloat64(x);
  const batch = prod(x.shape.slice(0, -2));
  const out = scratch(Float64Array, batch);
  for (let b = 0; b < batch; b++) {
    const a = v.slice(b * n * n, (b + 1) * n * n);
    let det = 1;
    for (let c = 0; c < n; c++) {
      let piv = c;
      for (let i = c + 1; i < n; i++)
        if (Math.abs(a[i * n + c]!) > Math.abs(a[piv * n + c]!)) piv = i;
      if (a[piv * n + c] === 0) {
        det = 0;
        break;
      }
      if (piv !== c) {
        for (let j = 0; j < n; j++)
          [a[c * n + j], a[piv * n + j]] = [a[piv * n + j]!, a[c * n + j]!];
        det = -det;
      }
      det *= a[c * n + c]!;
      for (let i = c + 1; i < n; i++) {
        const f = a[i * n + c]! / a[c * n + c]!;
        for (let j = c; j < n; j++) a[i * n + j]! -= f * a[c * n + j]!;
      }
    }
    out[b] = det;
  }
  return [fromFloat64(x.dtype, x.shape.slice(0, -2), out)];
};

export const linalgKernels: Record<string, Kernel> = { Einsum, Det };
