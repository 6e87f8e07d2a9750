// The body of com.microsoft's DynamicQuantizeLSTM: an LSTM whose W [dirs, input, 4H] and R
// [dirs, H, 4H] are quantized (int8 or uint8, a scale and zero point per direction or per
// direction and column), computed as onnxruntime computes it, per step:
//
//   the input sequence (all steps and rows at once) quantized to uint8 as DynamicQuantizeLinear
//   does, but with scale 1 for an all-zero range; its integer product with W's codes rescaled by
//   x_scale · W_scale (a float32 product), in float32;
//   at each step, each batch row's hidden state quantized likewise on its own (with hidden_size
//   above 256 and at most 4 rows, the batch's rows together), its integer product with R's codes
//   rescaled by h_scale · R_scale and added to the input part, then the bias Wb + Rb;
//   the gates i, o, f, c by Sigmoid, Sigmoid, Sigmoid, Tanh; C = C_prev·f + i·c, H = o·tanh(C).
//
// onnxruntime quantizes together the hidden-state rows one of its threads computes: it splits the
// batch among its threads when the batch has more than 4 rows or hidden_size is at most 256, else
// one thread takes all of them. The body follows the split with a thread per row, the only
// grouping a graph can know (docs/semantics.md: fewer threads than rows group them otherwise).
//
// That form needs the defaults of what onnxruntime's quantized path also computes otherwise
// (activations, no peepholes, clip, input_forget, sequence_lens): a call that sets any of them
// gets the approximate body instead, the weights dequantized and then LSTM.

import { DataType } from "../../ir/types.js";
import { OnnxError } from "../../errors.js";
import { finish } from "./activations.js";
import type { BodyBuilder, BuildArgs } from "./context.js";
import { positiveIndicator, TextWriter } from "./writer.js";

const F = DataType.FLOAT;
const I32 = DataType.INT32;
const U8 = DataType.UINT8;

function unsupported(args: BuildArgs, why: string): never {
  throw new OnnxError("E_UNSUPPORTED", `${args.label} has no body here: ${why}`);
}

/** Whether the call keeps to what the exact body computes (else: the approximate one). */
function exactForm(args: BuildArgs): boolean {
  if (args.hasInput(4) || args.hasInput(7)) return false; // sequence_lens, peepholes
  if (args.elemType(0) !== undefined && args.elemType(0) !== F) return false;
  if ((args.intValue("input_forget") ?? 0) !== 0) return false;
  if (args.attribute("clip")) return false;
  const acts = args.attribute("activations");
  if (acts) {
    if (acts.type !== "STRINGS" || acts.value === undefined) return false;
    const names = acts.value as string[];
    if (names.some((n, i) => n.toLowerCase() !== ["sigmoid", "tanh", "tanh"][i % 3])) return false;
  }
  return true;
}

/**
 * x quantized to uint8 by onnxruntime's dynamic rule over `axes` (all axes: one scale): the range
 * [min(x, 0), max(x, 0)], scale (max - min) / 255 (1 when max = min), zero point round(0 - min /
 * scale) in [0, 255], codes round(x / scale) + zero point, saturated. Returns the codes (uint8),
 * the scale and the zero point (float, with the reduced axes kept). `wholeWhen`, a boolean
 * tensor: where true, the range is over all of x instead.
 */
