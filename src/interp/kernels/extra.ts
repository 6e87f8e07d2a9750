// Einsum, Unique, Det, MaxUnpool, NonMaxSuppression, TfIdfVectorizer, RoiAlign.

import { einsumEquationError } from "../../check/einsum.js";
import { attrFloat, attrInt, attrInts, attrString } from "../../ir/attributes.js";
import { DataType } from "../../ir/types.js";
import { fromFloat64, toFloat64, scratch } from "../tensor.js";
import type { Kernel, RTensor } from "../types.js";
import {
  alloc,
  checkedCount,
  fail,
  input,
  intValues,
  normAxis,
  optInput,
  scalarNumber,
  strides,
} from "./util.js";

type AnyStore = { [i: number]: unknown; length: number };
const prod = (xs: readonly number[]) => xs.reduce((p, d) => p * d, 1);

// ---------------------------------------------------------------------------------------------
// Einsum: every index letter becomes a loop; products are summed over letters not in the output.

const Einsum: Kernel = (ctx, inputs) => {
  const xs = inputs.map((_, i) => input(ctx, inputs, i));
  const eq = attrString(ctx.node, "equation", "").replace(/\s+/g, "");
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

const Unique: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const sorted = attrInt(ctx.node, "sorted", 1) !== 0;
  const axisAttr = attrInt(ctx.node, "axis");
  const src = axisAttr === undefined ? { ...x, shape: [x.data.length] } : x;
  const axis = axisAttr === undefined ? 0 : normAxis(ctx, axisAttr, x.shape.length);
  const dim = src.shape[axis]!;
  const outer = prod(src.shape.slice(0, axis));
  const inner = prod(src.shape.slice(axis + 1));
  const s = src.data as unknown as AnyStore;
  const sliceKey = (k: number) => {
    const parts: unknown[] = [];
    for (let o = 0; o < outer; o++)
      for (let j = 0; j < inner; j++) parts.push(s[(o * dim + k) * inner + j]);
    return parts;
  };
  const slices = Array.from({ length: dim }, (_, k) => sliceKey(k));
  const keyOf = (p: unknown[]) => p.map(String).join("\u0000");
  const first = new Map<string, number>();
  const order: number[] = [];
  const inverseKey: string[] = [];
  slices.forEach((p, k) => {
    const key = keyOf(p);
    inverseKey.push(key);
    if (!first.has(key)) {
      first.set(key, k);
      order.push(k);
    }
  });
  if (sorted) {
    const cmp = (a: unknown, b: unknown) =>
      (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    order.sort((a, b) => {
      const pa = slices[a]!;
      const pb = slices[b]!;
      for (let i = 0; i < pa.length; i++) {
        const c = cmp(pa[i], pb[i]);
        if (c) return c;
      }
      return 0;
    });
  }
  const position = new Map(order.map((k, i) => [keyOf(slices[k]!), i]));
  const counts = new Array<number>(order.length).fill(0);
  for (const key of inverseKey) counts[position.get(key)!]!++;
  const shape = [...src.shape];
  shape[axis] = order.length;
  const y = alloc(ctx, x.dtype, shape);
  const d = y.data as unknown as AnyStore;
  order.forEach((k, i) => {
    for (let o = 0; o < outer; o++)
      for (let j = 0; j < inner; j++)
        d[(o * order.length + i) * inner + j] = s[(o * dim + k) * inner + j];
  });
  const i64 = (v: number[]): RTensor => ({
    dtype: DataType.INT64,
    shape: [v.length],
    data: BigInt64Array.from(v, (n) => BigInt(n)),
  });
  return [y, i64(order), i64(inverseKey.map((k) => position.get(k)!)), i64(counts)];
};

// ---------------------------------------------------------------------------------------------

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

const MaxUnpool: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const idx = input(ctx, inputs, 1);
  const shapeT = optInput(ctx, inputs, 2);
  const kernel =
    attrInts(ctx.node, "kernel_shape") ?? fail(ctx, "attribute 'kernel_shape' is required");
  const k = kernel.length;
  const st = attrInts(ctx.node, "strides") ?? new Array<number>(k).fill(1);
  const pads = attrInts(ctx.node, "pads") ?? new Array<number>(2 * k).fill(0);
  // Indices refer to the default unpooled shape; a larger output_shape pads at the end.
  const natural = [
    x.shape[0]!,
    x.shape[1]!,
    ...x.shape.slice(2).map((d, i) => (d - 1) * st[i]! + kernel[i]! - pads[i]! - pads[i + k]!),
  ];
  const shape = shapeT ? intValues(ctx, shapeT, "output_shape") : natural;
  if (shape.length !== natural.length || shape.some((d, i) => d < natural[i]!))
    fail(
      ctx,
      `output_shape [${shape.join(",")}] is smaller than the unpooled shape [${natural.join(",")}]`,
    );
  const out = alloc(ctx, x.dtype, shape);
  const iv = intValues(ctx, idx, "indices");
  const s = x.data as unknown as AnyStore;
  const d = out.data as unknown as AnyStore;
  const nst = strides(natural);
  const ost = strides(shape);
  const total = prod(natural);
  for (let i = 0; i < iv.length; i++) {
    const at = iv[i]!;
    if (at < 0 || at >= total)
      fail(ctx, `index ${at} is outside the unpooled tensor of ${total} elements`);
    let off = 0;
    for (let a = 0; a < natural.length; a++)
      off += (Math.floor(at / nst[a]!) % natural[a]!) * ost[a]!;
    d[off] = s[i];
  }
  return [out];
};

