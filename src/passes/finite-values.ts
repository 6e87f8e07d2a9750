// finite-values: which float values of the main graph are shown finite (no NaN, no ±inf) for
// every input, or free of NaN and +inf with -inf allowed (an attention mask of 0 and -inf, and
// what Add, Where, Concat, Max, Min, ReduceMax and the data movers make of it), by bounds carried forward from what is known: float constants whose values are all
// finite, integers of any value cast to float, and ops whose output is bounded whatever their
// input (Cos, Sin, Sigmoid, Tanh, Erf on finite values; Log of values ≥ 0, down to -inf; Softmax of finite values lies in [0, 1]).
// Each bound is an interval [lo, hi] of the values the op can give in its element type: an op
// rounded once (Add, Sub, Mul, Div, Sqrt) gives its exact result rounded to nearest, which is
// monotone, so the interval of the exact results (computed in double, widened by a relative 2^-40
// for double's own rounding) rounds to one that holds every result; an exact result below the
// type's overflow threshold (max + half an ulp) rounds to at most max. Ops that round many times
// (MatMul, ReduceMean) get a bound twice the exact one. A float graph input has
// no bound (it may hold NaN); an op not listed here has none either. Used where a rewrite is exact
// only on finite values (legalize-isnan).

import { analysisOf } from "../check/infer.js";
import { attrInt, attrInts } from "../ir/attributes.js";
import { DataType, staticShape, type Model } from "../ir/types.js";
import { constantTensor } from "./lift-constants.js";
import type { PassContext } from "./pass.js";

/** [lo, hi]: every value lies within; lo may be -inf (a mask's), hi never is +inf. */
export type Bound = readonly [number, number];

/** Whether x is shown finite (bounded at both ends). */
export function finite(bounds: ReadonlyMap<string, Bound>, x: string): boolean {
  const b = bounds.get(x);
  return !!b && b[0] > -Infinity;
}

/** The largest finite value and the overflow threshold (max + half an ulp) of a float type. */
const LIMITS = new Map<number, [number, number]>([
  [DataType.FLOAT, [3.4028234663852886e38, 3.4028235677973366e38]],
  [DataType.FLOAT16, [65504, 65520]],
  [DataType.DOUBLE, [Number.MAX_VALUE, Number.MAX_VALUE]],
]);
const INT_RANGE = new Map<number, Bound>([
  [DataType.INT64, [-(2 ** 63), 2 ** 63]],
  [DataType.INT32, [-(2 ** 31), 2 ** 31]],
  [DataType.INT16, [-(2 ** 15), 2 ** 15]],
  [DataType.INT8, [-128, 127]],
  [DataType.UINT8, [0, 255]],
  [DataType.BOOL, [0, 1]],
]);
const WIDEN = 2 ** -40;
const MOVES = new Set([
  "Identity",
  "Reshape",
  "Transpose",
  "Squeeze",
  "Unsqueeze",
  "Flatten",
  "Slice",
  "Expand",
  "Tile",
  "Split",
  "Gather",
  "GatherND",
  "GatherElements",
  "ReduceMax",
  "ReduceMin",
  "MaxPool",
  "Dropout",
]);

