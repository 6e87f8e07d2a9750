// Ops that take parts of tensors or join them: Slice, Pad, Concat, Split, Gather,
// GatherElements, the Scatter ops, NonZero.

import { int64sText } from "../../ir/attributes.js";
import { DataType, type Dim } from "../../ir/types.js";
import { hasAttribute, hasInput } from "../../schema/facts.js";
import { dimAdd, dimMin } from "../dim-expr.js";
import { formatShape, isTensor } from "../types.js";
import * as R from "./common.js";

/** Length of a slice of a dimension, as Slice computes it. */
function sliceLength(d: number, start: number, end: number, step: number): number {
  if (start < 0) start += d;
  if (end < 0) end += d;
  if (step > 0) {
    start = Math.min(Math.max(start, 0), d);
    end = Math.min(Math.max(end, 0), d);
    return Math.max(0, Math.ceil((end - start) / step));
  }
  start = Math.min(Math.max(start, 0), d - 1);
  end = Math.min(Math.max(end, -1), d - 1);
  return Math.max(0, Math.ceil((start - end) / -step));
}

/** The size of `[0:e]` (e ≥ 0) on an axis of symbolic size d: min(d, e), d itself when e is "to the end". */
const headOf = (d: Dim, e: number): Dim =>
  e >= Number.MAX_SAFE_INTEGER || d === null ? d : dimMin(d, e);

/**
 * The output shape of a Slice whose ends are partly symbolic (sizes known by data propagation):
 * an axis sliced `[0:e]` with step 1 has min(e, d) entries (d its size), every other sliced axis
 * with a symbolic end is unknown. Undefined (rank only) when the lists do not fit the input.
 */
function sliceToSymbols(
  s: Dim[],
  starts: number[],
  ends: Dim[],
  axes: number[] | undefined,
  steps: number[] | undefined,
): Dim[] | undefined {
  const r = s.length;
  const ax = axes ?? starts.map((_, i) => i);
  const st = steps ?? starts.map(() => 1);
  if (ax.length !== starts.length || st.length !== starts.length) return R.unknownDims(r);
  const dims = [...s];
  for (let k = 0; k < ax.length; k++) {
    const a = ax[k]! < 0 ? ax[k]! + r : ax[k]!;
    if (a < 0 || a >= r) return R.unknownDims(r);
    const d = s[a]!;
    const e = ends[k]!;
    if (typeof e === "number" && typeof d === "number")
      dims[a] = st[k] === 0 ? null : sliceLength(d, starts[k]!, e, st[k]!);
    else if (starts[k] !== 0 || st[k] !== 1 || e === null || (typeof e === "number" && e < 0))
      dims[a] = null;
    else if (typeof e === "number") dims[a] = headOf(d, e);
    else dims[a] = typeof d === "number" ? dimMin(e, d) : d === e ? d : null;
  }
  return dims;
}