const NonMaxSuppression: Kernel = (ctx, inputs) => {
  const boxes = input(ctx, inputs, 0);
  const scores = input(ctx, inputs, 1);
  const maxT = optInput(ctx, inputs, 2);
  const iouT = optInput(ctx, inputs, 3);
  const scoreT = optInput(ctx, inputs, 4);
  const maxPerClass = maxT ? (intValues(ctx, maxT, "max_output_boxes_per_class")[0] ?? 0) : 0;
  const iouMax = iouT ? scalarNumber(ctx, iouT, "iou_threshold") : 0;
  const scoreMin = scoreT ? scalarNumber(ctx, scoreT, "score_threshold") : -Infinity;
  const center = attrInt(ctx.node, "center_point_box", 0) !== 0;
  const [nb, n] = boxes.shape as [number, number];
  const nc = scores.shape[1]!;
  const bv = toFloat64(boxes);
  const sv = toFloat64(scores);
  const corners = (b: number, i: number): [number, number, number, number] => {
    const o = (b * n + i) * 4;
    if (center) {
      const [xc, yc, w, h] = [bv[o]!, bv[o + 1]!, bv[o + 2]!, bv[o + 3]!];
      return [yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2];
    }
    const [y1, x1, y2, x2] = [bv[o]!, bv[o + 1]!, bv[o + 2]!, bv[o + 3]!];
    return [Math.min(y1, y2), Math.min(x1, x2), Math.max(y1, y2), Math.max(x1, x2)];
  };
  const iou = (a: number[], b: number[]) => {
    const ih = Math.max(0, Math.min(a[2]!, b[2]!) - Math.max(a[0]!, b[0]!));
    const iw = Math.max(0, Math.min(a[3]!, b[3]!) - Math.max(a[1]!, b[1]!));
    const inter = ih * iw;
    const union = (a[2]! - a[0]!) * (a[3]! - a[1]!) + (b[2]! - b[0]!) * (b[3]! - b[1]!) - inter;
    return union > 0 ? inter / union : 0;
  };
  const selected: number[] = [];
  for (let b = 0; b < nb; b++)
    for (let c = 0; c < nc; c++) {
      const cand: number[] = [];
      for (let i = 0; i < n; i++) if (sv[(b * nc + c) * n + i]! > scoreMin) cand.push(i);
      cand.sort((p, q) => sv[(b * nc + c) * n + q]! - sv[(b * nc + c) * n + p]! || p - q);
      const kept: number[][] = [];
      for (const i of cand) {
        if (kept.length >= maxPerClass) break;
        const box = corners(b, i);
        if (kept.some((k) => iou(k, box) > iouMax)) continue;
        kept.push(box);
        selected.push(b, c, i);
      }
    }
  return [
    {
      dtype: DataType.INT64,
      shape: [selected.length / 3, 3],
      data: BigInt64Array.from(selected, (v) => BigInt(v)),
    },
  ];
};

