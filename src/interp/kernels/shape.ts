// Kernels that move data rather than compute it: Constant, Identity, Shape, Size, Reshape,
// Squeeze/Unsqueeze, Flatten, Transpose, Expand, Slice, Pad, Concat, Split, Gather,
// GatherElements, Tile, ConstantOfShape, Range, CumSum, EyeLike, DepthToSpace/SpaceToDepth.
// Most are one strided copy.

import { attrInt, attrInts, attrIntText, getAttr, int64sText } from "../../ir/attributes.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { fromIRTensor, sparseToDense } from "../ir-tensors.js";
import {
  allocStorage,
  encodeHalf,
  fromFloat64,
  isHalfType,
  toFloat32,
  scratch,
} from "../tensor.js";
import type { Kernel, KernelContext, RTensor, RValue, Storage } from "../types.js";
import {
  alloc,
  broadcastIndex,
  broadcastShapes,
  checkedCount,
  exactValues,
  indexText,
  fail,
  input,
  intValues,
  isTensor,
  normAxis,
  optInput,
  scalarNumber,
  strides,
} from "./util.js";
import { hasAttribute, hasInput, inputIndex } from "../../schema/facts.js";
import { opVersion } from "./version.js";
import { floatAttr, intAttr, stringAttr } from "./attrs.js";

type AnyStore = { [i: number]: unknown; length: number };

/**
 * Copies from `src` into `dst` (row-major over `outShape`): element j of the output reads
 * src[offset + Σ coord_k · step_k]. Steps may be 0 (broadcast) or negative (reversed).
 */
export function stridedCopy(
  src: Storage,
  offset: number,
  steps: readonly number[],
  outShape: readonly number[],
  dst: Storage,
): void {
  const s = src as unknown as AnyStore;
  const d = dst as unknown as AnyStore;
  const n = dst.length;
  if (n === 0) return;
  const rank = outShape.length;
  if (rank === 0) {
    d[0] = s[offset];
    return;
  }
  const last = rank - 1;
  const inner = outShape[last]!;
  const innerStep = steps[last]!;
  const counter = new Array<number>(rank).fill(0);
  let base = offset;
  let o = 0;
  for (;;) {
    let idx = base;
    for (let j = 0; j < inner; j++) {
      d[o++] = s[idx];
      idx += innerStep;
    }
    let k = last - 1;
    while (k >= 0) {
      counter[k]!++;
      base += steps[k]!;
      if (counter[k]! < outShape[k]!) break;
      base -= steps[k]! * counter[k]!;
      counter[k] = 0;
      k--;
    }
    if (k < 0 || o >= n) return;
  }
}

// ---------------------------------------------------------------------------------------------

const Constant: Kernel = (ctx) => {
  const a = ctx.node.attributes.find(
    (x) => x.name.startsWith("value") || x.name === "sparse_value",
  );
  if (!a)
    fail(ctx, "needs one of the attributes value, value_float(s), value_int(s), value_string(s)");
  switch (a.name) {
    case "value":
      if (a.type !== "TENSOR" || !a.value) fail(ctx, "attribute 'value' must be a tensor");
      return [fromIRTensor(a.value, ctx.label)];
    case "value_float":
      if (a.type !== "FLOAT") break;
      return [{ dtype: DataType.FLOAT, shape: [], data: Float32Array.of(a.value!) }];
    case "value_floats":
      if (a.type !== "FLOATS") break;
      return [
        { dtype: DataType.FLOAT, shape: [a.value!.length], data: Float32Array.from(a.value!) },
      ];
    case "value_int":
      if (a.type !== "INT") break;
      return [{ dtype: DataType.INT64, shape: [], data: BigInt64Array.of(a.value!) }];
    case "value_ints":
      if (a.type !== "INTS") break;
      return [
        { dtype: DataType.INT64, shape: [a.value!.length], data: BigInt64Array.from(a.value!) },
      ];
    case "value_string":
      if (a.type !== "STRING") break;
      return [{ dtype: DataType.STRING, shape: [], data: [a.value!] }];
    case "value_strings":
      if (a.type !== "STRINGS") break;
      return [{ dtype: DataType.STRING, shape: [a.value!.length], data: [...a.value!] }];
    case "sparse_value":
      if (a.type !== "SPARSE_TENSOR") break;
      return [sparseToDense(a.value!, ctx.label)];
  }
  return fail(ctx, `attribute '${a.name}' has an unexpected type ${a.type}`);
};

