// Bodies of the version-18 Reduce functions (ReduceLogSum, ReduceL1, ReduceL2, ReduceLogSumExp,
// ReduceSumSquare). Each forwards both keepdims and noop_with_empty_axes to the reductions it
// uses (SEMANTICS.md "Function bodies"), and is well-typed for the element type of the call:
//
//   float, double        computed in the type itself
//   float16, bfloat16    Cast up to float, compute, Cast back (accumulate in at least float32)
//   integer types        sums stay in the type (wrap-around, like the kernel); Log/Sqrt/Exp,
//                        which take only float types, run in double and the result is cast back,
//                        which truncates toward zero. (A sum <= 0 has no integer log: the body
//                        casts -inf/NaN to the type, whatever the runtime makes of that.)
//   unknown              Cast to double, compute, CastLike back to the input (valid for any T)
//
// The text refers to the caller's attributes as @keepdims / @noop_with_empty_axes; functionBody()
// binds them to the call's values.

import { DataType } from "../../ir/types.js";
import { TextWriter } from "./writer.js";
import type { BodyBuilder, BuildArgs, FunctionBody } from "./context.js";

type Kind = "log_sum" | "l1" | "l2" | "sum_square" | "log_sum_exp";
type Class = "native" | "half" | "int" | "unknown";

function classify(elem: number | undefined): Class {
  if (elem === undefined) return "unknown";
  if (elem === DataType.FLOAT || elem === DataType.DOUBLE) return "native";
  if (elem === DataType.FLOAT16 || elem === DataType.BFLOAT16) return "half";
  return "int";
}

/** The formal names of every version-18 Reduce function. */
const DATA = "data";
const AXES = "axes";
const OUT = "reduced";
const FORWARD = "keepdims: int = @keepdims, noop_with_empty_axes: int = @noop_with_empty_axes";

function reduceBody(args: BuildArgs, kind: Kind): FunctionBody {
  const w = new TextWriter(`_${kind}_`);
  const elem = args.elemType(0);
  const cls = classify(elem);
  const sum = (x: string, out?: string) => w.op("ReduceSum", [x, AXES], FORWARD, out);

  if (kind === "log_sum_exp") {
    logSumExp(w, cls, elem);
  } else {
    const pre = (x: string) =>
      kind === "l1" ? w.op("Abs", [x]) : kind === "log_sum" ? x : w.op("Mul", [x, x]);
    const post = kind === "log_sum" ? "Log" : kind === "l2" ? "Sqrt" : undefined;
    if (cls === "native") {
      if (post) w.op(post, [sum(pre(DATA))], "", OUT);
      else sum(pre(DATA), OUT);
    } else if (cls === "half") {
      const r = sum(pre(w.cast(DATA, DataType.FLOAT)));
      w.op("Cast", [post ? w.op(post, [r]) : r], `to: int = ${elem}`, OUT);
    } else if (cls === "int") {
      // Sums (and squares, absolute values) stay exact modulo 2^bits in the integer type.
      const r = sum(pre(DATA));
      if (post) w.op("Cast", [w.op(post, [w.cast(r, DataType.DOUBLE)])], `to: int = ${elem}`, OUT);
      else w.op("Identity", [r], "", OUT);
    } else if (post) {
      const r = w.op(post, [sum(pre(w.cast(DATA, DataType.DOUBLE)))]);
      w.op("CastLike", [r, DATA], "", OUT);
    } else {
      // Abs, Mul and ReduceSum take every type of the constraint: no cast needed.
      sum(pre(DATA), OUT);
    }
  }
  return { nodes: w.nodes(`${args.label} body`), opsetImports: [{ domain: "", version: 18 }] };
}

/**
 * log(sum(exp(x))) shifted by the maximum so that it neither overflows nor underflows:
 * m = ReduceMax(x) (kept dims), m' = m where finite else 0, result = log(sum(exp(x - m'))) + m'.
 * An infinite maximum makes the shift 0, which gives +inf for a +inf element and -inf for an
 * all -inf (or empty) set; NaN passes through.
 */
function logSumExp(w: TextWriter, cls: Class, elem: number | undefined): void {
  const compute = cls === "native" ? elem! : cls === "half" ? DataType.FLOAT : DataType.DOUBLE;
  const x = cls === "native" ? DATA : w.cast(DATA, compute);
  const m = w.op(
    "ReduceMax",
    [x, AXES],
    "keepdims: int = 1, noop_with_empty_axes: int = @noop_with_empty_axes",
  );
  const shift = w.op("Where", [w.op("IsInf", [m]), w.scalar(compute, 0, "zero"), m]);
  const s = w.op("ReduceSum", [w.op("Exp", [w.op("Sub", [x, shift])]), AXES], FORWARD);
  // The shift has size 1 on every reduced axis: summing it over the same axes drops or keeps
  // those dimensions exactly as keepdims says, without changing its values.
  const shiftOut = w.op("ReduceSum", [shift, AXES], FORWARD);
  const r = w.op("Add", [w.op("Log", [s]), shiftOut], "", cls === "native" ? OUT : undefined);
  if (cls === "native") return;
  if (cls === "unknown") w.op("CastLike", [r, DATA], "", OUT);
  else w.op("Cast", [r], `to: int = ${elem}`, OUT);
}

export const reduceBuilders: Record<string, BodyBuilder> = {
  reduce_log_sum: (a) => reduceBody(a, "log_sum"),
  reduce_l1: (a) => reduceBody(a, "l1"),
  reduce_l2: (a) => reduceBody(a, "l2"),
  reduce_sum_square: (a) => reduceBody(a, "sum_square"),
  reduce_log_sum_exp: (a) => reduceBody(a, "log_sum_exp"),
};