// ---------------------------------------------------------------------------------------------
// TfIdfVectorizer: n-gram counts (with skips) against a pool, weighted by mode.

const TfIdfVectorizer: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const minN = attrInt(ctx.node, "min_gram_length", 1);
  const maxN = attrInt(ctx.node, "max_gram_length", 1);
  const maxSkip = attrInt(ctx.node, "max_skip_count", 0);
  const mode = attrString(ctx.node, "mode", "TF");
  const counts =
    attrInts(ctx.node, "ngram_counts") ?? fail(ctx, "attribute 'ngram_counts' is required");
  const indexes =
    attrInts(ctx.node, "ngram_indexes") ?? fail(ctx, "attribute 'ngram_indexes' is required");
  const poolInts = ctx.node.attributes.find((a) => a.name === "pool_int64s");
  const poolStrs = ctx.node.attributes.find((a) => a.name === "pool_strings");
  const weightsA = ctx.node.attributes.find((a) => a.name === "weights");
  const pool: string[] =
    poolStrs && poolStrs.type === "STRINGS" && poolStrs.value
      ? poolStrs.value
      : poolInts && poolInts.type === "INTS" && poolInts.value
        ? poolInts.value.map(String)
        : fail(ctx, "one of pool_int64s and pool_strings is required");
  const weights =
    weightsA && weightsA.type === "FLOATS" && weightsA.value ? weightsA.value : undefined;
  // n-gram (tokens joined) → output index
  const lookup = new Map<string, number>();
  let k = 0;
  for (let g = 0; g < counts.length; g++) {
    const n = g + 1;
    const start = counts[g]!;
    const end = g + 1 < counts.length ? counts[g + 1]! : pool.length;
    for (let p = start; p + n <= end; p += n)
      lookup.set(`${n}:${pool.slice(p, p + n).join("\u0000")}`, indexes[k++]!);
  }
  const width = Math.max(-1, ...indexes) + 1;
  const rows = x.shape.length === 2 ? x.shape[0]! : 1;
  const cols = x.shape.length === 2 ? x.shape[1]! : (x.shape[0] ?? 0);
  const tokens = Array.from(x.data as ArrayLike<unknown>, (v) => String(v));
  const out = scratch(Float64Array, rows * width);
  for (let r = 0; r < rows; r++) {
    const row = tokens.slice(r * cols, (r + 1) * cols);
    for (let n = minN; n <= maxN; n++)
      for (let s = 0; s <= (n === 1 ? 0 : maxSkip); s++)
        for (let start = 0; start + (n - 1) * (s + 1) < row.length; start++) {
          const gram: string[] = [];
          for (let t = 0; t < n; t++) gram.push(row[start + t * (s + 1)]!);
          const idx = lookup.get(`${n}:${gram.join("\u0000")}`);
          if (idx !== undefined) out[r * width + idx]! += 1;
        }
  }
  for (let i = 0; i < out.length; i++) {
    const w = weights ? (weights[i % width] ?? 1) : 1;
    if (mode === "IDF") out[i] = out[i]! > 0 ? w : 0;
    else if (mode === "TFIDF") out[i] = out[i]! * w;
  }
  return [fromFloat64(DataType.FLOAT, x.shape.length === 2 ? [rows, width] : [width], out)];
};

// ---------------------------------------------------------------------------------------------
// RoiAlign: bilinear samples averaged (or maxed) over each output bin of each region.

