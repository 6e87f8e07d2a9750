// More kernels the ONNX test corpus uses: sequences and optionals, SequenceMap, index ops
// (OneHot, EyeLike, GatherND, Scatter*, Compress, TopK, NonZero, ReverseSequence), layout ops
// (DepthToSpace, SpaceToDepth), StringNormalizer, window functions, LRN and
// MeanVarianceNormalization.

import { attrFloat, attrInt, attrInts, attrString, getAttr } from "../../ir/attributes.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType, type Graph } from "../../ir/types.js";
import { fromFloat64, toFloat64, scratch } from "../tensor.js";
import type { Kernel, KernelContext, RTensor, RValue } from "../types.js";
import { stridedCopy } from "./shape.js";
import {
  alloc,
  checkedCount,
  fail,
  input,
  intValues,
  isTensor,
  normAxis,
  optInput,
  scalarNumber,
  strides,
} from "./util.js";

type AnyStore = { [i: number]: unknown; length: number };
type Sequence = { kind: "sequence"; elemDtype: number; items: RTensor[] };
const prod = (xs: readonly number[]) => xs.reduce((p, d) => p * d, 1);

function sequence(ctx: KernelContext, v: RValue | undefined, what = "input 0"): Sequence {
  if (!v || !("kind" in v) || v.kind !== "sequence") fail(ctx, `${what} must be a sequence`);
  return v;
}

function position(
  ctx: KernelContext,
  t: RTensor | undefined,
  len: number,
  dflt: number,
  insert = false,
): number {
  if (!t) return dflt;
  const p = intValues(ctx, t, "position")[0] ?? dflt;
  const hi = insert ? len : len - 1;
  if (p < -len || p > hi)
    fail(ctx, `position ${p} is out of range for a sequence of length ${len}`);
  return p < 0 ? p + len : p;
}

// ---------------------------------------------------------------------------------------------
// Sequences and optionals