const slice: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const elem = R.elemOf(c, 0);
  let starts: number[] | undefined | null;
  let ends: number[] | undefined | null;
  let axes: number[] | undefined | null;
  let steps: number[] | undefined | null;
  if (!hasInput(c.schema, "starts")) {
    starts = R.intsAttr(c, "starts");
    ends = R.intsAttr(c, "ends");
    axes = R.intsAttr(c, "axes");
    steps = undefined;
  } else {
    starts = R.intsInput(c, 1) ?? null;
    ends = R.intsInput(c, 2) ?? null;
    axes = R.present(c, 3) ? (R.intsInput(c, 3) ?? null) : undefined;
    steps = R.present(c, 4) ? (R.intsInput(c, 4) ?? null) : undefined;
  }
  if (!s) {
    R.out(c, 0, elem);
    return;
  }
  const r = s.length;
  if (starts && !ends && axes !== null && steps !== null) {
    // Ends known by data propagation: `[0:n]` on an axis of size d has min(n, d) entries.
    const symEnds = R.symInput(c, 2);
    if (symEnds && symEnds.length === starts.length) {
      R.out(c, 0, elem, sliceToSymbols(s, starts, symEnds, axes, steps));
      return;
    }
  }
  if (!starts || !ends || axes === null || steps === null) {
    // Bounds unknown: the rank stays, the sliced dimensions become unknown.
    const known = axes ?? undefined;
    const dims = s.map<Dim>((d, i) =>
      known && !known.some((a) => (a < 0 ? a + r : a) === i) ? d : null,
    );
    R.out(c, 0, elem, dims);
    return;
  }
  if (starts.length !== ends.length) {
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: starts has ${starts.length} values but ends has ${ends.length}`,
    );
    R.out(
      c,
      0,
      elem,
      s.map(() => null),
    );
    return;
  }
  const ax = axes ?? starts.map((_, i) => i);
  const st = steps ?? starts.map(() => 1);
  if (ax.length !== starts.length || st.length !== starts.length) {
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: starts, ends, axes and steps must have the same length`,
    );
    R.out(
      c,
      0,
      elem,
      s.map(() => null),
    );
    return;
  }
  const dims = [...s];
  const exactAxes = R.exactInts(c, hasInput(c.schema, "starts") ? 3 : "axes");
  for (let k = 0; k < ax.length; k++) {
    const a = R.normAxis(c, ax[k]!, r, "axis", axes ? exactAxes?.[k] : undefined);
    if (a === undefined) {
      R.out(
        c,
        0,
        elem,
        s.map(() => null),
      );
      return;
    }
    if (st[k] === 0) {
      c.error("bad-attribute-value", `${R.opName(c)}: a slice step is 0`);
      return;
    }
    const d = s[a]!;
    if (typeof d === "number") dims[a] = sliceLength(d, starts[k]!, ends[k]!, st[k]!);
    else dims[a] = starts[k] === 0 && st[k] === 1 && ends[k]! >= 0 ? headOf(d, ends[k]!) : null;
  }
  R.out(c, 0, elem, dims);
  const k0 = c.consts[0];
  if (
    k0 &&
    k0.dims.length === r &&
    k0.dims.every((d, i) => d === s[i]) &&
    dims.every((d) => typeof d === "number")
  ) {
    // A known value sliced (any rank: torch's pads are sliced as an [n, 2] matrix).
    const begin = k0.dims.map(() => 0);
    const step = k0.dims.map(() => 1);
    ax.forEach((axis, k) => {
      const a = axis < 0 ? axis + r : axis;
      const n = k0.dims[a]!;
      let b = starts[k]!;
      if (b < 0) b += n;
      begin[a] = st[k]! > 0 ? Math.min(Math.max(b, 0), n) : Math.min(Math.max(b, 0), n - 1);
      step[a] = st[k]!;
    });
    const out = dims as number[];
    const vals: number[] = [];
    const strides = R.stridesOf(k0.dims);
    const idx = out.map(() => 0);
    const total = out.reduce((x, y) => x * y, 1);
    for (let e = 0; e < total; e++) {
      let at = 0;
      for (let i = 0; i < r; i++) at += (begin[i]! + idx[i]! * step[i]!) * strides[i]!;
      vals.push(k0.values[at]!);
      for (let i = r - 1; i >= 0 && ++idx[i]! === out[i]; i--) idx[i] = 0;
    }
    R.setConst(c, 0, { elemType: k0.elemType, dims: [...out], values: vals });
  }
  const sy = c.syms[0];
  if (!k0 && sy && r === 1 && typeof dims[0] === "number") {
    const n = sy.length;
    const step = st[0]!;
    let b = starts[0]!;
    if (b < 0) b += n;
    b = step > 0 ? Math.min(Math.max(b, 0), n) : Math.min(Math.max(b, 0), n - 1);
    const vals: Dim[] = [];
    for (let i = 0, p = b; i < dims[0]; i++, p += step) vals.push(sy[p] ?? null);
    c.outSyms[0] = vals;
  }
};