/** Bounds of the float values of the main graph shown free of NaN and +inf, by name. */
export function finiteBounds(model: Model, ctx?: PassContext): Map<string, Bound> {
  const g = model.graph;
  const types = analysisOf(model, { registry: ctx?.registry }).types.get(g) ?? new Map();
  const bounds = new Map<string, Bound>();
  const elem = (x: string) => {
    const t = types.get(x);
    return t?.kind === "tensor" ? t.elemType : undefined;
  };
  const ofTensor = (name: string, dataType: number, values: () => number[]) => {
    if (!LIMITS.has(dataType)) return;
    let [lo, hi] = [Infinity, -Infinity];
    for (const v of values()) {
      if (Number.isNaN(v) || v === Infinity) return;
      [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
    }
    bounds.set(name, lo <= hi ? [lo, hi] : [0, 0]);
  };
  for (const t of g.initializers) if (t.readable) ofTensor(t.name, t.dataType, () => t.numbers());
  /** The bound of an exact result [lo, hi] as rounded into y's type (undefined if it may overflow). */
  const set = (y: string | undefined, lo: number, hi: number, factor = 1) => {
    const lim = y ? LIMITS.get(elem(y) ?? -1) : undefined;
    if (!y || !lim || !(lo <= hi)) return;
    const w = (v: number) => Math.abs(v) * (factor - 1 + WIDEN);
    [lo, hi] = [lo - w(lo), hi + w(hi)];
    if (!((lo === -Infinity || Math.abs(lo) < lim[1]) && Math.abs(hi) < lim[1])) return;
    bounds.set(y, [lo === -Infinity ? lo : Math.max(lo, -lim[0]), Math.min(hi, lim[0])]);
  };
  const intBound = (x: string): Bound | undefined => INT_RANGE.get(elem(x) ?? -1);
  const products = (a: Bound, b: Bound) => {
    const p = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]].map((v) =>
      Number.isNaN(v) ? 0 : v,
    );
    return [Math.min(...p), Math.max(...p)] as const;
  };
  const mag = (a: Bound) => Math.max(Math.abs(a[0]), Math.abs(a[1]));
  const producers = new Map(g.nodes.flatMap((n) => n.outputs.map((o) => [o, n] as const)));
  const plain = (x: string | undefined, op: string) => {
    const p = x ? producers.get(x) : undefined;
    return p && p.opType === op && (p.domain ?? "") === "" ? p : undefined;
  };
  /**
   * A root-mean-square normalization x / sqrt(mean(x²) + ε) with ε > 0 (as Mul by its
   * Reciprocal, by 1 / it, or a Div), over n values: each |result| ≤ |x_i| / sqrt(x_i² / n) = √n
   * (the bound given, whatever x is, provided x is finite).
   */
  const normalized = (n: (typeof g.nodes)[number]): number | undefined => {
    const [x, r] = n.inputs;
    if (!x || !r) return undefined;
    let s: string | undefined;
    if (n.opType === "Div") s = r;
    else {
      const rec = plain(r, "Reciprocal");
      const div = plain(r, "Div");
      s =
        rec?.inputs[0] ??
        (div && bounds.get(div.inputs[0] ?? "")?.every((v) => v === 1) ? div.inputs[1] : undefined);
    }
    const add = plain(plain(s, "Sqrt")?.inputs[0], "Add");
    if (!add) return undefined;
    const eps = bounds.get(add.inputs[1] ?? "");
    const mean = plain(add.inputs[0], "ReduceMean");
    const sq = plain(mean?.inputs[0], "Pow") ?? plain(mean?.inputs[0], "Mul");
    if (!eps || !(eps[0] > 0) || !mean || !sq || !finite(bounds, x) || sq.inputs[0] !== x)
      return undefined;
    if (
      sq.opType === "Pow"
        ? !bounds.get(sq.inputs[1] ?? "")?.every((v) => v === 2)
        : sq.inputs[1] !== x
    )
      return undefined;
    const shape = staticShape(types.get(x));
    const axes = mean.inputs[1] ? constAxes(mean.inputs[1]) : attrInts(mean, "axes");
    if (!shape || !axes) return undefined;
    return Math.sqrt(
      axes.reduce((p, ax) => p * (shape[ax < 0 ? ax + shape.length : ax] ?? NaN), 1),
    );
  };
  /**
   * e / G with e ≥ 0 and G its row sums (ReduceSum keeping dims) guarded against 0 — Max(sum, c)
   * or Where(Equal(sum, 0), c, sum) with c > 0: each element lies in [0, 1] (a sum of values ≥ 0
   * rounded at each step is at least each of them; a row summing to 0 is all 0).
   */
  const shareOfRow = (n: (typeof g.nodes)[number]): boolean => {
    const [e, guard] = n.inputs;
    const eb = e ? bounds.get(e) : undefined;
    if (n.opType !== "Div" || !e || !guard || !eb || !(eb[0] >= 0)) return false;
    const positive = (x: string | undefined) => !!x && (bounds.get(x)?.[0] ?? 0) > 0;
    const max = plain(guard, "Max");
    const where = plain(guard, "Where");
    const eq = plain(where?.inputs[0], "Equal");
    const sum = max
      ? max.inputs.find((x) => !positive(x) || plain(x, "ReduceSum"))
      : where && eq && positive(where.inputs[1]) && eq.inputs.includes(where.inputs[2]!)
        ? where.inputs[2]
        : undefined;
    const zero = eq?.inputs.find((x) => x !== sum);
    if (where && !bounds.get(zero ?? "")?.every((v) => v === 0)) return false;
    if (max && !(max.inputs.length === 2 && max.inputs.some((x) => x !== sum && positive(x))))
      return false;
    const rs = plain(sum, "ReduceSum");
    return !!rs && rs.inputs[0] === e && attrInt(rs, "keepdims", 1) === 1;
  };
  /**
   * s - G with G its row maxima (ReduceMax keeping dims), or those raised to a constant (Max), or
   * guarded (Where(Equal(m, -inf), z, m)): at most 0 wherever s has no NaN or +inf (an element is
   * at most its row's maximum; a row whose maximum is -inf is all -inf).
   */
  const belowRowMax = (n: (typeof g.nodes)[number]): boolean => {
    const [x, guard] = n.inputs;
    if (!x || !guard || !bounds.has(x)) return false;
    const max = plain(guard, "Max");
    const where = plain(guard, "Where");
    const m = max
      ? max.inputs.find((i) => plain(i, "ReduceMax"))
      : where && plain(where.inputs[0], "Equal")
        ? where.inputs[2]
        : guard;
    if (max && !(max.inputs.length === 2 && max.inputs.every((i) => i === m || finite(bounds, i))))
      return false;
    if (
      where &&
      !(
        finite(bounds, where.inputs[1] ?? "") &&
        // a Where over anything but an Equal is no guard of a row maximum
        plain(where.inputs[0], "Equal")?.inputs.includes(m!)
      )
    )
      return false;
    const rm = plain(m, "ReduceMax");
    return !!rm && rm.inputs[0] === x && attrInt(rm, "keepdims", 1) === 1;
  };
  const constAxes = (x: string): number[] | undefined => {
    const t = g.initializers.find((i) => i.name === x);
    const p = plain(x, "Constant");
    const c = t ?? (p && p.outputs[0] ? constantTensor(p, p.outputs[0]) : undefined);
    return c && c.elementCount <= 16 ? c.numbers() : undefined;
  };
  for (const n of g.nodes) {
    if ((n.domain ?? "") !== "" && n.domain !== "ai.onnx") continue;
    const [y] = n.outputs;
    // raw: a bound whose low end may be -inf; b: a finite one
    const raw = (k: number): Bound | undefined => {
      const x = n.inputs[k];
      return x ? bounds.get(x) : undefined;
    };
    const b = (k: number) => {
      const r = raw(k);
      return r && r[0] > -Infinity ? r : undefined;
    };
    const [a, c] = [b(0), b(1)];
    const k = staticShape(types.get(n.inputs[0] ?? ""));
    switch (n.opType) {
      case "Constant": {
        const t = y ? constantTensor(n, y) : undefined;
        if (t && y) ofTensor(y, t.dataType, () => t.numbers());
        break;
      }
      case "Cast": {
        const from = a ?? (n.inputs[0] ? intBound(n.inputs[0]) : undefined);
        if (from) set(y, from[0], from[1]);
        break;
      }
      case "Concat":
      case "Max":
      case "Min":
      case "Where": {
        const parts = (n.opType === "Where" ? [1, 2] : n.inputs.map((_, i) => i)).map(raw);
        if (!parts.length || !parts.every((p) => p)) break;
        const [los, his] = [parts.map((p) => p![0]), parts.map((p) => p![1])];
        if (n.opType === "Max") set(y, Math.max(...los), Math.max(...his));
        else if (n.opType === "Min") set(y, Math.min(...los), Math.min(...his));
        else set(y, Math.min(...los), Math.max(...his));
        break;
      }
      case "Add": {
        // -inf + a finite value is -inf; there is no +inf to make a NaN
        const [ra, rc] = [raw(0), raw(1)];
        if (ra && rc) set(y, ra[0] + rc[0], ra[1] + rc[1]);
        break;
      }
      case "Sub":
        if (belowRowMax(n) && raw(0)) set(y, raw(0)![0] - (raw(1)?.[1] ?? Infinity), 0);
        else if (a && c) set(y, a[0] - c[1], a[1] - c[0]);
        break;
      case "Neg":
        if (a) set(y, -a[1], -a[0]);
        break;
      case "Abs":
        if (a) set(y, a[0] <= 0 && a[1] >= 0 ? 0 : Math.min(...a.map(Math.abs)), mag(a));
        break;
      case "Relu":
        if (a) set(y, Math.max(a[0], 0), Math.max(a[1], 0));
        break;
      case "Mul":
      case "Div":
        if (normalized(n)) set(y, -normalized(n)!, normalized(n)!, 2);
        else if (shareOfRow(n)) set(y, 0, 1);
        else if (n.opType === "Mul" && a && c) set(y, ...products(a, c));
        else if (n.opType === "Div" && a && c && (c[0] > 0 || c[1] < 0))
          set(y, ...products(a, [1 / c[1], 1 / c[0]]));
        break;
      case "Reciprocal": {
        if (a && (a[0] > 0 || a[1] < 0)) set(y, ...products([1, 1], [1 / a[1], 1 / a[0]]));
        break;
      }
      case "Sqrt":
        if (a && a[0] >= 0) set(y, Math.sqrt(a[0]), Math.sqrt(a[1]));
        break;
      case "Pow": {
        const e = n.inputs[1] ? bounds.get(n.inputs[1]) : undefined;
        if (a && e && e[0] === 2 && e[1] === 2)
          set(y, a[0] <= 0 && a[1] >= 0 ? 0 : Math.min(a[0] ** 2, a[1] ** 2), mag(a) ** 2);
        break;
      }
      case "Cos":
      case "Sin":
      case "Tanh":
      case "Erf":
        if (a) set(y, -1, 1);
        break;
      case "Sigmoid":
      case "Softmax":
        if (a) set(y, 0, 1);
        break;
      case "Exp":
        if (raw(0)) set(y, Math.exp(raw(0)![0]), Math.exp(raw(0)![1]));
        break;
      case "Log":
        // a mask's Log (legalize-mask): 0 and -inf; widened for a Log not correctly rounded
        if (a && a[0] >= 0 && a[1] > 0) set(y, Math.log(a[0]), Math.log(a[1]), 1 + 2 ** -20);
        break;
      case "ReduceMean":
        if (a) set(y, a[0], a[1], 2);
        break;
      case "MatMul": {
        const inner = k?.[k.length - 1];
        if (a && c && inner !== undefined) {
          const m = mag(a) * mag(c) * inner;
          set(y, -m, m, 2);
        }
        break;
      }
      default:
        if (MOVES.has(n.opType) && raw(0))
          for (const o of n.outputs) set(o, raw(0)![0], raw(0)![1]);
    }
  }
  return bounds;
}