const sequenceKernels: Record<string, Kernel> = {
  SequenceEmpty: (ctx) => [
    { kind: "sequence", elemDtype: attrInt(ctx.node, "dtype", DataType.FLOAT), items: [] },
  ],
  SequenceConstruct: (ctx, inputs) => {
    const items = inputs.map((_, i) => input(ctx, inputs, i));
    if (items.some((t) => t.dtype !== items[0]!.dtype))
      fail(ctx, "inputs must have one element type");
    return [{ kind: "sequence", elemDtype: items[0]?.dtype ?? DataType.FLOAT, items }];
  },
  SequenceInsert: (ctx, inputs) => {
    const s = sequence(ctx, inputs[0]);
    const t = input(ctx, inputs, 1);
    if (s.items.length && t.dtype !== s.elemDtype)
      fail(ctx, `cannot insert ${dtypeName(t.dtype)} into a sequence of ${dtypeName(s.elemDtype)}`);
    const at = position(ctx, optInput(ctx, inputs, 2), s.items.length, s.items.length, true);
    const items = [...s.items];
    items.splice(at, 0, t);
    return [{ kind: "sequence", elemDtype: t.dtype, items }];
  },
  SequenceAt: (ctx, inputs) => {
    const s = sequence(ctx, inputs[0]);
    return [s.items[position(ctx, input(ctx, inputs, 1), s.items.length, 0)]!];
  },
  SequenceLength: (ctx, inputs) => [
    {
      dtype: DataType.INT64,
      shape: [],
      data: BigInt64Array.of(BigInt(sequence(ctx, inputs[0]).items.length)),
    },
  ],
  SequenceErase: (ctx, inputs) => {
    const s = sequence(ctx, inputs[0]);
    const at = position(ctx, optInput(ctx, inputs, 1), s.items.length, s.items.length - 1);
    return [{ ...s, items: s.items.filter((_, i) => i !== at) }];
  },
  SplitToSequence: (ctx, inputs) => {
    const x = input(ctx, inputs, 0);
    const splitT = optInput(ctx, inputs, 1);
    const axis = normAxis(ctx, attrInt(ctx.node, "axis", 0), x.shape.length);
    const dim = x.shape[axis]!;
    let sizes: number[];
    if (!splitT) sizes = new Array<number>(dim).fill(1);
    else if (splitT.shape.length === 0) {
      const c = intValues(ctx, splitT, "split")[0]!;
      if (c <= 0) fail(ctx, `split ${c} must be positive`);
      sizes = [];
      for (let s = 0; s < dim; s += c) sizes.push(Math.min(c, dim - s));
    } else sizes = intValues(ctx, splitT, "split");
    if (sizes.reduce((p, v) => p + v, 0) !== dim)
      fail(ctx, `split sizes [${sizes.join(",")}] do not add up to ${dim}`);
    const keep = attrInt(ctx.node, "keepdims", 1) !== 0 || splitT !== undefined;
    const st = strides(x.shape);
    let start = 0;
    const items = sizes.map((len) => {
      const shape = [...x.shape];
      shape[axis] = len;
      const out = alloc(ctx, x.dtype, shape);
      stridedCopy(x.data, start * st[axis]!, st, shape, out.data);
      start += len;
      return keep ? out : { ...out, shape: shape.filter((_, i) => i !== axis) };
    });
    return [{ kind: "sequence", elemDtype: x.dtype, items }];
  },
  ConcatFromSequence: (ctx, inputs) => {
    const s = sequence(ctx, inputs[0]);
    if (!s.items.length) fail(ctx, "cannot concatenate an empty sequence");
    const newAxis = attrInt(ctx.node, "new_axis", 0) !== 0;
    const first = s.items[0]!;
    const r = first.shape.length + (newAxis ? 1 : 0);
    const axis = normAxis(ctx, attrInt(ctx.node, "axis", 0), r);
    const parts = newAxis
      ? s.items.map((t) => ({
          ...t,
          shape: [...t.shape.slice(0, axis), 1, ...t.shape.slice(axis)],
        }))
      : s.items;
    return [concat(ctx, parts, axis)];
  },
  Optional: (ctx, inputs) => [inputs[0] ?? { kind: "optional-none" }],
  OptionalHasElement: (_ctx, inputs) => {
    const v = inputs[0];
    const has = v !== undefined && !("kind" in v && v.kind === "optional-none");
    return [{ dtype: DataType.BOOL, shape: [], data: Uint8Array.of(has ? 1 : 0) }];
  },
  OptionalGetElement: (ctx, inputs) => {
    const v = inputs[0];
    if (v === undefined || ("kind" in v && v.kind === "optional-none"))
      fail(ctx, "the optional holds no value");
    return [v];
  },
  SequenceMap: (ctx, inputs) => {
    const a = getAttr(ctx.node, "body");
    if (!a || a.type !== "GRAPH" || !a.value) fail(ctx, "attribute 'body' (a graph) is required");
    const body: Graph = a.value;
    const first = sequence(ctx, inputs[0]);
    const n = first.items.length;
    const outs: RTensor[][] = ctx.node.outputs.map(() => []);
    for (let i = 0; i < n; i++) {
      const args = inputs.map((v, k) => {
        if (v && "kind" in v && v.kind === "sequence") {
          if (v.items.length !== n)
            fail(ctx, `sequence input ${k} has ${v.items.length} items, ${n} expected`);
          return v.items[i]!;
        }
        if (!v) fail(ctx, `input ${k} is missing`);
        return v;
      });
      const res = ctx.runSubgraph(body, args);
      res.forEach((r, k) => {
        if (!isTensor(r)) fail(ctx, `body output ${k} must be a tensor`);
        outs[k]!.push(r);
      });
    }
    return outs.map((items, k) => {
      const t = body.outputs[k]?.type;
      const dt = items[0]?.dtype ?? (t && t.kind === "tensor" ? t.elemType : DataType.FLOAT);
      return { kind: "sequence", elemDtype: dt, items } as RValue;
    });
  },
};