function quantizeU8(w: TextWriter, x: string, axes?: number[], wholeWhen?: string) {
  // the axes as an input (ReduceMin/ReduceMax-18), so that the body means the same at every
  // later opset; an older caller gets it converted down
  const inputs = axes ? [x, w.ints(axes, "raxes")] : [x];
  const red = `keepdims: int = ${axes ? 1 : 0}`;
  const range = (op: string) => {
    const part = w.op(op, inputs, red);
    return wholeWhen ? w.op("Where", [wholeWhen, w.op(op, [x], "keepdims: int = 1"), part]) : part;
  };
  // In ops every target of `lower` has (CoreML has no ReduceMin, Min or comparison), each exact:
  // min(min x, 0) = −max(max(−x), 0); the range d = max − min is 0 only where both are, so
  // z = clip(d · 2^100 · 2^100, 0, 1) is 1 for every d > 0 (the least subnormal included), 0 for
  // 0, NaN for NaN, and scale = d/255 · z + (1 − z) is 1 where d = 0, else d/255.
  const zero = w.constant("float {0.0}", "zero");
  const minus = w.constant("float {-1.0}", "minus");
  const negated = w.op("Mul", [x, minus]);
  const negInputs = axes ? [negated, inputs[1]!] : [negated];
  const negPart = w.op("ReduceMax", negInputs, red);
  const negRange = wholeWhen
    ? w.op("Where", [wholeWhen, w.op("ReduceMax", [negated], "keepdims: int = 1"), negPart])
    : negPart;
  const mn = w.op("Mul", [w.op("Max", [negRange, zero]), minus]);
  const mx = w.op("Max", [range("ReduceMax"), zero]);
  const d = w.op("Sub", [mx, mn]);
  const one = w.constant("float {1.0}", "one");
  const z = positiveIndicator(w, d, zero, one);
  const scale = w.op("Add", [
    w.op("Mul", [w.op("Div", [d, w.constant("float {255.0}", "q255")]), z]),
    w.op("Sub", [one, z]),
  ]);
  // The zero point: its Round's input is never −0 (0 − a value ≤ 0), and adding +0 says so to
  // legalize-round (a Round every use of which adds a constant without −0), for NNAPI.
  const hi = w.constant("float {255.0}", "hi");
  const zpClipped = w.op("Clip", [w.op("Sub", [zero, w.op("Div", [mn, scale])]), zero, hi]);
  const zp = w.op("Add", [w.op("Round", [zpClipped]), zero]);
  // The codes clamp first, as onnxruntime has it: Clip(Round(t) + zp, 0, 255) = zp −
  // Round(max(−max(t, −zp), zp − 255)) (the bounds integers, rounding monotone and odd, so the
  // same integer), the Round's input within [−255, 255] (zp in [0, 255]), which the constant
  // Clip states for legalize-round (NNAPI has no Round); the min written as −max(−·, −·), as
  // CoreML has no Min.
  const t = w.op("Max", [w.op("Div", [x, scale]), w.op("Sub", [zero, zp])]);
  const v = w.op("Max", [w.op("Mul", [t, minus]), w.op("Sub", [zp, hi])]);
  const bound = w.constant("float {-255.0}", "lo");
  const q = w.op("Sub", [zp, w.op("Round", [w.op("Clip", [v, bound, hi])])]);
  return { q: w.cast(q, U8), scale, zp };
}

/**
 * A step's hidden state [batch, H] quantized as onnxruntime's threads do with a thread per row
 * (the header): per row, or, with H above 256, all rows together while the batch has at most 4
 * (decided here for a static batch, else at run time).
 */
function hiddenQuantized(args: BuildArgs, s: TextWriter, h: string) {
  const H = args.intValue("hidden_size");
  if (H === undefined || H <= 256) return quantizeU8(s, h, [1]);
  const batch = args.shape(0)?.[1];
  if (typeof batch === "number") return batch <= 4 ? quantizeU8(s, h) : quantizeU8(s, h, [1]);
  const rows = s.op("Slice", [s.op("Shape", [h]), s.ints([0], "from"), s.ints([1], "to")]);
  const few = s.op("LessOrEqual", [rows, s.constant("int64 {4}", "four")]);
  return quantizeU8(s, h, [1], few);
}