const Identity: Kernel = (ctx, inputs) => {
  const v = inputs[0];
  if (v === undefined) fail(ctx, "input 0 is required but was not given");
  return [v];
};

const Shape: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const r = x.shape.length;
  const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + r : v, 0), r);
  const start = clamp(intAttr(ctx, "start", { without: 0 }));
  const end = clamp(attrInt(ctx.node, "end", r));
  const dims = x.shape.slice(start, Math.max(start, end));
  return [
    {
      dtype: DataType.INT64,
      shape: [dims.length],
      data: BigInt64Array.from(dims, (d) => BigInt(d)),
    },
  ];
};

const Size: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  return [{ dtype: DataType.INT64, shape: [], data: BigInt64Array.of(BigInt(x.data.length)) }];
};

// ---------------------------------------------------------------------------------------------
// Reshaping

const Reshape: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const v = opVersion(ctx);
  const shapeT = hasInput(v, "shape") ? input(ctx, inputs, inputIndex(v, "shape")) : undefined;
  const spec = shapeT ? intValues(ctx, shapeT, "shape") : (attrInts(ctx.node, "shape") ?? []);
  // The model's values, which the messages quote (spec saturates past 2^53).
  const specText = int64sText(
    spec,
    shapeT ? exactValues(shapeT) : (getAttr(ctx.node, "shape")?.value as bigint[] | undefined),
  );
  const allowZero = intAttr(ctx, "allowzero", { without: 0 }) !== 0;
  const shape = spec.map((d, i) => {
    if (d === 0 && !allowZero) {
      if (i >= x.shape.length)
        fail(ctx, `shape entry ${i} is 0 (copy) but the input has rank ${x.shape.length}`);
      return x.shape[i]!;
    }
    return d;
  });
  const inferred = shape.filter((d) => d === -1).length;
  if (inferred > 1) fail(ctx, `shape [${specText}] has more than one -1`);
  if (shape.some((d) => d < -1)) fail(ctx, `shape [${specText}] has a negative dimension`);
  const known = shape.reduce((p, d) => (d === -1 ? p : p * d), 1);
  const n = x.data.length;
  if (inferred) {
    if (known === 0 || n % known !== 0)
      fail(ctx, `cannot reshape ${n} elements of shape [${x.shape.join(",")}] into [${specText}]`);
    shape[shape.indexOf(-1)] = n / known;
  } else if (known !== n)
    fail(ctx, `cannot reshape ${n} elements of shape [${x.shape.join(",")}] into [${specText}]`);
  return [{ dtype: x.dtype, shape, data: x.data }];
};

/** Squeeze/Unsqueeze axes: the attribute, or the input in versions that have one. */
function axesFrom(ctx: KernelContext, inputs: (RValue | undefined)[]): number[] | undefined {
  const i = inputIndex(opVersion(ctx), "axes");
  if (i < 0) return attrInts(ctx.node, "axes");
  const t = optInput(ctx, inputs, i);
  return t ? intValues(ctx, t, "axes") : undefined;
}

/** The model's own values of axesFrom's axes, which messages quote. */
function axesExact(ctx: KernelContext, inputs: (RValue | undefined)[]) {
  const i = inputIndex(opVersion(ctx), "axes");
  if (i < 0) return getAttr(ctx.node, "axes")?.value as bigint[] | undefined;
  const t = inputs[i];
  return t && isTensor(t) ? exactValues(t) : undefined;
}

const Unsqueeze: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const axes = axesFrom(ctx, inputs);
  if (!axes) fail(ctx, "axes are required");
  const rank = x.shape.length + axes.length;
  const exact = axesExact(ctx, inputs);
  const norm = axes.map((a, i) => normAxis(ctx, a, rank, "axis", exact?.[i]));
  if (new Set(norm).size !== norm.length)
    fail(ctx, `axes [${int64sText(axes, exact)}] repeat an axis`);
  const shape: number[] = [];
  let j = 0;
  for (let i = 0; i < rank; i++) shape.push(norm.includes(i) ? 1 : x.shape[j++]!);
  return [{ dtype: x.dtype, shape, data: x.data }];
};