function concat(ctx: KernelContext, xs: RTensor[], axis: number): RTensor {
  const first = xs[0]!;
  for (const t of xs)
    if (
      t.dtype !== first.dtype ||
      t.shape.length !== first.shape.length ||
      t.shape.some((d, i) => i !== axis && d !== first.shape[i])
    )
      fail(
        ctx,
        `cannot concatenate [${first.shape.join(",")}] and [${t.shape.join(",")}] on axis ${axis}`,
      );
  const shape = [...first.shape];
  shape[axis] = xs.reduce((p, t) => p + t.shape[axis]!, 0);
  const out = alloc(ctx, first.dtype, shape);
  const outer = prod(shape.slice(0, axis));
  const row = out.data.length / Math.max(outer, 1);
  const d = out.data as unknown as AnyStore;
  let col = 0;
  for (const t of xs) {
    const block = t.data.length / Math.max(outer, 1);
    const s = t.data as unknown as AnyStore;
    for (let o = 0; o < outer; o++)
      for (let j = 0; j < block; j++) d[o * row + col + j] = s[o * block + j];
    col += block;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Index ops

const OneHot: Kernel = (ctx, inputs) => {
  const idx = input(ctx, inputs, 0);
  const depth = Math.trunc(scalarNumber(ctx, input(ctx, inputs, 1), "depth"));
  const values = input(ctx, inputs, 2);
  if (values.data.length !== 2) fail(ctx, "values must hold [off, on]");
  const r = idx.shape.length + 1;
  const axis = normAxis(ctx, attrInt(ctx.node, "axis", -1), r);
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

const EyeLike: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  if (x.shape.length !== 2) fail(ctx, "input must be 2-D");
  const dtype = attrInt(ctx.node, "dtype", x.dtype);
  const k = attrInt(ctx.node, "k", 0);
  const [rows, cols] = x.shape as [number, number];
  const v = scratch(Float64Array, rows * cols);
  for (let i = 0; i < rows; i++) if (i + k >= 0 && i + k < cols) v[i * cols + i + k] = 1;
  return [fromFloat64(dtype, [rows, cols], v)];
};

const GatherND: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const idx = input(ctx, inputs, 1);
  const b = attrInt(ctx.node, "batch_dims", 0);
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
        let v = iv[(bi * perBatch + j) * last + k]!;
        if (v < -dim || v >= dim)
          fail(ctx, `index ${v} is out of range for axis ${b + k} of size ${dim}`);
        if (v < 0) v += dim;
        off += v * st[k]!;
      }
      for (let t = 0; t < slice; t++) d[o++] = s[off + t];
    }
  return [out];
};

function reducer(ctx: KernelContext): (a: number, b: number) => number {
  const r = attrString(ctx.node, "reduction", "none");
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
  const axis = normAxis(ctx, attrInt(ctx.node, "axis", 0), r);
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
          fail(ctx, `index ${c} is out of range for axis ${axis} of size ${dim}`);
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
        fail(ctx, `index ${iv[j * last + k]} is out of range for axis ${k}`);
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
  const k =
    ctx.opset < 10 ? attrInt(ctx.node, "k", 1) : intValues(ctx, input(ctx, inputs, 1), "k")[0]!;
  const axis = normAxis(ctx, attrInt(ctx.node, "axis", -1), x.shape.length);
  const largest = attrInt(ctx.node, "largest", 1) !== 0;
  const dim = x.shape[axis]!;
  if (k < 0 || k > dim) fail(ctx, `k = ${k} is out of range for axis ${axis} of size ${dim}`);
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
      order.sort((a, b) => {
        const d = largest ? at(b) - at(a) : at(a) - at(b);
        return d !== 0 && !Number.isNaN(d) ? d : a - b;
      });
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
  const tAxis = attrInt(ctx.node, "time_axis", 0);
  const bAxis = attrInt(ctx.node, "batch_axis", 1);
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

// ---------------------------------------------------------------------------------------------
// Layout

function depthSpace(toSpace: boolean): Kernel {
  return (ctx, inputs) => {
    const x = input(ctx, inputs, 0);
    if (x.shape.length !== 4) fail(ctx, "input must be 4-D (N, C, H, W)");
    const bs = attrInt(ctx.node, "blocksize", 0);
    if (bs <= 0) fail(ctx, "blocksize must be positive");
    const [n, c, h, w] = x.shape as [number, number, number, number];
    const crd = attrString(ctx.node, "mode", "DCR") === "CRD";
    let viewShape: number[];
    let perm: number[];
    let outShape: number[];
    if (toSpace) {
      if (c % (bs * bs)) fail(ctx, `channels ${c} are not divisible by blocksize² ${bs * bs}`);
      const cc = c / (bs * bs);
      viewShape = crd ? [n, cc, bs, bs, h, w] : [n, bs, bs, cc, h, w];
      perm = crd ? [0, 1, 4, 2, 5, 3] : [0, 3, 4, 1, 5, 2];
      outShape = [n, cc, h * bs, w * bs];
    } else {
      if (h % bs || w % bs) fail(ctx, `spatial size ${h}x${w} is not divisible by blocksize ${bs}`);
      viewShape = [n, c, h / bs, bs, w / bs, bs];
      perm = [0, 3, 5, 1, 2, 4];
      outShape = [n, c * bs * bs, h / bs, w / bs];
    }
    const st = strides(viewShape);
    const out = alloc(ctx, x.dtype, outShape);
    stridedCopy(
      x.data,
      0,
      perm.map((p) => st[p]!),
      perm.map((p) => viewShape[p]!),
      out.data,
    );
    return [out];
  };
}

// ---------------------------------------------------------------------------------------------
// Strings, windows, normalisation

const StringNormalizer: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  if (x.dtype !== DataType.STRING) fail(ctx, "input must be a string tensor");
  const action = attrString(ctx.node, "case_change_action", "NONE");
  const sensitive = attrInt(ctx.node, "is_case_sensitive", 0) !== 0;
  const stop = new Set((getAttr(ctx.node, "stopwords")?.value as string[] | undefined) ?? []);
  const stopLower = new Set([...stop].map((s) => s.toLowerCase()));
  const isStop = (s: string) => (sensitive ? stop.has(s) : stopLower.has(s.toLowerCase()));
  const change = (s: string) =>
    action === "LOWER" ? s.toLowerCase() : action === "UPPER" ? s.toUpperCase() : s;
  const strs = x.data as string[];
  const kept = strs.filter((s) => !isStop(s)).map(change);
  if (kept.length === 0) kept.push("");
  const shape = x.shape.length === 2 ? [1, kept.length] : [kept.length];
  return [{ dtype: DataType.STRING, shape, data: kept }];
};

