// Index and selection ops: OneHot, GatherND, ScatterElements (and Scatter, its older name),
// ScatterND, Compress, NonZero, ReverseSequence, TopK, Unique.

import { attrInt, attrIntText } from "../../ir/attributes.js";
import { DataType } from "../../ir/types.js";
import { fromFloat64, toFloat64, scratch } from "../tensor.js";
import type { Kernel, KernelContext, RTensor } from "../types.js";
import {
  alloc,
  fail,
  indexText,
  input,
  intValues,
  normAxis,
  scalarNumber,
  strides,
} from "./util.js";
import { hasAttribute } from "../../schema/facts.js";
import { opVersion } from "./version.js";
import { intAttr, stringAttr } from "./attrs.js";

type AnyStore = { [i: number]: unknown; length: number };
const prod = (xs: readonly number[]) => xs.reduce((p, d) => p * d, 1);

const OneHot: Kernel = (ctx, inputs) => {
  const idx = input(ctx, inputs, 0);
  const depth = Math.trunc(scalarNumber(ctx, input(ctx, inputs, 1), "depth"));
  const values = input(ctx, inputs, 2);
  if (values.data.length !== 2) fail(ctx, "values must hold [off, on]");
  const r = idx.shape.length + 1;
  const axis = normAxis(ctx, intAttr(ctx, "axis"), r);
  const shape = [...idx.shape.slice(0, axis), depth, ...idx.shape.slice(axis)];
  const out = alloc(ctx, values.dtype, shape);
  const d = out.data as unknown as AnyStore;
  const [off, on] = [values.data[0], values.data[1]];
  for (let i = 0; i < d.length; i++) d[i] = off;
  const iv = toFloat64(idx);
  const inner = prod(idx.shape.slice(axis));
  for (let p = 0; p < iv.length; p++) {
    let k = Math.trunc(iv[p]!);
    if (k < 0) k += depth;
    if (k < 0 || k >= depth) continue;
    const o = Math.floor(p / inner);
    const i = p % inner;
    d[(o * depth + k) * inner + i] = on;
  }
  return [out];
};

const GatherND: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const idx = input(ctx, inputs, 1);
  const b = intAttr(ctx, "batch_dims", { without: 0 });
  const q = idx.shape.length;
  const last = idx.shape[q - 1]!;
  if (last > x.shape.length - b)
    fail(
      ctx,
      `index tuples of length ${last} exceed the data rank ${x.shape.length} minus batch_dims ${b}`,
    );
  const batch = prod(x.shape.slice(0, b));
  const sliceShape = x.shape.slice(b + last);
  const slice = prod(sliceShape);
  const perBatch = prod(idx.shape.slice(b, q - 1));
  const shape = [...idx.shape.slice(0, q - 1), ...sliceShape];
  const out = alloc(ctx, x.dtype, shape);
  const iv = intValues(ctx, idx, "indices");
  const st = strides(x.shape.slice(b));
  const xBatch = prod(x.shape.slice(b));
  const s = x.data as unknown as AnyStore;
  const d = out.data as unknown as AnyStore;
  let o = 0;
  for (let bi = 0; bi < batch; bi++)
    for (let j = 0; j < perBatch; j++) {
      let off = bi * xBatch;
      for (let k = 0; k < last; k++) {
        const dim = x.shape[b + k]!;
        const at = (bi * perBatch + j) * last + k;
        let v = iv[at]!;
        if (v < -dim || v >= dim)
          fail(
            ctx,
            `index ${indexText(idx, iv, at)} is out of range for axis ${b + k} of size ${dim}`,
          );
        if (v < 0) v += dim;
        off += v * st[k]!;
      }
      for (let t = 0; t < slice; t++) d[o++] = s[off + t];
    }
  return [out];
};

function reducer(ctx: KernelContext): (a: number, b: number) => number {
  const r = stringAttr(ctx, "reduction", { without: "none" });
  switch (r) {
    case "none":
      return (_a, b) => b;
    case "add":
      return (a, b) => a + b;
    case "mul":
      return (a, b) => a * b;
    case "max":
      return (a, b) => Math.max(a, b);
    case "min":
      return (a, b) => Math.min(a, b);
  }
  return fail(ctx, `reduction '${r}' is not supported`);
}

const ScatterElements: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const idx = input(ctx, inputs, 1);
  const upd = input(ctx, inputs, 2);
  const r = x.shape.length;
  const axis = normAxis(ctx, intAttr(ctx, "axis"), r);
  const f = reducer(ctx);
  const v = toFloat64(x);
  const u = toFloat64(upd);
  const iv = intValues(ctx, idx, "indices");
  const st = strides(x.shape);
  const ist = strides(idx.shape);
  const dim = x.shape[axis]!;
  for (let p = 0; p < iv.length; p++) {
    let off = 0;
    for (let k = 0; k < r; k++) {
      let c = Math.floor(p / ist[k]!) % idx.shape[k]!;
      if (k === axis) {
        c = iv[p]!;
        if (c < -dim || c >= dim)
          fail(
            ctx,
            `index ${indexText(idx, iv, p)} is out of range for axis ${axis} of size ${dim}`,
          );
        if (c < 0) c += dim;
      }
      off += c * st[k]!;
    }
    v[off] = f(v[off]!, u[p]!);
  }
  return [fromFloat64(x.dtype, [...x.shape], v)];
};