const Squeeze: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const axes = axesFrom(ctx, inputs);
  const r = x.shape.length;
  let drop: Set<number>;
  if (!axes) drop = new Set(x.shape.flatMap((d, i) => (d === 1 ? [i] : [])));
  else {
    const exact = axesExact(ctx, inputs);
    drop = new Set(axes.map((a, i) => normAxis(ctx, a, r, "axis", exact?.[i])));
    for (const a of drop)
      if (x.shape[a] !== 1)
        fail(ctx, `cannot squeeze axis ${a} of size ${x.shape[a]} (shape [${x.shape.join(",")}])`);
  }
  return [{ dtype: x.dtype, shape: x.shape.filter((_, i) => !drop.has(i)), data: x.data }];
};

const Flatten: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const r = x.shape.length;
  let axis = intAttr(ctx, "axis");
  if (axis < -r || axis > r)
    fail(
      ctx,
      `axis ${attrIntText(ctx.node, "axis", axis)} is out of range for rank ${r} (valid: [${-r}, ${r}])`,
    );
  if (axis < 0) axis += r;
  const outer = x.shape.slice(0, axis).reduce((p, d) => p * d, 1);
  const inner = x.shape.slice(axis).reduce((p, d) => p * d, 1);
  return [{ dtype: x.dtype, shape: [outer, inner], data: x.data }];
};

const Transpose: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const r = x.shape.length;
  const perm = attrInts(ctx.node, "perm") ?? x.shape.map((_, i) => r - 1 - i);
  const exact = getAttr(ctx.node, "perm")?.value as bigint[] | undefined;
  const normed = () => perm.map((p, i) => normAxis(ctx, p, r, "perm entry", exact?.[i]));
  if (perm.length !== r || new Set(normed()).size !== r)
    fail(ctx, `perm [${int64sText(perm, exact)}] is not a permutation of rank ${r}`);
  const st = strides(x.shape);
  const shape = perm.map((p) => x.shape[p]!);
  const out = alloc(ctx, x.dtype, shape);
  stridedCopy(
    x.data,
    0,
    perm.map((p) => st[p]!),
    shape,
    out.data,
  );
  return [out];
};

const Expand: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const shapeT = input(ctx, inputs, 1);
  const target = intValues(ctx, shapeT, "shape");
  if (target.some((d) => d < 0))
    fail(ctx, `shape [${int64sText(target, exactValues(shapeT))}] has a negative dimension`);
  const shape = broadcastShapes(ctx, [x.shape, target]);
  const out = alloc(ctx, x.dtype, shape);
  broadcastInto(x, out);
  return [out];
};

/** Fills `out` with `x` broadcast to out's shape. */
function broadcastInto(x: RTensor, out: RTensor): void {
  const rank = out.shape.length;
  const st = strides(x.shape);
  const steps = out.shape.map((_, i) => {
    const k = i - (rank - x.shape.length);
    return k < 0 || x.shape[k] === 1 ? 0 : st[k]!;
  });
  stridedCopy(x.data, 0, steps, out.shape, out.data);
}

const Tile: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const repsT = input(ctx, inputs, 1);
  const reps = intValues(ctx, repsT, "repeats");
  const r = x.shape.length;
  if (reps.length !== r) fail(ctx, `repeats has ${reps.length} entries, the input has rank ${r}`);
  if (reps.some((v) => v < 0))
    fail(ctx, `repeats [${int64sText(reps, exactValues(repsT))}] has a negative entry`);
  const shape = x.shape.map((d, i) => d * reps[i]!);
  const out = alloc(ctx, x.dtype, shape);
  // View the output as [rep0, d0, rep1, d1, ...] and copy with step 0 along the rep axes.
  const st = strides(x.shape);
  const viewShape = x.shape.flatMap((d, i) => [reps[i]!, d]);
  const steps = x.shape.flatMap((_, i) => [0, st[i]!]);
  stridedCopy(x.data, 0, steps, viewShape, out.data);
  return [out];
};

// ---------------------------------------------------------------------------------------------
// Slice

const INT64_MAX_SAFE = Number.MAX_SAFE_INTEGER;

