// Ops that compute or change shapes: Shape, Size, Reshape, Squeeze/Unsqueeze, Expand, Flatten,
// Transpose, Tile, DepthToSpace/SpaceToDepth. Known shapes flow on as constants.

import { DataType, type Dim } from "../../ir/types.js";
import { hasInput } from "../../schema/facts.js";
import { broadcastShapes, formatShape, isTensor } from "../types.js";
import {
  attrIntOf,
  intAttr,
  intsAttr,
  opName,
  shapeOf,
  elemOf,
  present,
  out,
  inName,
  intsInput,
  normAxis,
  symInput,
  setConst,
  product,
  unknownDims,
  type RuleCtx,
  type Rule,
} from "./common.js";

const shapeOp: Rule = (c) => {
  const s = shapeOf(c, 0);
  if (!s) {
    out(c, 0, DataType.INT64, [null]);
    return;
  }
  const r = s.length;
  const clamp = (v: number) => Math.min(r, Math.max(0, v < 0 ? v + r : v));
  const start = clamp(intAttr(c, "start", 0) ?? 0);
  const endAttr = intAttr(c, "end", r);
  if (endAttr === null) {
    out(c, 0, DataType.INT64, [null]);
    return;
  }
  const end = clamp(endAttr);
  const dims = s.slice(start, Math.max(start, end));
  out(c, 0, DataType.INT64, [dims.length]);
  if (dims.every((d) => typeof d === "number")) {
    setConst(c, 0, { elemType: DataType.INT64, dims: [dims.length], values: dims as number[] });
  } else c.outSyms[0] = dims;
};

const size: Rule = (c) => {
  out(c, 0, DataType.INT64, []);
  const s = shapeOf(c, 0);
  const n = s && product(s);
  if (n !== undefined) setConst(c, 0, { elemType: DataType.INT64, dims: [], values: [n] });
};

/** Squeeze/Unsqueeze axes: the attribute, or the constant input in versions that have one. */
function axesArg(c: RuleCtx): number[] | undefined | null {
  if (!hasInput(c.schema, "axes")) return intsAttr(c, "axes");
  if (!present(c, 1)) return undefined;
  return intsInput(c, 1) ?? null;
}

const unsqueeze: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  const axes = axesArg(c);
  if (!s || !axes) {
    if (axes === undefined && hasInput(c.schema, "axes") && !present(c, 1)) {
      c.error("missing-input", `${opName(c)} needs the axes input`);
    }
    const k = c.inputs[1];
    const n = isTensor(k) && k.shape?.length === 1 ? k.shape[0] : undefined;
    out(c, 0, elem, s && typeof n === "number" ? unknownDims(s.length + n) : undefined);
    return;
  }
  const r = s.length + axes.length;
  const norm: number[] = [];
  for (const a of axes) {
    if (a < -r || a >= r) {
      c.error(
        "axis-out-of-range",
        `${opName(c)}: axis ${a} is out of range for output rank ${r} (valid range is [${-r}, ${r - 1}])`,
      );
      return;
    }
    const n = a < 0 ? a + r : a;
    if (norm.includes(n)) {
      c.error("bad-attribute-value", `${opName(c)}: axis ${a} appears twice`);
      return;
    }
    norm.push(n);
  }
  const dims: Dim[] = [];
  let j = 0;
  for (let i = 0; i < r; i++) dims.push(norm.includes(i) ? 1 : s[j++]!);
  out(c, 0, elem, dims);
  const k = c.consts[0];
  if (k) setConst(c, 0, { ...k, dims: dims as number[] });
  if (dims.length <= 1) c.outSyms[0] = c.syms[0];
};

const squeeze: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  const axes = axesArg(c);
  if (!s || axes === null) {
    out(c, 0, elem);
    return;
  }
  let drop: number[];
  if (axes === undefined) {
    if (s.some((d) => typeof d !== "number")) {
      out(c, 0, elem);
      return;
    }
    drop = s.flatMap((d, i) => (d === 1 ? [i] : []));
  } else {
    drop = [];
    for (const a of axes) {
      const n = normAxis(c, a, s.length);
      if (n === undefined) return;
      const d = s[n]!;
      if (typeof d === "number" && d !== 1) {
        c.error(
          "shape-mismatch",
          `${opName(c)}: cannot squeeze axis ${a} of size ${d} (input '${inName(c, 0)}' ${formatShape(s)})`,
        );
        return;
      }
      drop.push(n);
    }
  }
  const dims = s.filter((_, i) => !drop.includes(i));
  out(c, 0, elem, dims);
  const k = c.consts[0];
  if (k && dims.every((d) => typeof d === "number"))
    setConst(c, 0, { ...k, dims: dims as number[] });
  if (dims.length <= 1) c.outSyms[0] = c.syms[0];
};

