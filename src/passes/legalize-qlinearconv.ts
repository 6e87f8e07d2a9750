// legalize-qlinearconv: QLinearConv, for a target without it (CoreML's ML Program), as a float32
// Conv of the centred integers, requantized as onnxruntime requantizes. onnxruntime sums
// (x - x_zero_point)(w - w_zero_point) in int32, adds the bias, converts to float32, multiplies by
// (x_scale · w_scale) / y_scale (float32, in that order, per output channel), clips to the output
// type's range less the zero point, rounds half to even and adds the zero point. The rewrite gives
// Conv the centred values as float32 (x - x_zero_point by Cast and Sub, the weights centred as a
// constant, the bias as a float32 constant), so every product and partial sum is an integer; it is
// taken only where the weights show that every sum stays within 2^24 in magnitude (the largest
// |x - x_zero_point| times the sum of an output channel's |w - w_zero_point|, plus its |bias|),
// where float32 holds them exactly, whatever the order of summation. Then Mul by the scale and the
// quantizing arithmetic (Round, Add, Clip, Cast; legalize-round where the target lacks Round).
// The weights, their zero point, the scales and zero points and the bias must be constants.

import type { AttrInput } from "../ir/builder.js";
import { quantizedRange } from "../ir/dtype.js";
import { DataType, type Model } from "../ir/types.js";
import type { Tensor } from "../ir/tensor.js";
import { constantTensor } from "./lift-constants.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";
import type { Pass } from "./pass.js";

const F = DataType.FLOAT;
const EXACT = 2 ** 24;
const CONV_ATTRIBUTES = ["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"];

/** Every constant of the main graph by name (initializers and Constant nodes), of any size. */
function constantsOf(model: Model): Map<string, Tensor> {
  const out = new Map<string, Tensor>(model.graph.initializers.map((t) => [t.name, t]));
  for (const n of model.graph.nodes)
    if (n.opType === "Constant" && (n.domain ?? "") === "" && n.outputs[0]) {
      const t = constantTensor(n, n.outputs[0]);
      if (t) out.set(n.outputs[0], t);
    }
  return out;
}

/** A constant's values as numbers (undefined for a non-constant or an unreadable one). */
function numbers(constants: Map<string, Tensor>, x: string | undefined): number[] | undefined {
  const t = x ? constants.get(x) : undefined;
  if (!t?.readable) return undefined;
  try {
    return (t.values() as (number | bigint)[]).map(Number);
  } catch {
    return undefined;
  }
}

function qlinearConv(site: Site, constants: Map<string, Tensor>): boolean {
  const n = site.node;
  const [x, xs, xz, w, ws, wz, ys, yz, b] = n.inputs;
  const xType = x ? site.elem(x) : undefined;
  const wType = w ? site.elem(w) : undefined;
  const yType = yz ? site.elem(yz) : undefined;
  const xRange = xType === undefined ? undefined : quantizedRange(xType);
  const yRange = yType === undefined ? undefined : quantizedRange(yType);
  const wDims = w ? constants.get(w)?.dims : undefined;
  if (!x || !xRange || !yRange || wType === undefined || !wDims || wDims.length < 3) return false;
  if (yType !== DataType.UINT8 && yType !== DataType.INT8) return false;
  const ops = ["Cast", "Conv", "Mul", "Add", "Clip"];
  if (!ops.every((op) => site.has(op)) || !(site.has("Round") || site.has("Sub"))) return false;
  if (site.opset < 11) return false;
  const [xsv, xzv, wv, wsv, wzv, ysv, yzv] = [xs, xz, w, ws, wz, ys, yz].map((v) =>
    numbers(constants, v),
  );
  if (!xsv || !xzv || !wv || !wsv || !wzv || !ysv || !yzv) return false;
  if (xsv.length !== 1 || xzv.length !== 1 || ysv.length !== 1 || yzv.length !== 1) return false;
  const m = wDims[0]!;
  if ((wsv.length !== 1 && wsv.length !== m) || (wzv.length !== 1 && wzv.length !== m))
    return false;
  const bias = b ? numbers(constants, b) : new Array<number>(m).fill(0);
  if (!bias || bias.length !== m) return false;
  // Every sum exact in float32: the largest |x - zx| times each channel's sum of |w - zw|.
  const zx = xzv[0]!;
  const xMax = Math.max(zx - xRange[0], xRange[1] - zx);
  const per = wv.length / m;
  const centred = new Float32Array(wv.length);
  for (let c = 0; c < m; c++) {
    const z = wzv[wzv.length === 1 ? 0 : c]!;
    let sum = 0;
    for (let k = c * per; k < (c + 1) * per; k++) {
      centred[k] = wv[k]! - z;
      sum += Math.abs(centred[k]!);
    }
    if (xMax * sum + Math.abs(bias[c]!) > EXACT) return false;
  }
  // onnxruntime's requantization scale, rounded as float32 at each step.
  const sx = Math.fround(xsv[0]!);
  const scales = wsv.map((s) =>
    Math.fround(Math.fround(sx * Math.fround(s)) / Math.fround(ysv[0]!)),
  );
  const spatial = new Array<number>(wDims.length - 2).fill(1);
  let xc = site.add("Cast", [x], { to: F });
  if (zx !== 0) {
    if (!site.has("Sub")) return false;
    xc = site.add("Sub", [xc, site.constant("x_zero_point_f", F, [], [zx])]);
  }
  const attrs: Record<string, AttrInput> = {};
  for (const a of n.attributes)
    if (CONV_ATTRIBUTES.includes(a.name)) attrs[a.name] = a.value as AttrInput;
  const convInputs = [xc, site.constant("w_centred", F, [...wDims], centred)];
  if (b) convInputs.push(site.constant("bias_f", F, [m], bias));
  const conv = site.add("Conv", convInputs, attrs);
  const scale =
    scales.length === 1
      ? site.constant("scale", F, [], scales)
      : site.constant("scale", F, [m, ...spatial], scales);
  let q = site.add("Round", [site.add("Mul", [conv, scale])]);
  if (yzv[0] !== 0) q = site.add("Add", [q, site.constant("y_zero_point_f", F, [], [yzv[0]!])]);
  const clipped = site.add("Clip", [
    q,
    site.constant("lo", F, [], [yRange[0]]),
    site.constant("hi", F, [], [yRange[1]]),
  ]);
  site.add("Cast", [clipped], { to: yType! }, [...site.out]);
  return true;
}

export function legalizeQLinearConv(options: LegalizeOptions): Pass {
  return {
    name: "legalize-qlinearconv",
    run(model, ctx) {
      const constants = constantsOf(model);
      return legalizePass(
        "legalize-qlinearconv",
        ["QLinearConv"],
        "QLinearConv made a float Conv and requantized",
        (site) => qlinearConv(site, constants),
        options,
      ).run(model, ctx);
    },
  };
}