const Slice: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const r = x.shape.length;
  let starts: number[];
  let ends: number[];
  let axes: number[] | undefined;
  let stepsIn: number[] | undefined;
  let exactAxes: ArrayLike<bigint | number> | undefined;
  if (!hasInput(opVersion(ctx), "starts")) {
    starts = attrInts(ctx.node, "starts") ?? fail(ctx, "attribute 'starts' is required");
    ends = attrInts(ctx.node, "ends") ?? fail(ctx, "attribute 'ends' is required");
    axes = attrInts(ctx.node, "axes");
    exactAxes = getAttr(ctx.node, "axes")?.value as bigint[] | undefined;
  } else {
    starts = intValues(ctx, input(ctx, inputs, 1), "starts");
    ends = intValues(ctx, input(ctx, inputs, 2), "ends");
    const a = optInput(ctx, inputs, 3);
    const s = optInput(ctx, inputs, 4);
    axes = a ? intValues(ctx, a, "axes") : undefined;
    exactAxes = a && exactValues(a);
    stepsIn = s ? intValues(ctx, s, "steps") : undefined;
  }
  if (ends.length !== starts.length)
    fail(ctx, `starts has ${starts.length} entries but ends has ${ends.length}`);
  axes ??= starts.map((_, i) => i);
  if (axes.length !== starts.length)
    fail(ctx, `axes has ${axes.length} entries but starts has ${starts.length}`);
  if (stepsIn && stepsIn.length !== starts.length)
    fail(ctx, `steps has ${stepsIn.length} entries but starts has ${starts.length}`);
  const begin = new Array<number>(r).fill(0);
  const step = new Array<number>(r).fill(1);
  const shape = [...x.shape];
  const seen = new Set<number>();
  axes.forEach((a0, i) => {
    const a = normAxis(ctx, a0, r, "axis", exactAxes?.[i]);
    if (seen.has(a)) fail(ctx, `axes [${int64sText(axes!, exactAxes)}] repeat axis ${a}`);
    seen.add(a);
    const dim = x.shape[a]!;
    const stp = stepsIn ? stepsIn[i]! : 1;
    if (stp === 0) fail(ctx, `step for axis ${a} is 0`);
    let s = starts[i]!;
    let e = ends[i]!;
    if (s < 0) s += dim;
    if (e < 0 && e > -INT64_MAX_SAFE) e += dim;
    if (stp > 0) {
      s = Math.min(Math.max(s, 0), dim);
      e = Math.min(Math.max(e, 0), dim);
      shape[a] = Math.max(0, Math.ceil((e - s) / stp));
    } else {
      s = Math.min(Math.max(s, 0), dim - 1);
      e = Math.min(Math.max(e, -1), dim - 1);
      shape[a] = Math.max(0, Math.ceil((e - s) / stp));
    }
    begin[a] = s;
    step[a] = stp;
  });
  const st = strides(x.shape);
  const out = alloc(ctx, x.dtype, shape);
  if (out.data.length === 0) return [out];
  const offset = begin.reduce((p, b, i) => p + b * st[i]!, 0);
  stridedCopy(
    x.data,
    offset,
    step.map((s, i) => s * st[i]!),
    shape,
    out.data,
  );
  return [out];
};

// ---------------------------------------------------------------------------------------------
// Pad

