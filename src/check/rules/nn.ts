// Neural-network ops with shape rules: MatMul, Gemm, Einsum, Dropout, the normalisations, global
// pooling.

import { DataType } from "../../ir/types.js";
import { einsumEquationError, einsumOutputShape } from "../einsum.js";
import { broadcastShapes, formatShape } from "../types.js";
import * as R from "./common.js";

const matmul: R.Rule = (c) => {
  const a = R.shapeOf(c, 0);
  const b = R.shapeOf(c, 1);
  const elem = R.elemOf(c, 0) || R.elemOf(c, 1);
  if (!a || !b) {
    R.out(c, 0, elem);
    return;
  }
  if (a.length === 0 || b.length === 0) {
    c.error("rank", `${R.opName(c)}: inputs must have rank 1 or more`);
    return;
  }
  const a2 = a.length === 1 ? [1, a[0]!] : a;
  const b2 = b.length === 1 ? [b[0]!, 1] : b;
  const k1 = a2[a2.length - 1]!;
  const k2 = b2[b2.length - 2]!;
  if (typeof k1 === "number" && typeof k2 === "number" && k1 !== k2) {
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: inner dimensions differ: '${R.inName(c, 0)}' ${formatShape(a)} and '${R.inName(c, 1)}' ${formatShape(b)}`,
    );
    return;
  }
  const batch = broadcastShapes([a2.slice(0, -2), b2.slice(0, -2)]);
  if (typeof batch === "string") {
    c.error("shape-mismatch", `${R.opName(c)}: batch dimensions cannot be broadcast: ${batch}`);
    return;
  }
  const dims = [...batch];
  if (a.length > 1) dims.push(a2[a2.length - 2]!);
  if (b.length > 1) dims.push(b2[b2.length - 1]!);
  R.out(c, 0, elem, dims);
};

const dropout: R.Rule = (c) => {
  R.sameAsInput(c);
  if (c.node.outputs.length > 1) R.out(c, 1, DataType.BOOL, R.shapeOf(c, 0));
};

const layerNorm: R.Rule = (c) => {
  R.sameAsInput(c);
  const s = R.shapeOf(c, 0);
  const axis = R.intAttr(c, "axis", -1);
  const stash = R.intAttr(c, "stash_type", DataType.FLOAT);
  if (!s || axis === null || stash === null) return;
  const a = R.normAxis(c, axis, s.length);
  if (a === undefined) return;
  // Mean and InvStdDev keep the leading dimensions and have 1 for each normalised one.
  const stats = s.map((d, i) => (i < a ? d : 1));
  for (const i of [1, 2]) if ((c.node.outputs[i] ?? "") !== "") R.out(c, i, stash, stats);
};

const gemm: R.Rule = (c) => {
  const a = R.shapeOf(c, 0);
  const b = R.shapeOf(c, 1);
  const ta = R.intAttr(c, "transA", 0);
  const tb = R.intAttr(c, "transB", 0);
  const elem = R.elemOf(c, 0) || R.elemOf(c, 1);
  if (!a || !b || ta === null || tb === null || a.length !== 2 || b.length !== 2) {
    R.out(c, 0, elem, [null, null]);
    return;
  }
  const [m, ka] = ta ? [a[1]!, a[0]!] : [a[0]!, a[1]!];
  const [kb, n] = tb ? [b[1]!, b[0]!] : [b[0]!, b[1]!];
  if (typeof ka === "number" && typeof kb === "number" && ka !== kb) {
    c.error("shape-mismatch", `${R.opName(c)}: inner dimensions differ (${ka} and ${kb})`);
    return;
  }
  R.out(c, 0, elem, [m, n]);
};

/** RMSNormalization: Y has X's shape and scale's type. */
const rmsNorm: R.Rule = (c) => {
  R.out(c, 0, R.elemOf(c, 1) || R.elemOf(c, 0), R.shapeOf(c, 0));
};

const globalPool: R.Rule = (c) => {
  const s = R.shapeOf(c, 0);
  R.out(c, 0, R.elemOf(c, 0), s ? s.map((d, i) => (i < 2 ? d : 1)) : undefined);
};

/** Einsum: the equation must fit the operands; the output shape follows from it. */
const einsum: R.Rule = (c) => {
  const a = c.attr("equation");
  if (!a || a.type !== "STRING" || a.value === undefined) return;
  const why = einsumEquationError(
    a.value,
    c.inputs.length,
    c.inputs.map((_, i) => R.shapeOf(c, i)?.length),
  );
  if (why) {
    c.error("bad-attribute-value", `${R.opName(c)}: ${why}`);
    return;
  }
  const shapes = c.inputs.map((_, i) => R.shapeOf(c, i));
  R.out(c, 0, R.elemOf(c, 0), einsumOutputShape(a.value, shapes));
};

const rules: Record<string, R.Rule> = {
  MatMul: matmul,
  Einsum: einsum,
  Gemm: gemm,
  Dropout: dropout,
  BatchNormalization: R.sameAsInput,
  InstanceNormalization: R.sameAsInput,
  LRN: R.sameAsInput,
  LayerNormalization: layerNorm,
  GroupNormalization: R.sameAsInput,
  RMSNormalization: rmsNorm,
  GlobalAveragePool: globalPool,
  GlobalMaxPool: globalPool,
  GlobalLpPool: globalPool,
};

export const nnRules: Readonly<Record<string, R.Rule>> = Object.freeze(rules);
