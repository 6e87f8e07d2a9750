// Steps down to a version without the integer types (Max/Min 12 -> 8, Clip 12 -> 11). These ops
// return one of their operands, so a float type that holds every value of the integer type
// exactly can carry the computation: float for 8- and 16-bit integers, double for 32-bit ones
// (Max/Min; Clip-11 is commonly implemented for float only). Otherwise (64-bit integers) the op
// is written with comparisons and Where, which take every numeric type:
// Max(a, b) = Where(Greater(a, b), a, b), Clip(x, lo, hi) = Min(Max(x, lo), hi).

import { DataType, type Node } from "../../ir/types.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import { compatible, row } from "./kit.js";
import { opNode, tensorTypeOf, withAttributes } from "./nodes.js";

const CARRIER: Record<number, number> = {
  [DataType.INT8]: DataType.FLOAT,
  [DataType.UINT8]: DataType.FLOAT,
  [DataType.INT16]: DataType.FLOAT,
  [DataType.UINT16]: DataType.FLOAT,
  [DataType.INT32]: DataType.DOUBLE,
  [DataType.UINT32]: DataType.DOUBLE,
};

/** The node run on its inputs cast to `carrier`, its output cast back to `elem`. */
function carried(c: AdapterContext, carrier: number, elem: number): Node[] {
  const out: Node[] = [];
  const n = withAttributes(c.node, {});
  n.inputs = c.node.inputs.map((x) => {
    if (x === "") return x;
    const d = c.fresh(`${x}_float`);
    out.push(opNode(c, "Cast", [x], [d], { to: carrier }));
    return d;
  });
  const y = c.node.outputs[0]!;
  const yd = c.fresh(`${y}_float`);
  n.outputs = [yd];
  out.push(n, opNode(c, "Cast", [yd], [y], { to: elem }));
  return out;
}

/** The float type to carry the node's integer type in, if one holds it exactly (and `ok`). */
function carrierFor(
  c: AdapterContext,
  ok: (carrier: number) => boolean,
): [number, number] | undefined {
  const elem = tensorTypeOf(c, 0)?.elemType;
  const carrier = elem === undefined ? undefined : CARRIER[elem];
  return carrier !== undefined && ok(carrier) ? [carrier, elem!] : undefined;
}

/** Where, and Greater/Less on every numeric type, exist from this opset on. */
const WHERE_SINCE = 9;

/**
 * Refuses at once when the conversion goes below Where: the nodes written here could never step
 * down (a Max of 500,000 int64 inputs would otherwise become a million nodes, each then refused).
 */
function needWhere(c: AdapterContext): void {
  if (c.target < WHERE_SINCE)
    c.fail(
      `${c.to.name}-${c.to.since} lacks the element type of '${c.node.inputs[0]}'; written with Greater/Less and Where instead, which do not exist before opset ${WHERE_SINCE} (target ${c.target})`,
    );
}

/** `a` or `b` by comparison `cmp` (Greater picks the larger), writing `out`. */
function pick(
  c: AdapterContext,
  cmp: "Greater" | "Less",
  a: string,
  b: string,
  out: string,
): Node[] {
  const cond = c.fresh(`${out}_${cmp.toLowerCase()}`);
  return [opNode(c, cmp, [a, b], [cond]), opNode(c, "Where", [cond, a, b], [out])];
}

/** Folds the inputs pairwise with `cmp`; the last node writes the node's output. */
function fold(c: AdapterContext, cmp: "Greater" | "Less", inputs: string[]): Node[] {
  const y = c.node.outputs[0]!;
  if (inputs.length === 1) return [opNode(c, "Identity", [inputs[0]!], [y])];
  const out: Node[] = [];
  let acc = inputs[0]!;
  inputs.slice(1).forEach((x, i) => {
    const name = i === inputs.length - 2 ? y : c.fresh(`${y}_partial`);
    out.push(...pick(c, cmp, acc, x, name));
    acc = name;
  });
  return out;
}

/** Max/Min on a type Max-8/Min-8 lack (the row's type check sends only those here). */
const byWhere =
  (cmp: "Greater" | "Less"): Adapter =>
  (c: AdapterContext) => {
    const via = carrierFor(c, () => true);
    if (via) return carried(c, ...via);
    needWhere(c);
    return fold(
      c,
      cmp,
      c.node.inputs.filter((x) => x !== ""),
    );
  };

/** Clip on a type Clip-11 lacks (the row's type check sends only those here). */
const clipByWhere: Adapter = (c: AdapterContext) => {
  const via = carrierFor(c, (t) => t === DataType.FLOAT);
  if (via) return carried(c, ...via);
  const [x, lo = "", hi = ""] = c.node.inputs;
  const y = c.node.outputs[0]!;
  if (lo === "" && hi === "") return [opNode(c, "Identity", [x!], [y])];
  needWhere(c);
  const out: Node[] = [];
  let acc = x!;
  if (lo !== "") {
    const name = hi === "" ? y : c.fresh(`${y}_low`);
    out.push(...pick(c, "Greater", acc, lo, name));
    acc = name;
  }
  if (hi !== "") out.push(...pick(c, "Less", acc, hi, y));
  return out;
};

const summary =
  "integer types the older version lacks: carried in a float type that holds them exactly, else by comparisons and Where";

/** The row of a step whose type check hands the nodes of a missing type to `rewrite`. */
const widened = (op: string, from: number, to: number, rewrite: Adapter) =>
  row(op, from, to, summary, compatible, { typeMissing: rewrite });

export const rows: AdapterRow[] = [
  widened("Max", 12, 8, byWhere("Greater")),
  widened("Min", 12, 8, byWhere("Less")),
  widened("Clip", 12, 11, clipByWhere),
];
