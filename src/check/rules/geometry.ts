// Geometry ops with shape rules: AffineGrid-20 (its grid's shape from a constant size) and
// CenterCropPad-18 (the input's shape with the cropped or padded axes from a constant shape).

import type { Dim } from "../../ir/types.js";
import * as R from "./common.js";

/** grid (N, H, W, 2) or (N, D, H, W, 3): N from theta, the spatial sizes from size. */
const affineGrid: R.Rule = (c) => {
  const theta = R.shapeOf(c, 0);
  const size = R.intsInput(c, 1);
  const n: Dim = theta?.[0] ?? null;
  if (!size) {
    const sizeShape = R.shapeOf(c, 1);
    const len = sizeShape?.length === 1 ? sizeShape[0] : undefined;
    R.out(
      c,
      0,
      R.elemOf(c, 0),
      len === 4 ? [n, null, null, 2] : len === 5 ? [n, null, null, null, 3] : undefined,
    );
    return;
  }
  if (size.length !== 4 && size.length !== 5) {
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: size must hold 4 (N, C, H, W) or 5 (N, C, D, H, W) values, got ${size.length}`,
    );
    return;
  }
  R.out(c, 0, R.elemOf(c, 0), [n, ...size.slice(2), size.length - 2]);
};

/** The input's shape with shape[k] on axes[k]. */
const centerCropPad: R.Rule = (c) => {
  const x = R.shapeOrUnknownOut(c);
  if (!x) return;
  const target = R.intsInput(c, 1);
  const axesAttr = R.intsAttr(c, "axes");
  if (axesAttr === null) {
    R.out(
      c,
      0,
      R.elemOf(c, 0),
      x.map(() => null),
    );
    return;
  }
  const axes = axesAttr ?? x.map((_, i) => i);
  const dims: Dim[] = [...x];
  for (const [k, a] of axes.entries()) {
    const axis = R.normAxis(c, a, x.length, "axes entry");
    if (axis === undefined) return;
    dims[axis] = target ? (target[k] ?? null) : null;
  }
  if (target && target.length !== axes.length) {
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: shape has ${target.length} values but there are ${axes.length} axes`,
    );
    return;
  }
  R.out(c, 0, R.elemOf(c, 0), dims);
};

export const geometryRules: Readonly<Record<string, R.Rule>> = {
  AffineGrid: affineGrid,
  CenterCropPad: centerCropPad,
};
