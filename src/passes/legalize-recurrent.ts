// legalize-recurrent: LSTM, GRU and RNN with a static sequence length, for a target without them
// (onnxruntime's CoreML ML Program and NNAPI execution providers), unrolled step by step into the
// ops ONNX defines them by. Per direction: the input part of every step at once, X as [T·B, I]
// times W's transposed slice plus the biases that do not meet the reset gate (a MatMul and an
// Add), Split into the T steps; then at each step (reversed for the reverse direction) the
// state's part H·Rᵀ (a MatMul), the gates Split in ONNX's order (LSTM i, o, f, c; GRU z, r, h;
// RNN one), clip (a Clip of each activation's input), the activations, and:
//
//   LSTM  i = f(Xi + H·Ri + Pi⊙C), f = f(Xf + H·Rf + Pf⊙C), c = g(Xc + H·Rc), C' = f⊙C + i⊙c,
//         o = f(Xo + H·Ro + Po⊙C'), H' = o⊙h(C')
//   GRU   z = f(Xz + H·Rz + Rbz), r = f(Xr + H·Rr + Rbr), then linear_before_reset = 0:
//         h = g(Xh + (r⊙H)·Rh + Rbh), = 1: h = g(Xh + r⊙(H·Rh + Rbh)); H' = (1 - z)⊙h + z⊙H
//   RNN   H' = f(X + H·R + Rb)
//
// (X· already carrying W's bias Wb, and Rb where it adds to it). Absent initial states are zeros;
// Y stacks each step's state at its time (Concat, Reshape), Y_h is the last state, Y_c the last
// cell; layout 1 reads X and the initial states batch-first and writes the outputs so. Only the
// outputs something reads are made. Left as they are, with a note saying why: a sequence length
// that is not static, sequence_lens that are not all the full length, input_forget, element types
// other than float, an activation whose op the target lacks. The arithmetic is ONNX's, in float32
// as onnxruntime computes it; the sums group differently (the biases added once to the input
// part), so the numbers agree to rounding.

import { TAKES_ALPHA, TAKES_BETA } from "../interp/kernels/recurrent.js";
import { attrFloat, attrInt, attrString, getAttr } from "../ir/attributes.js";
import { node as makeNode } from "../ir/builder.js";
import { DataType } from "../ir/types.js";
import { ints, legalizePass, slice, type LegalizeOptions, type Site } from "./legalize-kit.js";

type Kind = "LSTM" | "GRU" | "RNN";

/** An activation by its name in `activations`: the ops it needs and how to make it. */
interface Act {
  needs: string[];
  make(site: Site, x: string): string;
}

/** A node whose number attributes are floats (alpha = 1 is a float, where the builder would make an int). */
function floatAttrs(site: Site, op: string, inputs: string[], floats: Record<string, number>) {
  const out = site.fresh(op.toLowerCase());
  const attributes = Object.entries(floats).map(([name, value]) => ({
    name,
    type: "FLOAT" as const,
    value: Math.fround(value),
  }));
  site.emit({ ...makeNode(op, inputs, [out]), attributes }, inputs, [out]);
  return out;
}

function activation(name: string, alpha?: number, beta?: number): Act | undefined {
  const key = name.toLowerCase();
  const attrs: Record<string, number> = {};
  if (alpha !== undefined) attrs.alpha = alpha;
  if (beta !== undefined) attrs.beta = beta;
  const plain: Record<string, string> = {
    sigmoid: "Sigmoid",
    tanh: "Tanh",
    relu: "Relu",
    softsign: "Softsign",
    softplus: "Softplus",
    hardsigmoid: "HardSigmoid",
    leakyrelu: "LeakyRelu",
    elu: "Elu",
    thresholdedrelu: "ThresholdedRelu",
  };
  const op = plain[key];
  if (op) return { needs: [op], make: (site, x) => floatAttrs(site, op, [x], attrs) };
  const scalar = (site: Site, v: number) => site.constant("act", DataType.FLOAT, [], [v]);
  if (key === "affine")
    return {
      needs: ["Mul", "Add"],
      make: (site, x) =>
        site.add("Add", [site.add("Mul", [x, scalar(site, alpha ?? 1)]), scalar(site, beta ?? 0)]),
    };
  if (key === "scaledtanh")
    return {
      needs: ["Mul", "Tanh"],
      make: (site, x) =>
        site.add("Mul", [
          site.add("Tanh", [site.add("Mul", [x, scalar(site, beta ?? 1)])]),
          scalar(site, alpha ?? 1),
        ]),
    };
  return undefined;
}