function windowFn(make: (n: number, N: number) => number): Kernel {
  return (ctx, inputs) => {
    const size = Math.trunc(scalarNumber(ctx, input(ctx, inputs, 0), "size"));
    checkedCount(ctx, [size]);
    const periodic = attrInt(ctx.node, "periodic", 1) !== 0;
    const N = periodic ? size : size - 1;
    const v = scratch(Float64Array, size);
    for (let n = 0; n < size; n++) v[n] = make(n, N);
    return [fromFloat64(attrInt(ctx.node, "output_datatype", DataType.FLOAT), [size], v)];
  };
}

const MeanVarianceNormalization: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const axes = (attrInts(ctx.node, "axes") ?? [0, 2, 3]).map((a) =>
    normAxis(ctx, a, x.shape.length),
  );
  const v = toFloat64(x);
  const st = strides(x.shape);
  const groupOf = (p: number) => {
    let g = 0;
    for (let k = 0; k < x.shape.length; k++)
      if (!axes.includes(k)) g = g * x.shape[k]! + (Math.floor(p / st[k]!) % x.shape[k]!);
    return g;
  };
  const groups = prod(x.shape.filter((_, k) => !axes.includes(k)));
  const count = v.length / Math.max(groups, 1);
  const mean = scratch(Float64Array, groups);
  const sq = scratch(Float64Array, groups);
  for (let p = 0; p < v.length; p++) {
    const g = groupOf(p);
    mean[g]! += v[p]!;
    sq[g]! += v[p]! * v[p]!;
  }
  for (let p = 0; p < v.length; p++) {
    const g = groupOf(p);
    const m = mean[g]! / count;
    const variance = sq[g]! / count - m * m;
    v[p] = (v[p]! - m) / (Math.sqrt(Math.max(variance, 0)) + 1e-9);
  }
  return [fromFloat64(x.dtype, [...x.shape], v)];
};

const LRN: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const size = attrInt(ctx.node, "size", 0);
  const alpha = attrFloat(ctx.node, "alpha", 0.0001);
  const beta = attrFloat(ctx.node, "beta", 0.75);
  const bias = attrFloat(ctx.node, "bias", 1);
  const c = x.shape[1]!;
  const inner = prod(x.shape.slice(2));
  const v = toFloat64(x);
  const out = scratch(Float64Array, v.length);
  const lo = Math.floor((size - 1) / 2);
  const hi = Math.ceil((size - 1) / 2);
  for (let p = 0; p < v.length; p++) {
    const ch = Math.floor(p / inner) % c;
    let s = 0;
    for (let k = Math.max(0, ch - lo); k <= Math.min(c - 1, ch + hi); k++) {
      const e = v[p + (k - ch) * inner]!;
      s += e * e;
    }
    out[p] = v[p]! / Math.pow(bias + (alpha / size) * s, beta);
  }
  return [fromFloat64(x.dtype, [...x.shape], out)];
};

export const miscKernels: Record<string, Kernel> = {
  ...sequenceKernels,
  OneHot,
  EyeLike,
  GatherND,
  ScatterElements,
  Scatter: ScatterElements,
  ScatterND,
  Compress,
  TopK,
  NonZero,
  ReverseSequence,
  DepthToSpace: depthSpace(true),
  SpaceToDepth: depthSpace(false),
  StringNormalizer,
  HannWindow: windowFn((n, N) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / N)),
  HammingWindow: windowFn((n, N) => 25 / 46 - (21 / 46) * Math.cos((2 * Math.PI * n) / N)),
  BlackmanWindow: windowFn(
    (n, N) => 0.42 - 0.5 * Math.cos((2 * Math.PI * n) / N) + 0.08 * Math.cos((4 * Math.PI * n) / N),
  ),
  MeanVarianceNormalization,
  LRN,
};