const Pad: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const r = x.shape.length;
  const mode = stringAttr(ctx, "mode");
  let pads: number[];
  let value: RTensor | number | undefined;
  let axes: number[] | undefined;
  const padsAttr = getAttr(ctx.node, "pads") ?? getAttr(ctx.node, "paddings");
  let exactPads = padsAttr?.value as ArrayLike<bigint | number> | undefined;
  const v = opVersion(ctx);
  if (!hasInput(v, "pads")) {
    pads =
      attrInts(ctx.node, "pads") ??
      attrInts(ctx.node, "paddings") ??
      fail(ctx, "attribute 'pads' is required");
    value = floatAttr(ctx, "value");
  } else {
    pads = intValues(ctx, input(ctx, inputs, 1), "pads");
    exactPads = exactValues(input(ctx, inputs, 1));
    value = optInput(ctx, inputs, 2);
    const ai = inputIndex(v, "axes");
    const a = ai >= 0 ? optInput(ctx, inputs, ai) : undefined;
    axes = a ? intValues(ctx, a, "axes") : undefined;
  }
  const ax = axes ? axes.map((a) => normAxis(ctx, a, r)) : x.shape.map((_, i) => i);
  if (pads.length !== 2 * ax.length)
    fail(ctx, `pads has ${pads.length} entries, ${2 * ax.length} expected`);
  const before = new Array<number>(r).fill(0);
  const after = new Array<number>(r).fill(0);
  ax.forEach((a, i) => {
    before[a] = pads[i]!;
    after[a] = pads[i + ax.length]!;
  });
  const shape = x.shape.map((d, i) => d + before[i]! + after[i]!);
  if (shape.some((d) => d < 0))
    fail(
      ctx,
      `pads [${int64sText(pads, exactPads)}] remove more than the input's shape [${x.shape.join(",")}]`,
    );
  const out = alloc(ctx, x.dtype, shape);
  const n = out.data.length;
  if (n === 0) return [out];
  if (mode !== "constant" && x.data.length === 0) fail(ctx, `${mode} padding of an empty input`);
  // Per axis: output coordinate → input coordinate, or -1 for a padded position.
  const maps = shape.map((len, a) => {
    const dim = x.shape[a]!;
    const m = scratch(Int32Array, len);
    for (let j = 0; j < len; j++) {
      let i = j - before[a]!;
      if (i < 0 || i >= dim) {
        if (mode === "constant") i = -1;
        else if (mode === "edge") i = i < 0 ? 0 : dim - 1;
        else if (mode === "reflect") {
          if (dim === 1) i = 0;
          else {
            const period = 2 * (dim - 1);
            i = ((i % period) + period) % period;
            if (i >= dim) i = period - i;
          }
        } else if (mode === "wrap") i = ((i % dim) + dim) % dim;
        else fail(ctx, `pad mode '${mode}' is not supported`);
      }
      m[j] = i;
    }
    return m;
  });
  const d = out.data as unknown as AnyStore;
  const s = x.data as unknown as AnyStore;
  let fill: unknown;
  if (typeof value === "number") fill = constantLike(x.dtype, value);
  else if (value && value.data.length > 0) {
    if (value.dtype !== x.dtype)
      fail(
        ctx,
        `constant_value has type ${dtypeName(value.dtype)}, the input ${dtypeName(x.dtype)}`,
      );
    fill = value.data[0];
  } else fill = constantLike(x.dtype, 0);
  const st = strides(x.shape);
  const coord = new Array<number>(r).fill(0);
  for (let o = 0; o < n; o++) {
    let idx = 0;
    for (let k = 0; k < r; k++) {
      const m = maps[k]![coord[k]!]!;
      if (m < 0) {
        idx = -1;
        break;
      }
      idx += m * st[k]!;
    }
    d[o] = idx < 0 ? fill : s[idx];
    for (let k = r - 1; k >= 0; k--) {
      if (++coord[k]! < shape[k]!) break;
      coord[k] = 0;
    }
  }
  return [out];
};

/** A number as a storage element of a dtype. */
function constantLike(dtype: number, v: number): unknown {
  const one = allocStorage(dtype, 1);
  if (isHalfType(dtype)) return encodeHalf(dtype, [v])[0];
  if (one instanceof BigInt64Array || one instanceof BigUint64Array) return BigInt(Math.trunc(v));
  if (Array.isArray(one)) return String(v);
  (one as Float64Array)[0] = v;
  return one[0];
}

// ---------------------------------------------------------------------------------------------
// Concat, Split, Gather

/** Concat-1's axis is optional and 1 when absent (ONNX's text; the schema gives no default). */
const CONCAT_1_AXIS_DEFAULT = 1;