/** The activations of each direction (ONNX's defaults when none are given), or why not. */
function activations(site: Site, kind: Kind, dirs: number): Act[][] | string {
  const defaults =
    kind === "RNN" ? ["Tanh"] : kind === "GRU" ? ["Sigmoid", "Tanh"] : ["Sigmoid", "Tanh", "Tanh"];
  const a = getAttr(site.node, "activations");
  const names =
    a?.type === "STRINGS" && a.value?.length
      ? a.value
      : Array.from({ length: dirs }, () => defaults).flat();
  if (names.length < defaults.length * dirs)
    return `${names.length} activations for ${defaults.length * dirs}`;
  const floats = (n: string) => {
    const v = getAttr(site.node, n);
    return v?.type === "FLOATS" ? [...(v.value ?? [])] : [];
  };
  const [alphas, betas] = [floats("activation_alpha"), floats("activation_beta")];
  const acts: Act[] = [];
  for (const name of names) {
    const key = name.toLowerCase();
    const act = activation(
      name,
      TAKES_ALPHA.has(key) ? alphas.shift() : undefined,
      TAKES_BETA.has(key) ? betas.shift() : undefined,
    );
    if (!act) return `activation '${name}' is not one ONNX names`;
    const missing = act.needs.find((op) => !site.has(op));
    if (missing) return `activation '${name}' needs ${missing}, which the target lacks`;
    acts.push(act);
  }
  const per = defaults.length;
  return Array.from({ length: dirs }, (_, d) => acts.slice(d * per, (d + 1) * per));
}