/** DynamicQuantizeLSTM as onnxruntime computes it (the header); Y, Y_h, Y_c. */
const exactBody: BodyBuilder = (args) => {
  const w = new TextWriter("_ms_dqlstm_");
  const direction = args.stringValue("direction") ?? "forward";
  if (!["forward", "reverse", "bidirectional"].includes(direction))
    unsupported(args, `direction '${direction}' is none of forward, reverse, bidirectional`);
  const dirs = direction === "bidirectional" ? 2 : 1;
  const x = quantizeU8(w, "X");
  const sliceOf = (v: string, from: number, to: number) =>
    w.op("Slice", [w.op("Shape", [v]), w.ints([from], "from"), w.ints([to], "to")]);
  // zeros of [batch, H] for absent initial states
  const stateShape = w.op("Concat", [sliceOf("X", 1, 2), sliceOf("R", 1, 2)], "axis: int = 0");
  const zeros = () => w.op("ConstantOfShape", [stateShape], "value = float[1] {0.0}");
  const ys: string[] = [];
  const hs: string[] = [];
  const cs: string[] = [];
  for (let d = 0; d < dirs; d++) {
    const at = w.constant(`int64 {${d}}`, "dir");
    const pick = (v: string) => w.op("Gather", [v, at], "axis: int = 0");
    const [W, R, ws, wz, rs, rz] = [
      "W",
      "R",
      "W_scale",
      "W_zero_point",
      "R_scale",
      "R_zero_point",
    ].map(pick) as [string, string, string, string, string, string];
    // The input part of every step: [T, batch, 4H].
    const accX = w.op("MatMulInteger", [x.q, W, w.cast(x.zp, U8), wz]);
    const gx = w.op("Mul", [w.cast(accX, F), w.op("Mul", [x.scale, ws])]);
    // R's column sums less the zero point, for each row's own zero point: Σ (q - zp)(r - rz) =
    // Σ q (r - rz) - zp Σ (r - rz), exact in int32 as onnxruntime's accumulator.
    const rCodes = w.op("Sub", [w.cast(R, I32), w.cast(rz, I32)]);
    const rSum = w.op("ReduceSum", [rCodes, w.ints([0], "axis0")], "keepdims: int = 1");
    let bias: string | undefined;
    if (args.hasInput(3)) {
      const [wb, rb] = w.opN(
        "Split",
        [pick("B")],
        [w.fresh("wb"), w.fresh("rb")],
        "axis: int = 0, num_outputs: int = 2",
      );
      bias = w.op("Add", [wb!, rb!]);
    }
    const h0 = args.hasInput(5) ? pick("initial_h") : zeros();
    const c0 = args.hasInput(6) ? pick("initial_c") : zeros();

    const s = new TextWriter(`_ms_dqlstm_step${d}_`);
    const [hIn, cIn, gIn, hOut, cOut, yOut] = [
      "h_in",
      "c_in",
      "g_in",
      "h_out",
      "c_out",
      "y_out",
    ].map((n) => `_ms_dqlstm_${n}${d}`) as [string, string, string, string, string, string];
    const h = hiddenQuantized(args, s, hIn);
    const acc = s.op("Sub", [
      s.op("MatMulInteger", [h.q, R, "", rz]),
      s.op("Mul", [s.cast(h.zp, I32), rSum]),
    ]);
    const gh = s.op("Mul", [s.cast(acc, F), s.op("Mul", [h.scale, rs])]);
    let gates = s.op("Add", [gIn, gh]);
    if (bias) gates = s.op("Add", [gates, bias]);
    const [gi, go, gf, gc] = s.opN(
      "Split",
      [gates],
      ["gi", "go", "gf", "gc"].map((n) => s.fresh(n)),
      "axis: int = 1, num_outputs: int = 4",
    ) as [string, string, string, string];
    const [i, o, f] = [gi, go, gf].map((g) => s.op("Sigmoid", [g])) as [string, string, string];
    s.op("Add", [s.op("Mul", [cIn, f]), s.op("Mul", [i, s.op("Tanh", [gc])])], "", cOut);
    s.op("Mul", [o, s.op("Tanh", [cOut])], "", hOut);
    s.op("Identity", [hOut], "", yOut);
    const body = s.graph(
      `dqlstm_step${d}`,
      [`float[?,?] ${hIn}`, `float[?,?] ${cIn}`, `float[?,?] ${gIn}`],
      [`float[?,?] ${hOut}`, `float[?,?] ${cOut}`, `float[?,?] ${yOut}`],
    );
    const reverse = direction === "reverse" || d === 1 ? 1 : 0;
    const [hLast, cLast, y] = w.opN(
      "Scan",
      [h0, c0, gx],
      [w.fresh("h_last"), w.fresh("c_last"), w.fresh("y")],
      `num_scan_inputs: int = 1, scan_input_directions: ints = [${reverse}], ` +
        `scan_output_directions: ints = [${reverse}], body: graph = ${body}`,
    ) as [string, string, string];
    ys.push(w.op("Unsqueeze", [y, w.ints([1], "axis1")]));
    hs.push(w.op("Unsqueeze", [hLast, w.ints([0], "axis0")]));
    cs.push(w.op("Unsqueeze", [cLast, w.ints([0], "axis0")]));
  }
  const out = (parts: string[], axis: number, name: string) => {
    if (parts.length === 1) w.op("Identity", parts, "", name);
    else w.op("Concat", parts, `axis: int = ${axis}`, name);
  };
  if (args.hasOutput(0)) out(ys, 1, "Y");
  if (args.hasOutput(1)) out(hs, 0, "Y_h");
  if (args.hasOutput(2)) out(cs, 0, "Y_c");
  return finish(w, args, 18);
};