const Concat: Kernel = (ctx, inputs) => {
  const xs = inputs.map((_, i) => input(ctx, inputs, i));
  if (xs.length === 0) fail(ctx, "needs at least one input");
  const first = xs[0]!;
  const r = first.shape.length;
  if (r === 0) fail(ctx, "cannot concatenate rank-0 tensors");
  const axis = normAxis(ctx, intAttr(ctx, "axis", { without: CONCAT_1_AXIS_DEFAULT }), r);
  for (const t of xs) {
    if (t.dtype !== first.dtype)
      fail(
        ctx,
        `inputs have different types (${dtypeName(first.dtype)} and ${dtypeName(t.dtype)})`,
      );
    if (t.shape.length !== r || t.shape.some((d, i) => i !== axis && d !== first.shape[i]))
      fail(
        ctx,
        `input shapes [${first.shape.join(",")}] and [${t.shape.join(",")}] differ outside axis ${axis}`,
      );
  }
  const shape = [...first.shape];
  shape[axis] = xs.reduce((p, t) => p + t.shape[axis]!, 0);
  const out = alloc(ctx, first.dtype, shape);
  const outer = shape.slice(0, axis).reduce((p, d) => p * d, 1);
  const innerOut = out.data.length / Math.max(outer, 1);
  const d = out.data as unknown as AnyStore;
  let col = 0;
  for (const t of xs) {
    const block = t.data.length / Math.max(outer, 1);
    if (block === 0) continue;
    const s = t.data as unknown as AnyStore;
    if (ArrayBuffer.isView(d) && ArrayBuffer.isView(s)) {
      // Typed arrays of one type: block copies.
      const dv = d as unknown as Float32Array;
      const sv = s as unknown as Float32Array;
      for (let o = 0; o < outer; o++)
        dv.set(sv.subarray(o * block, (o + 1) * block), o * innerOut + col);
    } else
      for (let o = 0; o < outer; o++) {
        const dst = o * innerOut + col;
        const src = o * block;
        for (let j = 0; j < block; j++) d[dst + j] = s[src + j];
      }
    col += block;
  }
  return [out];
};

const Split: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const r = x.shape.length;
  // Split-1 states no default axis; it splits axis 0 as the later versions do.
  const axis = normAxis(ctx, intAttr(ctx, "axis", { without: 0 }), r);
  const dim = x.shape[axis]!;
  const count = ctx.node.outputs.length;
  let sizes: number[] | undefined;
  let exactSizes = getAttr(ctx.node, "split")?.value as ArrayLike<bigint | number> | undefined;
  const v = opVersion(ctx);
  if (!hasAttribute(v, "split")) {
    const s = optInput(ctx, inputs, inputIndex(v, "split"));
    sizes = s ? intValues(ctx, s, "split") : undefined;
    exactSizes = s && exactValues(s);
  } else
    sizes =
      attrInts(ctx.node, "split") ??
      (inputs[1] ? intValues(ctx, input(ctx, inputs, 1), "split") : undefined);
  if (!sizes) {
    const numOutputs = attrInt(ctx.node, "num_outputs", count);
    const chunk = Math.ceil(dim / numOutputs);
    sizes = Array.from({ length: numOutputs }, (_, i) =>
      Math.max(0, Math.min(chunk, dim - i * chunk)),
    );
    // With num_outputs (version 18) the last part may be smaller; before, parts are equal.
    if (!hasAttribute(v, "num_outputs") && dim % numOutputs !== 0)
      fail(ctx, `axis ${axis} of size ${dim} does not split evenly into ${numOutputs}`);
  }
  if (sizes.reduce((p, v) => p + v, 0) !== dim)
    fail(ctx, `split sizes [${int64sText(sizes, exactSizes)}] do not add up to ${dim}`);
  const st = strides(x.shape);
  let start = 0;
  return sizes.map((len) => {
    const shape = [...x.shape];
    shape[axis] = len;
    const out = alloc(ctx, x.dtype, shape);
    stridedCopy(x.data, start * st[axis]!, st, shape, out.data);
    start += len;
    return out;
  });
};

const Gather: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const idx = input(ctx, inputs, 1);
  const r = x.shape.length;
  const axis = normAxis(ctx, intAttr(ctx, "axis"), r);
  const dim = x.shape[axis]!;
  const vals = intValues(ctx, idx, "indices");
  const ind = vals.map((v, j) => {
    if (v < -dim || v >= dim)
      fail(ctx, `index ${indexText(idx, vals, j)} is out of range for axis ${axis} of size ${dim}`);
    return v < 0 ? v + dim : v;
  });
  const shape = [...x.shape.slice(0, axis), ...idx.shape, ...x.shape.slice(axis + 1)];
  const out = alloc(ctx, x.dtype, shape);
  const outer = x.shape.slice(0, axis).reduce((p, d) => p * d, 1);
  const inner = x.shape.slice(axis + 1).reduce((p, d) => p * d, 1);
  const s = x.data as unknown as AnyStore;
  const d = out.data as unknown as AnyStore;
  let o = 0;
  for (let a = 0; a < outer; a++)
    for (const i of ind) {
      const base = (a * dim + i) * inner;
      for (let j = 0; j < inner; j++) d[o++] = s[base + j];
    }
  return [out];
};

