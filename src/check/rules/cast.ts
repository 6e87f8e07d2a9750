// Ops that pass a value on, possibly as another element type: Cast, CastLike, Identity.

import { dtypeInfo } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { castValues, isIntegerType } from "../consts.js";
import {
  attrIntOf,
  opName,
  shapeOf,
  elemOf,
  out,
  setConst,
  sameAsInput,
  type Rule,
} from "./common.js";

const cast: Rule = (c) => {
  const to = attrIntOf(c, "to");
  const shape = shapeOf(c, 0);
  if (to === null || to === undefined) {
    out(c, 0, 0, shape);
    return;
  }
  if (!dtypeInfo(to)) {
    c.error(
      "bad-attribute-value",
      `${opName(c)}: attribute 'to' = ${to} is not a tensor element type`,
    );
    out(c, 0, 0, shape);
    return;
  }
  out(c, 0, to, shape);
  if (isIntegerType(to) && to !== DataType.BOOL) c.outSyms[0] = c.syms[0];
  const k = c.consts[0];
  if (k) {
    const v = castValues(k.values, to);
    if (v) setConst(c, 0, { elemType: to, dims: k.dims, values: v });
  }
};

const castLike: Rule = (c) => {
  out(c, 0, elemOf(c, 1), shapeOf(c, 0));
  const k = c.consts[0];
  const to = elemOf(c, 1);
  if (k && to) {
    const v = castValues(k.values, to);
    if (v) setConst(c, 0, { elemType: to, dims: k.dims, values: v });
  }
};

const identity: Rule = (c) => {
  sameAsInput(c);
  setConst(c, 0, c.consts[0]);
  c.outSyms[0] = c.syms[0];
};

const rules: Record<string, Rule> = {
  Cast: cast,
  CastLike: castLike,
  Identity: identity,
};

export const castRules: Readonly<Record<string, Rule>> = Object.freeze(rules);