const RoiAlign: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const rois = toFloat64(input(ctx, inputs, 1));
  const batchIdx = intValues(ctx, input(ctx, inputs, 2), "batch_indices");
  if (x.shape.length !== 4) fail(ctx, "X must be [N, C, H, W]");
  const [, c, h, w] = x.shape as [number, number, number, number];
  const oh = attrInt(ctx.node, "output_height", 1);
  const ow = attrInt(ctx.node, "output_width", 1);
  const ratio = attrInt(ctx.node, "sampling_ratio", 0);
  const scale = attrFloat(ctx.node, "spatial_scale", 1);
  const isMax = attrString(ctx.node, "mode", "avg") === "max";
  const halfPixel =
    attrString(
      ctx.node,
      "coordinate_transformation_mode",
      ctx.opset >= 16 ? "half_pixel" : "output_half_pixel",
    ) === "half_pixel";
  const num = batchIdx.length;
  const outShape = [num, c, oh, ow];
  checkedCount(ctx, outShape);
  const v = toFloat64(x);
  const out = scratch(Float64Array, prod(outShape));
  const off = halfPixel ? 0.5 : 0;
  for (let r = 0; r < num; r++) {
    const b = batchIdx[r]!;
    const sw = rois[r * 4]! * scale - off;
    const sh = rois[r * 4 + 1]! * scale - off;
    let rw = rois[r * 4 + 2]! * scale - off - sw;
    let rh = rois[r * 4 + 3]! * scale - off - sh;
    if (!halfPixel) {
      rw = Math.max(rw, 1);
      rh = Math.max(rh, 1);
    }
    const bh = rh / oh;
    const bw = rw / ow;
    const gh = ratio > 0 ? ratio : Math.ceil(rh / oh);
    const gw = ratio > 0 ? ratio : Math.ceil(rw / ow);
    const count = Math.max(gh * gw, 1);
    for (let ch = 0; ch < c; ch++) {
      const plane = (b * c + ch) * h * w;
      for (let py = 0; py < oh; py++)
        for (let px = 0; px < ow; px++) {
          let acc = isMax ? -Infinity : 0;
          let any = false;
          for (let iy = 0; iy < gh; iy++)
            for (let ix = 0; ix < gw; ix++) {
              let y = sh + py * bh + ((iy + 0.5) * bh) / gh;
              let xx = sw + px * bw + ((ix + 0.5) * bw) / gw;
              if (y < -1 || y > h || xx < -1 || xx > w) {
                if (isMax) any = true;
                if (isMax) acc = Math.max(acc, 0);
                continue;
              }
              y = Math.max(y, 0);
              xx = Math.max(xx, 0);
              let y0 = Math.floor(y);
              let x0 = Math.floor(xx);
              let y1 = y0 + 1;
              let x1 = x0 + 1;
              if (y0 >= h - 1) y0 = y1 = h - 1;
              if (x0 >= w - 1) x0 = x1 = w - 1;
              if (y0 === h - 1) y = y0;
              if (x0 === w - 1) xx = x0;
              const ly = y - y0;
              const lx = xx - x0;
              const terms = [
                (1 - ly) * (1 - lx) * v[plane + y0 * w + x0]!,
                (1 - ly) * lx * v[plane + y0 * w + x1]!,
                ly * (1 - lx) * v[plane + y1 * w + x0]!,
                ly * lx * v[plane + y1 * w + x1]!,
              ];
              any = true;
              if (isMax) acc = Math.max(acc, ...terms);
              else acc += terms[0]! + terms[1]! + terms[2]! + terms[3]!;
            }
          out[((r * c + ch) * oh + py) * ow + px] = isMax ? (any ? acc : 0) : acc / count;
        }
    }
  }
  return [fromFloat64(x.dtype, outShape, out)];
};

export const extraKernels: Record<string, Kernel> = {
  Einsum,
  Unique,
  Det,
  MaxUnpool,
  NonMaxSuppression,
  TfIdfVectorizer,
  RoiAlign,
};