function unroll(site: Site): boolean {
  const n = site.node;
  const kind = n.opType as Kind;
  const G = kind === "LSTM" ? 4 : kind === "GRU" ? 3 : 1;
  const [x, w, r] = [n.inputs[0], n.inputs[1], n.inputs[2]];
  const opt = (k: number) => (n.inputs[k] ? n.inputs[k] : undefined);
  const [b, lens, h0, c0] = [opt(3), opt(4), opt(5), kind === "LSTM" ? opt(6) : undefined];
  const p = kind === "LSTM" ? opt(7) : undefined;
  if (!x || !w || !r) return false;
  const xs = site.shape(x);
  const rs = site.shape(r);
  if (!xs || xs.length !== 3 || !rs || rs.length !== 3)
    return site.leave("the shapes of X and R are not static (the sequence length unknown)");
  if (site.elem(x) !== DataType.FLOAT) return site.leave("X is not float");
  const layout = attrInt(n, "layout", 0);
  const [T, B, I] = layout === 0 ? [xs[0]!, xs[1]!, xs[2]!] : [xs[1]!, xs[0]!, xs[2]!];
  const H = attrInt(n, "hidden_size", rs[2]!);
  const direction = attrString(n, "direction", "forward");
  const dirs = direction === "bidirectional" ? 2 : 1;
  if (!["forward", "reverse", "bidirectional"].includes(direction))
    return site.leave(`direction '${direction}'`);
  const ws = site.shape(w);
  if (T < 1 || B < 1 || rs[0] !== dirs || rs[1] !== G * H || rs[2] !== H)
    return site.leave(`an empty sequence or R of shape [${rs.join(", ")}]`);
  if (ws && (ws[0] !== dirs || ws[1] !== G * H || ws[2] !== I))
    return site.leave(`W of shape [${ws.join(", ")}]`);
  if (lens) {
    const v = site.value(lens);
    if (!v || v.values.some((l) => l !== T))
      return site.leave(
        `sequence_lens ${v ? `[${v.values.join(", ")}]` : "computed at run time"}: unrolled only when every sequence has the full length ${T}`,
      );
  }
  if (attrInt(n, "input_forget", 0) !== 0) return site.leave("input_forget");
  const needs = ["MatMul", "Add", "Mul", "Split", "Reshape", "Transpose", "Concat", "Slice"];
  if (kind === "GRU") needs.push("Sub");
  const clipAttr = getAttr(n, "clip");
  if (clipAttr) needs.push("Clip");
  const missing = needs.find((op) => !site.has(op));
  if (missing) return site.leave(`the unrolled form needs ${missing}, which the target lacks`);
  if (site.opset < 10) return site.leave(`opset ${site.opset} (Slice with inputs from 10)`);
  const acts = activations(site, kind, dirs);
  if (typeof acts === "string") return site.leave(acts);
  const [hasY, hasYh, hasYc] = [0, 1, 2].map((k) => !!site.out[k] && site.uses(site.out[k]!) > 0);
  if (!hasY && !hasYh && !hasYc) return false; // nothing reads it: remove-dead-values' work

  const F = DataType.FLOAT;
  const clip = clipAttr ? attrFloat(n, "clip", 0) : undefined;
  const limit = (v: string) => {
    if (clip === undefined) return v;
    if (site.opset < 11) return floatAttrs(site, "Clip", [v], { min: -clip, max: clip });
    const [lo, hi] = [site.constant("lo", F, [], [-clip]), site.constant("hi", F, [], [clip])];
    return site.add("Clip", [v, lo, hi]);
  };
  const reshape = (v: string, dims: number[], outputs?: string[]) =>
    site.add("Reshape", [v, ints(site, "shape", dims)], {}, outputs);
  const split = (v: string, parts: number, size: number, axis: number): string[] => {
    if (parts === 1) return [v];
    const outs = Array.from({ length: parts }, () => site.fresh("part"));
    const sizes = new Array<number>(parts).fill(size);
    if (site.opset < 13) site.add("Split", [v], { axis, split: sizes }, outs);
    else site.add("Split", [v, ints(site, "split", sizes)], { axis }, outs);
    return outs;
  };
  const cut = (v: string, from: number, to: number, axis: number) =>
    slice(site, v, [from], [to], [axis])!;
  // the d-th direction of a [dirs, …] input (as it is with one direction)
  const ofDir = (v: string, d: number, axis = 0) => (dirs === 1 ? v : cut(v, d, d + 1, axis));
  const transposed = (v: string, rows: number, cols: number, d: number) =>
    site.add("Transpose", [reshape(ofDir(v, d), [rows, cols])], { perm: [1, 0] });
  const state = (v: string | undefined, d: number, what: string) =>
    v
      ? reshape(ofDir(v, d, layout === 0 ? 0 : 1), [B, H])
      : site.constant(what, F, [B, H], new Float32Array(B * H));

  // X as [T·B, I], time-major
  const xt = layout === 0 ? x : site.add("Transpose", [x], { perm: [1, 0, 2] });
  const x2 = reshape(xt, [T * B, I]);
  const ys: string[] = [];
  const hs: string[] = [];
  const cs: string[] = [];
  for (let d = 0; d < dirs; d++) {
    const [f, g, hAct] = acts[d]!;
    const wt = transposed(w, G * H, I, d); // [I, G·H]
    const rt = transposed(r, G * H, H, d); // [H, G·H]
    // the biases: Wb, and the Rb that adds to it (GRU's Rbh meets the reset gate instead)
    let xBias: string | undefined;
    let rbh: string | undefined;
    let rbzr: string | undefined;
    if (b) {
      const bd = ofDir(b, d);
      const [wb, rb] = [cut(bd, 0, G * H, 1), cut(bd, G * H, 2 * G * H, 1)];
      if (kind !== "GRU") xBias = site.add("Add", [wb, rb]);
      else if (attrInt(n, "linear_before_reset", 0) === 0) {
        const zr = site.add("Add", [cut(wb, 0, 2 * H, 1), cut(rb, 0, 2 * H, 1)]);
        xBias = site.add("Concat", [zr, cut(wb, 2 * H, 3 * H, 1)], { axis: 1 });
        rbh = cut(rb, 2 * H, 3 * H, 1);
      } else [xBias, rbzr] = [wb, rb];
    }
    let xw = site.add("MatMul", [x2, wt]);
    if (xBias) xw = site.add("Add", [xw, xBias]);
    const steps = split(xw, T, B, 0);
    const peep = p ? split(ofDir(p, d), 3, H, 1) : undefined; // i, o, f
    const lbr = kind === "GRU" && attrInt(n, "linear_before_reset", 0) !== 0;
    const [rzr, rh] =
      kind === "GRU" && !lbr ? [cut(rt, 0, 2 * H, 1), cut(rt, 2 * H, 3 * H, 1)] : [rt, rt];
    let h = state(h0, d, "h0");
    let c = kind === "LSTM" ? state(c0, d, "c0") : "";
    const outAt = new Array<string>(T);
    for (let k = 0; k < T; k++) {
      const t = direction === "reverse" || d === 1 ? T - 1 - k : k;
      const xg = steps[t]!;
      if (kind === "RNN") {
        h = f!.make(site, limit(site.add("Add", [xg, site.add("MatMul", [h, rt])])));
      } else if (kind === "LSTM") {
        const gates = site.add("Add", [xg, site.add("MatMul", [h, rt])]);
        const [gi, go, gf, gc] = split(gates, 4, H, 1) as [string, string, string, string];
        const peeped = (v: string, k: number, cell: string) =>
          peep ? site.add("Add", [v, site.add("Mul", [peep[k]!, cell])]) : v;
        const i = f!.make(site, limit(peeped(gi, 0, c)));
        const fg = f!.make(site, limit(peeped(gf, 2, c)));
        const cc = g!.make(site, limit(gc));
        c = site.add("Add", [site.add("Mul", [fg, c]), site.add("Mul", [i, cc])]);
        const o = f!.make(site, limit(peeped(go, 1, c)));
        h = site.add("Mul", [o, hAct!.make(site, c)]);
      } else {
        const [xz, xr, xh] = split(xg, 3, H, 1) as [string, string, string];
        let hr = site.add("MatMul", [h, rzr]);
        if (rbzr) hr = site.add("Add", [hr, rbzr]);
        const [hz, hrr, hh] = split(hr, lbr ? 3 : 2, H, 1) as [string, string, string];
        const z = f!.make(site, limit(site.add("Add", [xz, hz])));
        const rg = f!.make(site, limit(site.add("Add", [xr, hrr])));
        let rec: string;
        if (lbr) rec = site.add("Mul", [rg, hh]);
        else {
          rec = site.add("MatMul", [site.add("Mul", [rg, h]), rh]);
          if (rbh) rec = site.add("Add", [rec, rbh]);
        }
        const hn = g!.make(site, limit(site.add("Add", [xh, rec])));
        const one = site.constant("one", F, [], [1]);
        h = site.add("Add", [
          site.add("Mul", [site.add("Sub", [one, z]), hn]),
          site.add("Mul", [z, h]),
        ]);
      }
      outAt[t] = h;
    }
    // per direction: Y as [T, 1, B, H] (layout 1: [B, T, 1, H]), Y_h and Y_c as [1, B, H] ([B, 1, H]);
    // with one direction, these are the outputs
    const own = (k: number) => (dirs === 1 ? [site.out[k]!] : undefined);
    if (hasY) {
      if (layout === 0)
        ys.push(reshape(site.add("Concat", outAt, { axis: 0 }), [T, 1, B, H], own(0)));
      else {
        const rows = outAt.map((v) => reshape(v, [B, 1, H]));
        ys.push(reshape(site.add("Concat", rows, { axis: 1 }), [B, T, 1, H], own(0)));
      }
    }
    const last = layout === 0 ? [1, B, H] : [B, 1, H];
    if (hasYh) hs.push(reshape(h, last, own(1)));
    if (hasYc) cs.push(reshape(c, last, own(2)));
  }
  if (dirs === 2) {
    const out = (parts: string[], axis: number, k: number) =>
      parts.length && site.add("Concat", parts, { axis }, [site.out[k]!]);
    out(ys, layout === 0 ? 1 : 2, 0);
    out(hs, layout === 0 ? 0 : 1, 1);
    out(cs, layout === 0 ? 0 : 1, 2);
  }
  return true;
}

export function legalizeRecurrent(options: LegalizeOptions) {
  return legalizePass(
    "legalize-recurrent",
    ["LSTM", "GRU", "RNN"],
    "LSTM/GRU/RNN unrolled into MatMul, Add, Mul and activations per step",
    unroll,
    options,
  );
}
