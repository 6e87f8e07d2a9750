// The body of LogCumSumExp-29: an exact cumulative log-sum-exp from standard ops.
//
// The tempting body m + Log(CumSum(Exp(x - m))) underflows on wide ranges (SEMANTICS.md), so
// this one combines neighbours with a careful log-add-exp instead:
//
//   lae(a, b) = max(a, b) + log1p(exp(-|a - b|))
//
// with log1p(e) for e in [0, 1] computed as e when 1 + e rounds to 1, else log(u) * e / (u - 1)
// with u = 1 + e (exact to a few ulp, unlike log(1 + e) for small e). Special values fall out
// of the arithmetic: +inf beside anything finite gives +inf, -inf adds nothing (e = 0), two equal
// infinities give that infinity, and a NaN operand gives NaN.
//
// Static axis length n: a Hillis-Steele scan, ceil(log2 n) steps of y = lae(y, y shifted by d
// along the axis with -inf filling the first d places). Otherwise: a Scan op carrying the running
// value s = lae(s, x_t) from an all -inf start (under an If that passes an empty input through);
// also for a static length when the caller sets preferLoops.
//
// Precision: float and double inputs are computed in double, float16 and bfloat16 in float, and
// the result is cast back once at the end. An unknown input type is computed in double and cast
// back with CastLike. The axis is taken from the call (it must be a value, not a reference).

import { OnnxError } from "../../errors.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { TextWriter } from "./writer.js";
import type { BodyBuilder, FunctionBody } from "./context.js";

const X = "X";
const Y = "Y";
/** Every op used has its current meaning from opset 18 on (Pad with an axes input is 18). */
const BODY_OPSET = 18;
const MAX_INDEX = Number.MAX_SAFE_INTEGER;

/** Writes lae(a, b); returns the result name (`out` when given). */
function logAddExp(
  w: TextWriter,
  a: string,
  b: string,
  c: { zero: string; one: string },
  out?: string,
): string {
  const m = w.op("Max", [a, b]);
  // a - b is NaN for two equal infinities, whose lae is that infinity: use 0 there instead
  // (m + log 2 is then the infinity). A NaN operand keeps the difference NaN, so the sum below
  // is NaN whatever Max does with NaN.
  const diff = w.op("Where", [w.op("Equal", [a, b]), c.zero, w.op("Sub", [a, b])]);
  const e = w.op("Exp", [w.op("Neg", [w.op("Abs", [diff])])]);
  const u = w.op("Add", [e, c.one]);
  const den = w.op("Sub", [u, c.one]);
  const ratio = w.op("Div", [w.op("Mul", [w.op("Log", [u]), e]), den]);
  const log1p = w.op("Where", [w.op("Equal", [den, c.zero]), e, ratio]);
  return w.op("Add", [m, log1p], "", out);
}