const pad: R.Rule = (c) => {
  const s = R.shapeOrUnknownOut(c);
  if (!s) return;
  const elem = R.elemOf(c, 0);
  const r = s.length;
  let pads: number[] | undefined | null;
  if (!hasInput(c.schema, "pads")) pads = R.intsAttr(c, "pads") ?? R.intsAttr(c, "paddings");
  else pads = R.intsInput(c, 1) ?? null;
  const axes: number[] | undefined | null = R.present(c, 3)
    ? (R.intsInput(c, 3) ?? null)
    : undefined;
  if (!pads || axes === null) {
    R.out(
      c,
      0,
      elem,
      s.map(() => null),
    );
    return;
  }
  const ax: number[] = [];
  const exactAxes = R.exactInts(c, 3);
  for (const [i, a] of (axes ?? s.map((_, i) => i)).entries()) {
    const n = R.normAxis(c, a, r, "axis", axes ? exactAxes?.[i] : undefined);
    if (n === undefined) return;
    ax.push(n);
  }
  if (pads.length !== 2 * ax.length) {
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: pads has ${pads.length} values, expected ${2 * ax.length} (2 per padded axis)`,
    );
    return;
  }
  const dims = [...s];
  ax.forEach((a, k) => {
    const d = dims[a];
    dims[a] = d === null ? null : dimAdd(d, pads![k]! + pads![k + ax.length]!);
  });
  if (dims.some((d) => typeof d === "number" && d < 0)) {
    const exact = hasInput(c.schema, "pads") ? R.exactInts(c, 1) : undefined;
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: pads [${int64sText(pads, exact)}] remove more than the input's shape [${s.map((d) => (typeof d === "number" ? d : "?")).join(",")}]`,
    );
    return;
  }
  R.out(c, 0, elem, dims);
};

const concat: R.Rule = (c) => {
  const elem = c.inputs.map((t) => (isTensor(t) ? t.elemType : 0)).find((e) => e) ?? 0;
  const axisAttr = R.attrIntOf(c, "axis");
  const shapes = c.inputs.map((t) => (isTensor(t) ? t.shape : undefined));
  if (shapes.length === 0) return;
  if (axisAttr === null || axisAttr === undefined || shapes.some((s) => !s)) {
    const known = shapes.find((s) => s);
    R.out(c, 0, elem, known && axisAttr !== null ? known.map(() => null) : undefined);
    return;
  }
  const r = shapes[0]!.length;
  for (let i = 1; i < shapes.length; i++) {
    if (shapes[i]!.length !== r) {
      c.error(
        "shape-mismatch",
        `${R.opName(c)}: inputs '${R.inName(c, 0)}' ${formatShape(shapes[0])} and '${R.inName(c, i)}' ${formatShape(shapes[i])} differ in rank`,
      );
      return;
    }
  }
  const axis = R.normAxis(c, axisAttr, r);
  if (axis === undefined) return;
  const dims: Dim[] = [];
  for (let k = 0; k < r; k++) {
    if (k === axis) {
      // Numbers add up; one symbolic part plus numbers is that part plus their sum.
      let n = 0;
      let sym: Dim | undefined;
      for (const s of shapes) {
        const d = s![k]!;
        if (typeof d === "number") n += d;
        else sym = sym === undefined && d !== null ? d : null;
      }
      dims.push(sym === undefined ? n : sym === null ? null : dimAdd(sym, n));
      continue;
    }
    let d: Dim = shapes[0]![k]!;
    for (let i = 1; i < shapes.length; i++) {
      const e = shapes[i]![k]!;
      if (typeof d === "number" && typeof e === "number" && d !== e) {
        c.error(
          "shape-mismatch",
          `${R.opName(c)}: inputs '${R.inName(c, 0)}' ${formatShape(shapes[0])} and '${R.inName(c, i)}' ${formatShape(shapes[i])} differ in dimension ${k}, which is not the concatenation axis`,
        );
        return;
      }
      if (typeof d !== "number") d = typeof e === "number" ? e : d === e ? d : null;
    }
    dims.push(d);
  }
  R.out(c, 0, elem, dims);
  const parts = c.inputs.map((_, i) => R.symInput(c, i));
  if (r === 1 && parts.every((p) => p) && !c.consts.every((k) => k)) {
    c.outSyms[0] = parts.flatMap((p) => p!);
  }
  if (r === 1 && c.consts.length === c.inputs.length && c.consts.every((k) => k)) {
    R.setConst(c, 0, {
      elemType: c.consts[0]!.elemType,
      dims: [c.consts.reduce((n, k) => n + k!.values.length, 0)],
      values: c.consts.flatMap((k) => k!.values),
    });
  }
};

