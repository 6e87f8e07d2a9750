// Ops that compute or change shapes: Shape, Size, Reshape, Squeeze/Unsqueeze, Expand, Flatten,
// Transpose, Tile, DepthToSpace/SpaceToDepth. Known shapes flow on as constants.

import { attrIntText, int64sText, int64Text } from "../../ir/attributes.js";
import { DataType, type Dim } from "../../ir/types.js";
import { hasInput } from "../../schema/facts.js";
import { symProduct, symQuotient } from "../sym-values.js";
import { broadcastShapes, formatShape, isTensor } from "../types.js";
import * as R from "./common.js";

const shapeOp: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  if (!s) {
    R.out(c, 0, DataType.INT64, [null]);
    return;
  }
  const r = s.length;
  const clamp = (v: number) => Math.min(r, Math.max(0, v < 0 ? v + r : v));
  const start = clamp(R.intAttr(c, "start", 0) ?? 0);
  const endAttr = R.intAttr(c, "end", r);
  if (endAttr === null) {
    R.out(c, 0, DataType.INT64, [null]);
    return;
  }
  const end = clamp(endAttr);
  const dims = s.slice(start, Math.max(start, end));
  R.out(c, 0, DataType.INT64, [dims.length]);
  if (dims.every((d) => typeof d === "number")) {
    R.setConst(c, 0, { elemType: DataType.INT64, dims: [dims.length], values: dims as number[] });
  } else c.outSyms[0] = dims;
};

const size: R.Rule = (c) => {
  R.out(c, 0, DataType.INT64, []);
  const s = R.shapeOf(c, 0);
  const n = s && R.product(s);
  if (n !== undefined) R.setConst(c, 0, { elemType: DataType.INT64, dims: [], values: [n] });
};

/** Squeeze/Unsqueeze axes: the attribute, or the constant input in versions that have one. */
function axesArg(c: R.RuleCtx): number[] | undefined | null {
  if (!hasInput(c.schema, "axes")) return R.intsAttr(c, "axes");
  if (!R.present(c, 1)) return undefined;
  return R.intsInput(c, 1) ?? null;
}

const unsqueeze: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const elem = R.elemOf(c, 0);
  const axes = axesArg(c);
  if (!s || !axes) {
    if (axes === undefined && hasInput(c.schema, "axes") && !R.present(c, 1)) {
      c.error("missing-input", `${R.opName(c)} needs the axes input`);
    }
    const k = c.inputs[1];
    const n = isTensor(k) && k.shape?.length === 1 ? k.shape[0] : undefined;
    R.out(c, 0, elem, s && typeof n === "number" ? R.unknownDims(s.length + n) : undefined);
    return;
  }
  const r = s.length + axes.length;
  const norm: number[] = [];
  const exact = R.exactAxes(c);
  for (const [i, a] of axes.entries()) {
    if (a < -r || a >= r) {
      c.error(
        "axis-out-of-range",
        `${R.opName(c)}: axis ${int64Text(a, exact?.[i])} is out of range for output rank ${r} (valid range is [${-r}, ${r - 1}])`,
      );
      return;
    }
    const n = a < 0 ? a + r : a;
    if (norm.includes(n)) {
      c.error("bad-attribute-value", `${R.opName(c)}: axis ${a} appears twice`);
      return;
    }
    norm.push(n);
  }
  const dims: Dim[] = [];
  let j = 0;
  for (let i = 0; i < r; i++) dims.push(norm.includes(i) ? 1 : s[j++]!);
  R.out(c, 0, elem, dims);
  const k = c.consts[0];
  if (k) R.setConst(c, 0, { ...k, dims: dims as number[] });
  if (dims.length <= 1) c.outSyms[0] = c.syms[0];
};

const squeeze: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const elem = R.elemOf(c, 0);
  const axes = axesArg(c);
  if (!s || axes === null) {
    R.out(c, 0, elem);
    return;
  }
  let drop: number[];
  if (axes === undefined) {
    if (s.some((d) => typeof d !== "number")) {
      R.out(c, 0, elem);
      return;
    }
    drop = s.flatMap((d, i) => (d === 1 ? [i] : []));
  } else {
    drop = [];
    const exact = R.exactAxes(c);
    for (const [i, a] of axes.entries()) {
      const n = R.normAxis(c, a, s.length, "axis", exact?.[i]);
      if (n === undefined) return;
      const d = s[n]!;
      if (typeof d === "number" && d !== 1) {
        c.error(
          "shape-mismatch",
          `${R.opName(c)}: cannot squeeze axis ${a} of size ${d} (input '${R.inName(c, 0)}' ${formatShape(s)})`,
        );
        return;
      }
      drop.push(n);
    }
  }
  const dims = s.filter((_, i) => !drop.includes(i));
  R.out(c, 0, elem, dims);
  const k = c.consts[0];
  if (k && dims.every((d) => typeof d === "number"))
    R.setConst(c, 0, { ...k, dims: dims as number[] });
  if (dims.length <= 1) c.outSyms[0] = c.syms[0];
};