const ScatterND: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const idx = input(ctx, inputs, 1);
  const upd = input(ctx, inputs, 2);
  const f = reducer(ctx);
  const last = idx.shape[idx.shape.length - 1]!;
  const n = prod(idx.shape.slice(0, -1));
  const slice = prod(x.shape.slice(last));
  const st = strides(x.shape);
  const iv = intValues(ctx, idx, "indices");
  const v = toFloat64(x);
  const u = toFloat64(upd);
  for (let j = 0; j < n; j++) {
    let off = 0;
    for (let k = 0; k < last; k++) {
      let c = iv[j * last + k]!;
      if (c < 0) c += x.shape[k]!;
      if (c < 0 || c >= x.shape[k]!)
        fail(ctx, `index ${indexText(idx, iv, j * last + k)} is out of range for axis ${k}`);
      off += c * st[k]!;
    }
    for (let t = 0; t < slice; t++) v[off + t] = f(v[off + t]!, u[j * slice + t]!);
  }
  return [fromFloat64(x.dtype, [...x.shape], v)];
};

const Compress: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const cond = input(ctx, inputs, 1);
  const axisAttr = attrInt(ctx.node, "axis");
  const c = cond.data as Uint8Array;
  const src = axisAttr === undefined ? { ...x, shape: [x.data.length] } : x;
  const axis = axisAttr === undefined ? 0 : normAxis(ctx, axisAttr, x.shape.length);
  const dim = src.shape[axis]!;
  const keep: number[] = [];
  for (let i = 0; i < Math.min(dim, c.length); i++) if (c[i]) keep.push(i);
  const outer = prod(src.shape.slice(0, axis));
  const inner = prod(src.shape.slice(axis + 1));
  const shape = [...src.shape];
  shape[axis] = keep.length;
  const out = alloc(ctx, x.dtype, shape);
  const s = x.data as unknown as AnyStore;
  const d = out.data as unknown as AnyStore;
  let o = 0;
  for (let a = 0; a < outer; a++)
    for (const k of keep) for (let j = 0; j < inner; j++) d[o++] = s[(a * dim + k) * inner + j];
  return [out];
};

const TopK: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const kT = hasAttribute(opVersion(ctx), "k") ? undefined : input(ctx, inputs, 1);
  const k = kT ? intValues(ctx, kT, "k")[0]! : intAttr(ctx, "k");
  const axis = normAxis(ctx, intAttr(ctx, "axis"), x.shape.length);
  const largest = intAttr(ctx, "largest", { without: 1 }) !== 0;
  const dim = x.shape[axis]!;
  if (k < 0 || k > dim)
    fail(
      ctx,
      `k = ${kT ? indexText(kT, [k], 0) : attrIntText(ctx.node, "k", k)} is out of range for axis ${axis} of size ${dim}`,
    );
  const outer = prod(x.shape.slice(0, axis));
  const inner = prod(x.shape.slice(axis + 1));
  const v = toFloat64(x);
  const shape = [...x.shape];
  shape[axis] = k;
  const vals = scratch(Float64Array, prod(shape));
  const idx = scratch(BigInt64Array, vals.length);
  const order = new Array<number>(dim);
  for (let o = 0; o < outer; o++)
    for (let i = 0; i < inner; i++) {
      for (let t = 0; t < dim; t++) order[t] = t;
      const at = (t: number) => v[(o * dim + t) * inner + i]!;
      // NaN sorts above every number (numpy's order): first among the largest, last among the
      // smallest; ties keep the lower index first.
      const asc = (a: number, b: number) => {
        const x = at(a);
        const y = at(b);
        if (x !== x) return y !== y ? 0 : 1;
        if (y !== y) return -1;
        return x - y;
      };
      order.sort((a, b) => (largest ? asc(b, a) : asc(a, b)) || a - b);
      for (let t = 0; t < k; t++) {
        vals[(o * k + t) * inner + i] = at(order[t]!);
        idx[(o * k + t) * inner + i] = BigInt(order[t]!);
      }
    }
  return [fromFloat64(x.dtype, shape, vals), { dtype: DataType.INT64, shape, data: idx }];
};

const NonZero: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const v = toFloat64(x);
  const r = x.shape.length;
  const st = strides(x.shape);
  const hits: number[] = [];
  for (let p = 0; p < v.length; p++) if (v[p] !== 0) hits.push(p);
  const out = alloc(ctx, DataType.INT64, [r, hits.length]);
  const d = out.data as BigInt64Array;
  hits.forEach((p, j) => {
    for (let k = 0; k < r; k++)
      d[k * hits.length + j] = BigInt(Math.floor(p / st[k]!) % x.shape[k]!);
  });
  return [out];
};

const ReverseSequence: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const lens = intValues(ctx, input(ctx, inputs, 1), "sequence_lens");
  const tAxis = intAttr(ctx, "time_axis");
  const bAxis = intAttr(ctx, "batch_axis");
  const st = strides(x.shape);
  const out = alloc(ctx, x.dtype, [...x.shape]);
  const s = x.data as unknown as AnyStore;
  const d = out.data as unknown as AnyStore;
  for (let p = 0; p < s.length; p++) {
    const t = Math.floor(p / st[tAxis]!) % x.shape[tAxis]!;
    const b = Math.floor(p / st[bAxis]!) % x.shape[bAxis]!;
    const len = lens[b]!;
    const src = t < len ? p + (len - 1 - 2 * t) * st[tAxis]! : p;
    d[p] = s[src];
  }
  return [out];
};

const Unique: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const sorted = intAttr(ctx, "sorted", { without: 1 }) !== 0;
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

export const indexingKernels: Record<string, Kernel> = {
  OneHot,
  GatherND,
  ScatterElements,
  Scatter: ScatterElements,
  ScatterND,
  Compress,
  TopK,
  NonZero,
  ReverseSequence,
  Unique,
};
