// Broadcasting steps. Before 7 the binary ops (Add, Sub, Mul, Div 6; Pow, And, Or, Xor, Equal,
// Greater, Less 1) broadcast only with `broadcast=1`: B's dimensions line up with A's from `axis`
// (default: at the end, as numpy does). From 7 numpy broadcasting is implied; B aligned at an
// axis gets trailing 1s (Unsqueeze). Gemm 6 -> 7: C broadcasts unidirectionally from 7.
// PRelu 6 -> 7: a 1-D slope of the channel count applied along axis 1 before 7; from 7 the
// slope broadcasts numpy-style, so it becomes [C, 1, ..., 1].

import { attr } from "../../ir/index.js";
import type { Dim } from "../../ir/types.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import { attributeDropped, row } from "./kit.js";
import {
  intAttr,
  nodeWithoutAttributes,
  opNode,
  rankOf,
  tensorTypeOf,
  withAttributes,
} from "./nodes.js";
import { getAttr } from "../../ir/index.js";

/** Unsqueeze of `x` at `axes`, in the form of the opset the step goes to (attribute before 13). */
function unsqueeze(c: AdapterContext, x: string, axes: number[], base: string) {
  const out = c.fresh(base);
  return { name: out, node: opNode(c, "Unsqueeze", [x], [out], { axes }) };
}

const legacyUp: Adapter = (c: AdapterContext) => {
  const n = nodeWithoutAttributes(c.node, "broadcast", "axis");
  if (intAttr(c, "broadcast") !== 1 || getAttr(c.node, "axis") === undefined) return [n];
  const ra = rankOf(c, 0);
  const rb = rankOf(c, 1);
  if (ra === undefined || rb === undefined)
    c.fail("broadcast along 'axis' needs the ranks of A and B, which are unknown");
  const axis = intAttr(c, "axis")!;
  const start = axis < 0 ? axis + ra : axis;
  const trailing = ra - start - rb;
  if (start < 0 || trailing < 0)
    c.fail(`axis ${axis} does not fit B (rank ${rb}) into A (rank ${ra})`);
  if (trailing === 0) return [n];
  const u = unsqueeze(
    c,
    c.node.inputs[1]!,
    Array.from({ length: trailing }, (_, i) => rb + i),
    `${c.node.inputs[1]}_aligned`,
  );
  n.inputs = [c.node.inputs[0]!, u.name];
  return [u.node, n];
};

const same = (a: Dim[], b: Dim[]) =>
  a.length === b.length && a.every((d, i) => typeof d === "number" && d === b[i]);

const legacyDown: Adapter = (c: AdapterContext) => {
  const a = tensorTypeOf(c, 0)?.shape;
  const b = tensorTypeOf(c, 1)?.shape;
  if (!a || !b)
    c.fail("numpy broadcasting has a legacy form only when the shapes of A and B are known");
  if (same(a, b)) return undefined;
  const tail = a.slice(a.length - b.length);
  if (b.length <= a.length && (b.length === 0 || same(tail, b)))
    return [withAttributes(c.node, { broadcast: attr("broadcast", 1) })];
  return c.fail(
    `B [${b.join(",")}] does not broadcast onto A [${a.join(",")}] in the legacy way (trailing dimensions equal)`,
  );
};

const gemmDown: Adapter = (c: AdapterContext) => {
  const cs = tensorTypeOf(c, 2)?.shape;
  const yt = c.outputType(0);
  const ys = yt?.kind === "tensor" ? yt.shape : undefined;
  if (!cs || !ys)
    c.fail("C's broadcasting has a legacy form only when the shapes of C and Y are known");
  if (same(cs, ys)) return undefined;
  if (cs.length <= 2 && (cs.length === 0 || same(ys.slice(2 - cs.length), cs)))
    return [withAttributes(c.node, { broadcast: attr("broadcast", 1) })];
  return c.fail(`C [${cs.join(",")}] does not broadcast onto Y [${ys.join(",")}] in Gemm-6's way`);
};

const preluUp: Adapter = (c: AdapterContext) => {
  const x = tensorTypeOf(c, 0)?.shape;
  const s = tensorTypeOf(c, 1)?.shape;
  if (s && (s.length !== 1 || s[0] === 1)) return undefined;
  if (!x || !s)
    c.fail(
      "a 1-D slope applies per channel before PRelu-7: the shapes of X and slope must be known",
    );
  if (x.length <= 2 || s[0] !== x[1]) return undefined;
  const u = unsqueeze(
    c,
    c.node.inputs[1]!,
    Array.from({ length: x.length - 2 }, (_, i) => i + 1),
    `${c.node.inputs[1]}_per_channel`,
  );
  const n = withAttributes(c.node, {});
  n.inputs = [c.node.inputs[0]!, u.name];
  return [u.node, n];
};

const preluDown: Adapter = (c: AdapterContext) => {
  const x = tensorTypeOf(c, 0)?.shape;
  const s = tensorTypeOf(c, 1)?.shape;
  if (!x || !s)
    c.fail("the slope's broadcasting has a PRelu-6 form only when the shapes are known");
  const count = s.reduce<number | undefined>(
    (p, d) => (p === undefined || typeof d !== "number" ? undefined : p * d),
    1,
  );
  if (count === 1 || same(s, x)) return undefined;
  // [C, 1, ..., 1] per channel -> the 1-D slope PRelu-6 applies along axis 1.
  if (
    x.length > 2 &&
    s.length === x.length - 1 &&
    s[0] === x[1] &&
    s.slice(1).every((d) => d === 1)
  ) {
    const out = c.fresh(`${c.node.inputs[1]}_channels`);
    const sq = opNode(c, "Squeeze", [c.node.inputs[1]!], [out], {
      axes: Array.from({ length: s.length - 1 }, (_, i) => i + 1),
    });
    const n = withAttributes(c.node, {});
    n.inputs = [c.node.inputs[0]!, out];
    return [sq, n];
  }
  return c.fail(
    `slope [${s.join(",")}] of X [${x.join(",")}] has no PRelu-6 form (size 1, X's shape, or per channel)`,
  );
};

const legacyRows = (op: string, old: number): AdapterRow[] => [
  row(op, old, 7, "broadcast/axis dropped; B aligned at an axis gets trailing 1s", legacyUp),
  row(op, 7, old, "equal shapes, or B equal to A's trailing dimensions (broadcast=1)", legacyDown),
];

export const rows: AdapterRow[] = [
  ...["Add", "Sub", "Mul", "Div"].flatMap((op) => legacyRows(op, 6)),
  ...["Pow", "And", "Or", "Xor", "Equal", "Greater", "Less"].flatMap((op) => legacyRows(op, 1)),
  row(
    "Gemm",
    6,
    7,
    "broadcast dropped (C broadcasts unidirectionally from 7)",
    attributeDropped("broadcast"),
  ),
  row("Gemm", 7, 6, "C of Y's shape, or of its trailing dimensions (broadcast=1)", gemmDown),
  row("PRelu", 6, 7, "a per-channel 1-D slope becomes [C, 1, ..., 1]", preluUp),
  row(
    "PRelu",
    7,
    6,
    "slope of size 1, of X's shape, or [C, 1, ..., 1] (squeezed to [C])",
    preluDown,
  ),
];