const reshape: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const elem = R.elemOf(c, 0);
  const target: Dim[] | undefined | null = hasInput(c.schema, "shape")
    ? R.symInput(c, 1)
    : R.intsAttr(c, "shape");
  if (!target) {
    const k = c.inputs[1];
    const n = isTensor(k) && k.shape?.length === 1 ? k.shape[0] : undefined;
    R.out(c, 0, elem, typeof n === "number" ? R.unknownDims(n) : undefined);
    return;
  }
  const allowzero = R.intAttr(c, "allowzero", 0);
  const dims: Dim[] = [];
  let inferAt = -1;
  for (let i = 0; i < target.length; i++) {
    const t = target[i]!;
    if (typeof t !== "number") dims.push(t);
    else if (t === -1) {
      if (inferAt >= 0) {
        c.error("bad-attribute-value", `${R.opName(c)}: the target shape has more than one -1`);
        return;
      }
      inferAt = i;
      dims.push(null);
    } else if (t === 0 && allowzero !== 1) {
      if (s && i >= s.length) {
        c.error(
          "shape-mismatch",
          `${R.opName(c)}: target dimension ${i} is 0 (copy) but the input has rank ${s.length}`,
        );
        return;
      }
      dims.push(s ? s[i]! : null);
    } else if (t < -1) {
      c.error("bad-attribute-value", `${R.opName(c)}: target dimension ${t} is invalid`);
      return;
    } else dims.push(t);
  }
  const total = s && R.product(s);
  if (total === undefined && s && inferAt >= 0)
    dims[inferAt] = symQuotient(
      s,
      dims.filter((_, i) => i !== inferAt),
    );
  if (total !== undefined) {
    const rest = R.product(dims.filter((_, i) => i !== inferAt));
    // Values past 2^53 saturated: the messages quote the model's own (and count with them).
    const exact = R.exactInts(c, hasInput(c.schema, "shape") ? 1 : "shape");
    const targetText = exact ? int64sText(target as number[], exact) : target.join(",");
    const numeric = exact && dims.every((d): d is number => typeof d === "number");
    const dimsText = numeric ? `[${int64sText(dims, exact)}]` : formatShape(dims);
    const restText = numeric
      ? String(dims.reduce((p, d, i) => p * BigInt(int64Text(d, exact[i])), 1n))
      : String(rest);
    if (rest !== undefined) {
      if (inferAt >= 0) {
        if (rest === 0 || total % rest !== 0) {
          c.error(
            "shape-mismatch",
            `${R.opName(c)}: cannot reshape ${formatShape(s)} (${total} elements) to [${targetText}]`,
          );
          return;
        }
        dims[inferAt] = total / rest;
      } else if (rest !== total) {
        c.error(
          "shape-mismatch",
          `${R.opName(c)}: cannot reshape ${formatShape(s)} (${total} elements) to ${dimsText} (${restText} elements)`,
        );
        return;
      }
    }
  }
  R.out(c, 0, elem, dims);
  const k = c.consts[0];
  if (k && dims.every((d) => typeof d === "number"))
    R.setConst(c, 0, { ...k, dims: dims as number[] });
  if (c.syms[0] && dims.length <= 1) c.outSyms[0] = c.syms[0];
};

const expand: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const elem = R.elemOf(c, 0);
  let tdims: Dim[] | undefined = R.symInput(c, 1);
  if (tdims && tdims.some((d) => typeof d === "number" && d < 0)) {
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: the shape [${R.exactInts(c, 1) ? int64sText(tdims as number[], R.exactInts(c, 1)) : tdims.join(",")}] has a negative dimension`,
    );
    return;
  }
  if (!tdims) {
    const k = c.inputs[1];
    const n = isTensor(k) && k.shape?.length === 1 ? k.shape[0] : undefined;
    if (typeof n === "number") tdims = R.unknownDims(n);
  }
  if (!s || !tdims) {
    R.out(c, 0, elem);
    return;
  }
  const r = broadcastShapes([s, tdims]);
  if (typeof r === "string") {
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: input '${R.inName(c, 0)}' cannot expand to the target shape: ${r}`,
    );
    return;
  }
  R.out(c, 0, elem, r);
};