const GatherElements: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const idx = input(ctx, inputs, 1);
  const r = x.shape.length;
  const axis = normAxis(ctx, intAttr(ctx, "axis"), r);
  if (idx.shape.length !== r) fail(ctx, `indices have rank ${idx.shape.length}, data rank ${r}`);
  const ind = intValues(ctx, idx, "indices");
  const out = alloc(ctx, x.dtype, [...idx.shape]);
  const st = strides(x.shape);
  const ist = strides(idx.shape);
  const dim = x.shape[axis]!;
  const s = x.data as unknown as AnyStore;
  const d = out.data as unknown as AnyStore;
  for (let o = 0; o < ind.length; o++) {
    let rem = o;
    let off = 0;
    for (let k = 0; k < r; k++) {
      const c = Math.floor(rem / ist[k]!);
      rem -= c * ist[k]!;
      if (k === axis) {
        let v = ind[o]!;
        if (v < -dim || v >= dim)
          fail(
            ctx,
            `index ${indexText(idx, ind, o)} is out of range for axis ${axis} of size ${dim}`,
          );
        if (v < 0) v += dim;
        off += v * st[k]!;
      } else off += c * st[k]!;
    }
    d[o] = s[off];
  }
  return [out];
};

// ---------------------------------------------------------------------------------------------
// Generators

const ConstantOfShape: Kernel = (ctx, inputs) => {
  const shapeT = input(ctx, inputs, 0);
  const shape = intValues(ctx, shapeT, "shape");
  if (shape.some((d) => d < 0))
    fail(ctx, `shape [${int64sText(shape, exactValues(shapeT))}] has a negative dimension`);
  const a = getAttr(ctx.node, "value");
  let value: RTensor = { dtype: DataType.FLOAT, shape: [1], data: new Float32Array(1) };
  if (a && a.type === "TENSOR" && a.value) value = fromIRTensor(a.value, ctx.label);
  if (value.data.length !== 1) fail(ctx, "attribute 'value' must hold exactly one element");
  const out = alloc(ctx, value.dtype, shape);
  const d = out.data as unknown as { fill(v: unknown): void };
  d.fill(value.data[0]);
  return [out];
};

const Range: Kernel = (ctx, inputs) => {
  const [start, limit, delta] = [0, 1, 2].map((i) => input(ctx, inputs, i));
  const dtype = start!.dtype;
  if (limit!.dtype !== dtype || delta!.dtype !== dtype)
    fail(ctx, "start, limit and delta must have one type");
  if (dtype === DataType.INT64 || dtype === DataType.UINT64) {
    const s = start!.data[0] as bigint;
    const l = limit!.data[0] as bigint;
    const dl = delta!.data[0] as bigint;
    if (dl === 0n) fail(ctx, "delta is 0");
    const span = l - s;
    let count = span / dl + (span % dl !== 0n ? 1n : 0n);
    if (count < 0n) count = 0n;
    const n = Number(count);
    const out = alloc(ctx, dtype, [n]);
    const d = out.data as BigInt64Array;
    for (let i = 0; i < n; i++) d[i] = s + BigInt(i) * dl;
    return [out];
  }
  const s = scalarNumber(ctx, start!, "start");
  const l = scalarNumber(ctx, limit!, "limit");
  const dl = scalarNumber(ctx, delta!, "delta");
  if (dl === 0) fail(ctx, "delta is 0");
  const n = Math.max(0, Math.ceil((l - s) / dl));
  if (!Number.isFinite(n)) fail(ctx, `range from ${s} to ${l} by ${dl} is infinite`);
  checkedCount(ctx, [n]);
  const vals = scratch(Float64Array, n);
  if (dtype === DataType.FLOAT) {
    // Accumulate in float32 steps as the reference does (start + i*delta differs in the last bit).
    let v = Math.fround(s);
    for (let i = 0; i < n; i++) {
      vals[i] = v;
      v = Math.fround(v + dl);
    }
  } else for (let i = 0; i < n; i++) vals[i] = s + i * dl;
  const out = alloc(ctx, dtype, [n]);
  if (isHalfType(dtype)) out.data = encodeHalf(dtype, vals);
  else (out.data as Float64Array).set(vals);
  return [out];
};

