// Sequences and optionals: SequenceEmpty/Construct/Insert/At/Length/Erase, SplitToSequence,
// ConcatFromSequence, SequenceMap (a body run per item), Optional, OptionalHasElement,
// OptionalGetElement.

import { attrInt, getAttr } from "../../ir/attributes.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType, type Graph } from "../../ir/types.js";
import type { BodyKernel, Kernel, KernelContext, RTensor, RValue } from "../types.js";
import { stridedCopy } from "./shape.js";
import { alloc, fail, input, intValues, isTensor, normAxis, optInput, strides } from "./util.js";
import { intAttr } from "./attrs.js";

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

export const sequenceKernels: Record<string, Kernel> = {
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
    const axis = normAxis(ctx, intAttr(ctx, "axis"), x.shape.length);
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
    const keep = intAttr(ctx, "keepdims") !== 0 || splitT !== undefined;
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
    const newAxis = intAttr(ctx, "new_axis") !== 0;
    const first = s.items[0]!;
    const r = first.shape.length + (newAxis ? 1 : 0);
    const axis = normAxis(ctx, intAttr(ctx, "axis"), r);
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
};

/** A body run per item (yielded to the executor, as control.ts's kernels do). */
const SequenceMap: BodyKernel = function* (ctx, inputs) {
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
    const res = yield { graph: body, inputs: args };
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
};

/** The sequence kernels with a body. */
export const sequenceBodyKernels: Record<string, BodyKernel> = { SequenceMap };

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