const transpose: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const elem = R.elemOf(c, 0);
  const perm = R.intsAttr(c, "perm");
  if (!s || perm === null) {
    R.out(c, 0, elem, s ? s.map(() => null) : undefined);
    return;
  }
  const p = perm ?? s.map((_, i) => s.length - 1 - i);
  const sorted = [...p].sort((x, y) => x - y);
  if (p.length !== s.length || sorted.some((v, i) => v !== i)) {
    c.error(
      "bad-attribute-value",
      `${R.opName(c)}: perm [${int64sText(p, R.exactInts(c, "perm"))}] is not a permutation of the ${s.length} axes of '${R.inName(c, 0)}'`,
    );
    return;
  }
  R.out(
    c,
    0,
    elem,
    p.map((i) => s[i]!),
  );
  // A known value transposed (torch's pads go through an [n, 2] → [2, n] transpose).
  const k = c.consts[0];
  if (k && k.dims.length === p.length) {
    const dims = p.map((i) => k.dims[i]!);
    const strides = R.stridesOf(k.dims);
    const idx = dims.map(() => 0);
    const values: number[] = [];
    for (let e = 0; e < k.values.length; e++) {
      let at = 0;
      for (let i = 0; i < p.length; i++) at += idx[i]! * strides[p[i]!]!;
      values.push(k.values[at]!);
      for (let i = p.length - 1; i >= 0 && ++idx[i]! === dims[i]; i--) idx[i] = 0;
    }
    R.setConst(c, 0, { elemType: k.elemType, dims, values });
  }
};

const flatten: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  const elem = R.elemOf(c, 0);
  const axisAttr = R.intAttr(c, "axis", 1);
  if (!s || axisAttr === null) {
    R.out(c, 0, elem, [null, null]);
    return;
  }
  const r = s.length;
  if (axisAttr < -r || axisAttr > r) {
    c.error(
      "axis-out-of-range",
      `${R.opName(c)}: axis ${attrIntText(c.node, "axis", axisAttr)} is out of range for rank ${r} (valid range is [${-r}, ${r}])`,
    );
    return;
  }
  const axis = axisAttr < 0 ? axisAttr + r : axisAttr;
  R.out(c, 0, elem, [symProduct(s.slice(0, axis)), symProduct(s.slice(axis))]);
};

const tile: R.Rule = (c) => {
  const s = R.shapeOrUnknownOut(c);
  if (!s) return;
  const reps = R.intsInput(c, 1);
  if (reps && reps.length !== s.length) {
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: repeats has ${reps.length} values for an input of rank ${s.length}`,
    );
    return;
  }
  if (reps && reps.some((r) => r < 0)) {
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: repeats [${int64sText(reps, R.exactInts(c, 1))}] has a negative entry`,
    );
    return;
  }
  R.out(
    c,
    0,
    R.elemOf(c, 0),
    s.map((d, i) => (reps && typeof d === "number" ? d * reps[i]! : reps?.[i] === 1 ? d : null)),
  );
};

const depthSpace =
  (toSpace: boolean): R.Rule =>
  (c) => {
    const s = R.shapeOf(c, 0);
    const bs = R.attrIntOf(c, "blocksize");
    if (!s || typeof bs !== "number" || s.length !== 4) {
      R.out(c, 0, R.elemOf(c, 0), s ? s.map(() => null) : undefined);
      return;
    }
    const [n, ch, h, w] = s as [Dim, Dim, Dim, Dim];
    const mul = (d: Dim, f: number) => (typeof d === "number" ? d * f : null);
    const div = (d: Dim, f: number) => (typeof d === "number" ? d / f : null);
    R.out(
      c,
      0,
      R.elemOf(c, 0),
      toSpace
        ? [n, div(ch, bs * bs), mul(h, bs), mul(w, bs)]
        : [n, mul(ch, bs * bs), div(h, bs), div(w, bs)],
    );
  };

const rules: Record<string, R.Rule> = {
  Shape: shapeOp,
  Size: size,
  Unsqueeze: unsqueeze,
  Squeeze: squeeze,
  Reshape: reshape,
  Expand: expand,
  Transpose: transpose,
  Flatten: flatten,
  Tile: tile,
  DepthToSpace: depthSpace(true),
  SpaceToDepth: depthSpace(false),
};

export const shapeRules: Readonly<Record<string, R.Rule>> = Object.freeze(rules);
