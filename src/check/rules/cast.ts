// Ops that pass a value on, possibly as another element type: Cast, CastLike, Identity.

import { dtypeInfo } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { castValues, isIntegerType } from "../consts.js";
import * as R from "./common.js";

const cast: R.Rule = (c) => {
  const to = R.attrIntOf(c, "to");
  const shape = R.shapeOf(c, 0);
  if (to === null || to === undefined) {
    R.out(c, 0, 0, shape);
    return;
  }
  if (!dtypeInfo(to)) {
    c.error(
      "bad-attribute-value",
      `${R.opName(c)}: attribute 'to' = ${to} is not a tensor element type`,
    );
    R.out(c, 0, 0, shape);
    return;
  }
  R.out(c, 0, to, shape);
  if (isIntegerType(to) && to !== DataType.BOOL) c.outSyms[0] = c.syms[0];
  const k = c.consts[0];
  if (k) {
    const v = castValues(k.values, to);
    if (v) R.setConst(c, 0, { elemType: to, dims: k.dims, values: v });
  }
};

const castLike: R.Rule = (c) => {
  R.out(c, 0, R.elemOf(c, 1), R.shapeOf(c, 0));
  const k = c.consts[0];
  const to = R.elemOf(c, 1);
  if (k && to) {
    const v = castValues(k.values, to);
    if (v) R.setConst(c, 0, { elemType: to, dims: k.dims, values: v });
  }
};

const identity: R.Rule = (c) => {
  R.sameAsInput(c);
  R.setConst(c, 0, c.consts[0]);
  c.outSyms[0] = c.syms[0];
};

const rules: Record<string, R.Rule> = {
  Cast: cast,
  CastLike: castLike,
  Identity: identity,
};

export const castRules: Readonly<Record<string, R.Rule>> = Object.freeze(rules);