/**
 * The approximate body, for calls outside the exact one's form: the weights dequantized (per
 * direction, or per direction and column) and transposed to LSTM's layout, then LSTM, whose
 * activations are not quantized as onnxruntime quantizes them.
 */
const approximateBody: BodyBuilder = (args) => {
  const w = new TextWriter("_ms_dqlstm_");
  const deq = (x: string, s: string, z: string, i: number) => {
    const sShape = args.shape(i);
    if (!sShape) unsupported(args, `${s}'s shape is unknown`);
    const shape = sShape.length === 2 ? [0, 1, -1] : [-1, 1, 1]; // [dirs, 4H] -> [dirs, 1, 4H]; [dirs] -> [dirs, 1, 1]
    const r = (p: string) => w.op("Reshape", [p, w.ints(shape, "pshape")]);
    const v = w.op("Mul", [w.op("Sub", [w.cast(x, F), w.cast(r(z), F)]), r(s)]);
    return w.op("Transpose", [v], "perm: ints = [0, 2, 1]");
  };
  const W = deq("W", "W_scale", "W_zero_point", 8);
  const R = deq("R", "R_scale", "R_zero_point", 10);
  const opt = ["B", "sequence_lens", "initial_h", "initial_c", "P"].map((n, k) =>
    args.hasInput(3 + k) ? n : "",
  );
  while (opt.length && opt[opt.length - 1] === "") opt.pop();
  const refs = [
    "activation_alpha: floats = @activation_alpha",
    "activation_beta: floats = @activation_beta",
    "activations: strings = @activations",
    "clip: float = @clip",
    "direction: string = @direction",
    "hidden_size: int = @hidden_size",
    "input_forget: int = @input_forget",
  ];
  const outs = ["Y", "Y_h", "Y_c"].map((n, k) => (args.hasOutput(k) ? n : ""));
  w.opN("LSTM", ["X", W, R, ...opt], outs, refs.join(", "));
  return finish(w, args, 14);
};

/** DynamicQuantizeLSTM: onnxruntime's computation where the call allows it, else approximate. */
export const dynamicQuantizeLstm: BodyBuilder = (args) =>
  exactForm(args) ? exactBody(args) : approximateBody(args);