const reshape: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  const target: Dim[] | undefined | null = hasInput(c.schema, "shape")
    ? symInput(c, 1)
    : intsAttr(c, "shape");
  if (!target) {
    const k = c.inputs[1];
    const n = isTensor(k) && k.shape?.length === 1 ? k.shape[0] : undefined;
    out(c, 0, elem, typeof n === "number" ? unknownDims(n) : undefined);
    return;
  }
  const allowzero = intAttr(c, "allowzero", 0);
  const dims: Dim[] = [];
  let inferAt = -1;
  for (let i = 0; i < target.length; i++) {
    const t = target[i]!;
    if (typeof t !== "number") dims.push(t);
    else if (t === -1) {
      if (inferAt >= 0) {
        c.error("bad-attribute-value", `${opName(c)}: the target shape has more than one -1`);
        return;
      }
      inferAt = i;
      dims.push(null);
    } else if (t === 0 && allowzero !== 1) {
      if (s && i >= s.length) {
        c.error(
          "shape-mismatch",
          `${opName(c)}: target dimension ${i} is 0 (copy) but the input has rank ${s.length}`,
        );
        return;
      }
      dims.push(s ? s[i]! : null);
    } else if (t < -1) {
      c.error("bad-attribute-value", `${opName(c)}: target dimension ${t} is invalid`);
      return;
    } else dims.push(t);
  }
  const total = s && product(s);
  if (total !== undefined) {
    const rest = product(dims.filter((_, i) => i !== inferAt));
    if (rest !== undefined) {
      if (inferAt >= 0) {
        if (rest === 0 || total % rest !== 0) {
          c.error(
            "shape-mismatch",
            `${opName(c)}: cannot reshape ${formatShape(s)} (${total} elements) to [${target.join(",")}]`,
          );
          return;
        }
        dims[inferAt] = total / rest;
      } else if (rest !== total) {
        c.error(
          "shape-mismatch",
          `${opName(c)}: cannot reshape ${formatShape(s)} (${total} elements) to ${formatShape(dims)} (${rest} elements)`,
        );
        return;
      }
    }
  }
  out(c, 0, elem, dims);
  const k = c.consts[0];
  if (k && dims.every((d) => typeof d === "number"))
    setConst(c, 0, { ...k, dims: dims as number[] });
};

const expand: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  let tdims: Dim[] | undefined = symInput(c, 1);
  if (tdims && tdims.some((d) => typeof d === "number" && d < 0)) {
    c.error(
      "shape-mismatch",
      `${opName(c)}: the shape [${tdims.join(",")}] has a negative dimension`,
    );
    return;
  }
  if (!tdims) {
    const k = c.inputs[1];
    const n = isTensor(k) && k.shape?.length === 1 ? k.shape[0] : undefined;
    if (typeof n === "number") tdims = unknownDims(n);
  }
  if (!s || !tdims) {
    out(c, 0, elem);
    return;
  }
  const r = broadcastShapes([s, tdims]);
  if (typeof r === "string") {
    c.error(
      "shape-mismatch",
      `${opName(c)}: input '${inName(c, 0)}' cannot expand to the target shape: ${r}`,
    );
    return;
  }
  out(c, 0, elem, r);
};

const transpose: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  const perm = intsAttr(c, "perm");
  if (!s || perm === null) {
    out(c, 0, elem, s ? s.map(() => null) : undefined);
    return;
  }
  const p = perm ?? s.map((_, i) => s.length - 1 - i);
  const sorted = [...p].sort((x, y) => x - y);
  if (p.length !== s.length || sorted.some((v, i) => v !== i)) {
    c.error(
      "bad-attribute-value",
      `${opName(c)}: perm [${p.join(",")}] is not a permutation of the ${s.length} axes of '${inName(c, 0)}'`,
    );
    return;
  }
  out(
    c,
    0,
    elem,
    p.map((i) => s[i]!),
  );
};

const flatten: Rule = (c) => {
  const s = shapeOf(c, 0);
  const elem = elemOf(c, 0);
  const axisAttr = intAttr(c, "axis", 1);
  if (!s || axisAttr === null) {
    out(c, 0, elem, [null, null]);
    return;
  }
  const r = s.length;
  if (axisAttr < -r || axisAttr > r) {
    c.error(
      "axis-out-of-range",
      `${opName(c)}: axis ${axisAttr} is out of range for rank ${r} (valid range is [${-r}, ${r}])`,
    );
    return;
  }
  const axis = axisAttr < 0 ? axisAttr + r : axisAttr;
  out(c, 0, elem, [product(s.slice(0, axis)) ?? null, product(s.slice(axis)) ?? null]);
};

const tile: Rule = (c) => {
  const s = shapeOf(c, 0);
  const reps = intsInput(c, 1);
  if (!s) {
    out(c, 0, elemOf(c, 0));
    return;
  }
  if (reps && reps.length !== s.length) {
    c.error(
      "shape-mismatch",
      `${opName(c)}: repeats has ${reps.length} values for an input of rank ${s.length}`,
    );
    return;
  }
  out(
    c,
    0,
    elemOf(c, 0),
    s.map((d, i) => (reps && typeof d === "number" ? d * reps[i]! : reps?.[i] === 1 ? d : null)),
  );
};

const depthSpace =
  (toSpace: boolean): Rule =>
  (c) => {
    const s = shapeOf(c, 0);
    const bs = attrIntOf(c, "blocksize");
    if (!s || typeof bs !== "number" || s.length !== 4) {
      out(c, 0, elemOf(c, 0), s ? s.map(() => null) : undefined);
      return;
    }
    const [n, ch, h, w] = s as [Dim, Dim, Dim, Dim];
    const mul = (d: Dim, f: number) => (typeof d === "number" ? d * f : null);
    const div = (d: Dim, f: number) => (typeof d === "number" ? d / f : null);
    out(
      c,
      0,
      elemOf(c, 0),
      toSpace
        ? [n, div(ch, bs * bs), mul(h, bs), mul(w, bs)]
        : [n, mul(ch, bs * bs), div(h, bs), div(w, bs)],
    );
  };

const rules: Record<string, Rule> = {
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

export const shapeRules: Readonly<Record<string, Rule>> = Object.freeze(rules);