// ---------------------------------------------------------------------------------------------
// CumSum

const CumSum: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const axisT = input(ctx, inputs, 1);
  const r = x.shape.length;
  if (r === 0) fail(ctx, "input must have rank at least 1");
  const axis = normAxis(ctx, scalarNumber(ctx, axisT, "axis"), r);
  const exclusive = intAttr(ctx, "exclusive") !== 0;
  const reverse = intAttr(ctx, "reverse") !== 0;
  const dim = x.shape[axis]!;
  const inner = x.shape.slice(axis + 1).reduce((p, d) => p * d, 1);
  const outer = x.shape.slice(0, axis).reduce((p, d) => p * d, 1);
  const n = x.data.length;
  const half = isHalfType(x.dtype);
  const src = (half ? toFloat32(x) : x.data) as Float64Array | BigInt64Array;
  if (Array.isArray(x.data) || x.dtype === DataType.BOOL)
    fail(ctx, `CumSum does not accept ${dtypeName(x.dtype)} input`);
  const big = src instanceof BigInt64Array || src instanceof BigUint64Array;
  // float32 accumulates in float32 (the reference's numpy cumsum does), float64 in float64.
  const outStore = (half ? scratch(Float32Array, n) : allocStorage(x.dtype, n)) as Float64Array &
    BigInt64Array;
  const acc = (half ? new Float32Array(1) : allocStorage(x.dtype, 1)) as Float64Array &
    BigInt64Array;
  for (let o = 0; o < outer; o++)
    for (let i = 0; i < inner; i++) {
      acc[0] = big ? (0n as never) : (0 as never);
      for (let t = 0; t < dim; t++) {
        const k = reverse ? dim - 1 - t : t;
        const idx = (o * dim + k) * inner + i;
        if (exclusive) {
          outStore[idx] = acc[0] as never;
          acc[0] = ((acc[0] as number) + (src[idx] as number)) as never;
        } else {
          acc[0] = ((acc[0] as number) + (src[idx] as number)) as never;
          outStore[idx] = acc[0] as never;
        }
      }
    }
  const data: Storage = half ? encodeHalf(x.dtype, outStore as Float64Array) : outStore;
  return [{ dtype: x.dtype, shape: [...x.shape], data }];
};

const EyeLike: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  if (x.shape.length !== 2) fail(ctx, "input must be 2-D");
  const dtype = attrInt(ctx.node, "dtype", x.dtype);
  const k = intAttr(ctx, "k");
  const [rows, cols] = x.shape as [number, number];
  const v = scratch(Float64Array, rows * cols);
  for (let i = 0; i < rows; i++) if (i + k >= 0 && i + k < cols) v[i * cols + i + k] = 1;
  return [fromFloat64(dtype, [rows, cols], v)];
};

// ---------------------------------------------------------------------------------------------
// Layout

function depthSpace(toSpace: boolean): Kernel {
  return (ctx, inputs) => {
    const x = input(ctx, inputs, 0);
    if (x.shape.length !== 4) fail(ctx, "input must be 4-D (N, C, H, W)");
    const bs = intAttr(ctx, "blocksize");
    if (bs <= 0) fail(ctx, "blocksize must be positive");
    const [n, c, h, w] = x.shape as [number, number, number, number];
    const crd = stringAttr(ctx, "mode", { without: "DCR" }) === "CRD";
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

export const shapeKernels: Record<string, Kernel> = {
  Constant,
  Identity,
  Shape,
  Size,
  Reshape,
  Unsqueeze,
  Squeeze,
  Flatten,
  Transpose,
  Expand,
  Tile,
  Slice,
  Pad,
  Concat,
  Split,
  Gather,
  GatherElements,
  ConstantOfShape,
  Range,
  CumSum,
  EyeLike,
  DepthToSpace: depthSpace(true),
  SpaceToDepth: depthSpace(false),
};
