// The body of LinearAttention-27: a Scan over the time steps carrying, per (batch, KV head), a
// state S of shape (d_k, d_v), computed in float:
//
//   gated rules      S = S * exp(g_t)               (g_t per head, or per key dimension)
//   delta rules      w_t = beta_t * (v_t - S^T k_t)  (otherwise w_t = v_t)
//   every rule       S = S + k_t (x) w_t,  o_t = scale * q_t^T S for each query head of the group
//
// Inputs are packed (B, T, H*D); the output is (B, T, Hq*d_v) and present_state the last S, in
// past_state's type (the query's without it). scale 0 means 1/sqrt(d_k).

import { OnnxError, UnknownTypeError } from "../../errors.js";
import { DataType } from "../../ir/types.js";
import { TextWriter } from "./writer.js";
import { finish } from "./activations.js";
import type { BodyBuilder } from "./context.js";

const F = DataType.FLOAT;

export const linearAttentionBuilder: BodyBuilder = (args) => {
  const w = new TextWriter("_linattn_");
  const rule = args.stringValue("update_rule") ?? "gated_delta";
  if (!["linear", "gated", "delta", "gated_delta"].includes(rule))
    throw new OnnxError("E_MODEL", `${args.label}: unknown update_rule '${rule}'`);
  const gated = rule === "gated" || rule === "gated_delta";
  const delta = rule === "delta" || rule === "gated_delta";
  const hq = args.intValue("q_num_heads");
  const hkv = args.intValue("kv_num_heads");
  if (!hq || !hkv || hq <= 0 || hkv <= 0 || hq % hkv !== 0)
    throw new OnnxError(
      "E_MODEL",
      `${args.label}: q_num_heads must be a positive multiple of kv_num_heads`,
    );
  const elem = args.elemType(0);
  if (elem === undefined)
    throw new UnknownTypeError(`the body of ${args.label} needs the type of query`);
  const toF = (x: string, e: number | undefined) => (e === F ? x : w.cast(x, F));
  const group = hq / hkv;

  // (B, T, H, D) views; the scan runs along T.
  const split = (x: string, heads: number) =>
    w.op("Reshape", [toF(x, elem), w.ints([0, 0, heads, -1], "heads")]);
  const q = split("query", hq);
  const k = split("key", hkv);
  const v = split("value", hkv);
  const dk = w.cast(w.op("Shape", [k], "start: int = 3, end: int = 4"), F);
  const scale =
    (args.floatValue("scale") ?? 0) !== 0
      ? toF(w.op("Constant", [], "value_float: float = @scale", w.fresh("scale")), F)
      : w.op("Reciprocal", [w.op("Sqrt", [dk])]);
  let state: string;
  if (args.hasInput(3)) state = toF("past_state", args.elemType(3));
  else {
    const shape = w.op(
      "Concat",
      [
        w.op("Shape", [k], "start: int = 0, end: int = 1"),
        w.ints([hkv], "kv_heads"),
        w.op("Shape", [k], "start: int = 3, end: int = 4"),
        w.op("Shape", [v], "start: int = 3, end: int = 4"),
      ],
      "axis: int = 0",
    );
    state = w.op("ConstantOfShape", [shape], "value = float[1] {0.0}");
  }

  const b = new TextWriter("_linattn_step_");
  const [sIn, qT, kT, vT, gT, betaT, sOut, oT] = [
    "_linattn_s_in",
    "_linattn_q_t",
    "_linattn_k_t",
    "_linattn_v_t",
    "_linattn_g_t",
    "_linattn_beta_t",
    "_linattn_s_out",
    "_linattn_o_t",
  ];
  let s = sIn;
  if (gated) {
    const g = b.op("Reshape", [gT, b.ints([0, hkv, -1, 1], "decay_shape")]); // (B, Hkv, 1|dk, 1)
    s = b.op("Mul", [s, b.op("Exp", [g])]);
  }
  const kCol = b.op("Unsqueeze", [kT, b.ints([3], "axis3")]); // (B, Hkv, dk, 1)
  let upd = b.op("Unsqueeze", [vT, b.ints([2], "axis2")]); // (B, Hkv, 1, dv)
  if (delta) {
    const kRow = b.op("Unsqueeze", [kT, b.ints([2], "axis2")]); // (B, Hkv, 1, dk)
    const retrieved = b.op("MatMul", [kRow, s]); // (B, Hkv, 1, dv)
    const beta = b.op("Reshape", [betaT, b.ints([0, -1, 1, 1], "beta_shape")]);
    upd = b.op("Mul", [beta, b.op("Sub", [upd, retrieved])]);
  }
  b.op("Add", [s, b.op("MatMul", [kCol, upd])], "", sOut);
  const qg = b.op("Reshape", [qT, b.ints([0, hkv, group, -1], "group_shape")]); // (B, Hkv, g, dk)
  const o = b.op("MatMul", [qg, sOut]); // (B, Hkv, g, dv)
  b.op("Mul", [b.op("Reshape", [o, b.ints([0, -1], "flat")]), scale], "", oT);

  const f = "float";
  const stepInputs = [
    `${f}[?,?,?,?] ${sIn}`,
    `${f}[?,?,?] ${qT}`,
    `${f}[?,?,?] ${kT}`,
    `${f}[?,?,?] ${vT}`,
  ];
  const scanInputs = [q, k, v];
  if (gated) {
    if (!args.hasInput(4))
      throw new OnnxError("E_MODEL", `${args.label}: update_rule '${rule}' needs decay`);
    stepInputs.push(`${f}[?,?] ${gT}`);
    scanInputs.push(toF("decay", args.elemType(4)));
  }
  if (delta) {
    if (!args.hasInput(5))
      throw new OnnxError("E_MODEL", `${args.label}: update_rule '${rule}' needs beta`);
    stepInputs.push(`${f}[?,?] ${betaT}`);
    scanInputs.push(toF("beta", args.elemType(5)));
  }
  const body = b.graph("linear_attention_step", stepInputs, [
    `${f}[?,?,?,?] ${sOut}`,
    `${f}[?,?] ${oT}`,
  ]);
  const axes = scanInputs.map(() => 1).join(", ");
  const [last, out] = w.opN(
    "Scan",
    [state, ...scanInputs],
    [w.fresh("state"), w.fresh("out")],
    `num_scan_inputs: int = ${scanInputs.length}, scan_input_axes: ints = [${axes}], scan_output_axes: ints = [1], body: graph = ${body}`,
  ) as [string, string];
  if (elem === F) w.op("Identity", [out], "", "output");
  else w.op("Cast", [out], `to: int = ${elem}`, "output");
  const stateType = args.hasInput(3) ? args.elemType(3) : elem;
  if (stateType === F) w.op("Identity", [last], "", "present_state");
  else if (stateType === undefined) w.op("CastLike", [last, "past_state"], "", "present_state");
  else w.op("Cast", [last], `to: int = ${stateType}`, "present_state");
  return finish(w, args, 18);
};