export const logCumSumExpBuilder: BodyBuilder = (args): FunctionBody => {
  const w = new TextWriter("_lcse_");
  const elem = args.elemType(0);
  const shape = args.shape(0);
  const axis = args.intValue("axis") ?? 0;
  const allowed = [
    DataType.FLOAT,
    DataType.DOUBLE,
    DataType.FLOAT16,
    DataType.BFLOAT16,
  ] as number[];
  if (elem !== undefined && !allowed.includes(elem))
    throw new OnnxError(
      "E_MODEL",
      `${args.label}: input 'X' has element type ${dtypeName(elem)}, which T does not allow`,
    );
  let n: number | undefined;
  if (shape) {
    const r = shape.length;
    if (r === 0)
      throw new OnnxError("E_MODEL", `${args.label}: input 'X' must have rank >= 1, not 0`);
    if (axis < -r || axis >= r)
      throw new OnnxError("E_MODEL", `${args.label}: axis ${axis} is out of range for rank ${r}`);
    const d = shape[axis < 0 ? axis + r : axis];
    if (typeof d === "number") n = d;
  }
  const compute =
    elem === DataType.FLOAT16 || elem === DataType.BFLOAT16 ? DataType.FLOAT : DataType.DOUBLE;
  const x = elem === compute ? X : w.cast(X, compute);
  const finish = (y: string) => {
    if (elem === compute) w.op("Identity", [y], "", Y);
    else if (elem === undefined) w.op("CastLike", [y, X], "", Y);
    else w.op("Cast", [y], `to: int = ${elem}`, Y);
  };

  if (n !== undefined && !args.ctx.preferLoops) {
    let y = x;
    if (n > 1) {
      const c = { zero: w.scalar(compute, 0, "zero"), one: w.scalar(compute, 1, "one") };
      const negInf = w.scalar(compute, -Infinity, "neginf");
      const axes = w.ints([axis], "axis");
      const zeros = w.ints([0], "start");
      for (let d = 1; d < n; d *= 2) {
        const head = w.op("Slice", [y, zeros, w.ints([n - d], "end"), axes]);
        const shifted = w.op("Pad", [head, w.ints([d, 0], "pads"), negInf, axes]);
        y = logAddExp(w, y, shifted, c);
      }
    }
    finish(y);
  } else {
    // onnxruntime's Scan fails hard on empty tensors, and an empty input's result is itself:
    // If(Size(X) == 0) then X else the Scan.
    const t = dtypeName(compute);
    const scan = new TextWriter("_lcse_dyn_");
    const scanned = scanPath(scan, x, axis, compute);
    const empty = w.op("Equal", [w.op("Size", [x]), w.constant("int64 {0}", "zero")]);
    const pass = new TextWriter("_lcse_empty_");
    const passed = pass.op("Identity", [x]);
    const thenG = pass.graph("empty_input", [], [`${t}[] ${passed}`]);
    const elseG = scan.graph("scan_input", [], [`${t}[] ${scanned}`]);
    finish(w.op("If", [empty], `then_branch: graph = ${thenG}, else_branch: graph = ${elseG}`));
  }
  return {
    nodes: w.nodes(`${args.label} body`),
    opsetImports: [{ domain: "", version: BODY_OPSET }],
  };
};

/**
 * The Scan form, written into w; returns the result's name. Runtimes need the rank of a Scan
 * step's values, which an input of unknown rank does not give, so it scans a [outer, n, inner]
 * view of X along axis 1 and reshapes back at the end.
 */
function scanPath(w: TextWriter, x: string, axis: number, compute: number): string {
  const afterStart = axis === -1 ? MAX_INDEX : axis + 1;
  const outer = w.op("ReduceProd", [w.op("Shape", [x], `end: int = ${axis}`)], "keepdims: int = 1");
  const len = w.op("Shape", [x], `start: int = ${axis}, end: int = ${afterStart}`);
  const inner = w.op(
    "ReduceProd",
    [w.op("Shape", [x], `start: int = ${afterStart}`)],
    "keepdims: int = 1",
  );
  const view = w.op(
    "Reshape",
    [x, w.op("Concat", [outer, len, inner], "axis: int = 0")],
    "allowzero: int = 1",
  );
  const stateShape = w.op("Concat", [outer, inner], "axis: int = 0");
  const t = dtypeName(compute);
  const init = w.op("ConstantOfShape", [stateShape], `value = ${t}[1] {-inf}`);
  const b = new TextWriter("_lcse_step_");
  const [sIn, xIn, sOut, yOut] = ["_lcse_s_in", "_lcse_x_t", "_lcse_s_out", "_lcse_y_t"];
  const c = { zero: b.scalar(compute, 0, "zero"), one: b.scalar(compute, 1, "one") };
  logAddExp(b, sIn, xIn, c, sOut);
  b.op("Identity", [sOut], "", yOut);
  const slice = `${t}[?,?]`;
  const body = b.graph(
    "log_add_exp_step",
    [`${slice} ${sIn}`, `${slice} ${xIn}`],
    [`${slice} ${sOut}`, `${slice} ${yOut}`],
  );
  const [, ys] = w.opN(
    "Scan",
    [init, view],
    [w.fresh("last"), w.fresh("scan")],
    `num_scan_inputs: int = 1, scan_input_axes: ints = [1], scan_output_axes: ints = [1], body: graph = ${body}`,
  );
  return w.op("Reshape", [ys!, w.op("Shape", [x])], "allowzero: int = 1");
}