const split: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const elem = R.elemOf(c, 0);
  const n = c.node.outputs.length;
  const axisAttr = R.intAttr(c, "axis", 0);
  const unknown = () => {
    for (let i = 0; i < n; i++)
      R.out(c, i, elem, s ? s.map((d, k) => (k === axis ? null : d)) : undefined);
  };
  let axis = -1;
  if (!s || axisAttr === null) return unknown();
  const a = R.normAxis(c, axisAttr, s.length);
  if (a === undefined) return;
  axis = a;
  const sizes = hasAttribute(c.schema, "split") ? R.intsAttr(c, "split") : R.intsInput(c, 1);
  const d = s[axis]!;
  let parts: number[] | undefined;
  if (sizes) {
    if (sizes.length !== n) {
      c.error("shape-mismatch", `${R.opName(c)}: split has ${sizes.length} sizes for ${n} outputs`);
      return;
    }
    if (typeof d === "number" && sizes.reduce((x, y) => x + y, 0) !== d) {
      c.error(
        "shape-mismatch",
        `${R.opName(c)}: split sizes [${int64sText(sizes, R.exactInts(c, hasAttribute(c.schema, "split") ? "split" : 1))}] do not add up to dimension ${axis} of size ${d}`,
      );
      return;
    }
    parts = sizes;
  } else if (sizes === undefined && typeof d === "number" && !R.present(c, 1)) {
    // Equal parts; in versions with num_outputs the last may be smaller.
    const chunk = Math.ceil(d / n);
    parts = Array.from({ length: n }, (_, i) => Math.max(0, Math.min(chunk, d - i * chunk)));
    if (!hasAttribute(c.schema, "num_outputs") && d % n !== 0) {
      c.error(
        "shape-mismatch",
        `${R.opName(c)}: dimension ${axis} of size ${d} does not split into ${n} equal parts`,
      );
      return;
    }
  }
  if (!parts) return unknown();
  for (let i = 0; i < n; i++)
    R.out(
      c,
      i,
      elem,
      s.map((x, k) => (k === axis ? parts![i]! : x)),
    );
};

const gather: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const is = R.shapeOf(c, 1);
  const elem = R.elemOf(c, 0);
  const axisAttr = R.intAttr(c, "axis", 0);
  if (!s || !is || axisAttr === null) {
    R.out(c, 0, elem);
    return;
  }
  const axis = R.normAxis(c, axisAttr, s.length);
  if (axis === undefined) return;
  R.out(c, 0, elem, [...s.slice(0, axis), ...is, ...s.slice(axis + 1)]);
  const data = c.consts[0];
  const idx = c.consts[1];
  if (data && idx && s.length === 1) {
    const n = data.values.length;
    const vals: number[] = [];
    for (const i of idx.values) {
      const j = i < 0 ? i + n : i;
      if (j < 0 || j >= n) {
        c.error(
          "axis-out-of-range",
          `${R.opName(c)}: index ${i} is out of range for a dimension of size ${n}`,
        );
        return;
      }
      vals.push(data.values[j]!);
    }
    R.setConst(c, 0, { elemType: data.elemType, dims: [...idx.dims], values: vals });
  }
  const sy = c.syms[0];
  if (!data && sy && idx && s.length === 1) {
    const vals = idx.values.map((i) => sy[i < 0 ? i + sy.length : i] ?? null);
    c.outSyms[0] = vals;
  }
};

const gatherElements: R.Rule = (c) => {
  const axis = R.intAttr(c, "axis", 0);
  const s = R.shapeOf(c, 0);
  const is = R.shapeOf(c, 1);
  if (s && is && is.length !== s.length) {
    c.error("rank", `${R.opName(c)}: indices have rank ${is.length} but data has rank ${s.length}`);
    return;
  }
  if (s && axis !== null && R.normAxis(c, axis, s.length) === undefined) return;
  R.out(c, 0, R.elemOf(c, 0), is);
};

const nonZero: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  R.out(c, 0, DataType.INT64, [s ? s.length : null, null]);
};

const rules: Record<string, R.Rule> = {
  Slice: slice,
  Pad: pad,
  Concat: concat,
  Split: split,
  Gather: gather,
  GatherElements: gatherElements,
  ScatterElements: R.sameAsInput,
  ScatterND: R.sameAsInput,
  Scatter: R.sameAsInput,
  NonZero: nonZero,
};

export const sliceRules: Readonly<Record<string, R.Rule>> = Object.freeze(rules);
