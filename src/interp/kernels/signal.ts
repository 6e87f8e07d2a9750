// Signal processing: DFT, STFT, MelWeightMatrix, GridSample, window functions (Hann, Hamming,
// Blackman).
// Transforms are direct O(n²) sums in float64 with exact twiddle angles (reduced modulo n), which
// is plenty for the sizes these ops see in tests and small models.

import { fromFloat64, toFloat64, scratch } from "../tensor.js";
import type { Kernel } from "../types.js";
import { checkedCount, fail, input, intValues, normAxis, optInput, scalarNumber } from "./util.js";
import { inputIndex } from "../../schema/facts.js";
import { opVersion } from "./version.js";
import { intAttr, stringAttr } from "./attrs.js";

const prod = (xs: readonly number[]) => xs.reduce((p, d) => p * d, 1);

/** Complex DFT of `len` samples (re/im with stride) into out arrays; inverse divides by n. */
function dft1(
  re: Float64Array,
  im: Float64Array,
  n: number,
  bins: number,
  inverse: boolean,
  outRe: Float64Array,
  outIm: Float64Array,
): void {
  const sign = inverse ? 1 : -1;
  for (let k = 0; k < bins; k++) {
    let sr = 0;
    let si = 0;
    for (let t = 0; t < n; t++) {
      const ang = (sign * 2 * Math.PI * ((k * t) % n)) / n;
      const c = Math.cos(ang);
      const s = Math.sin(ang);
      sr += re[t]! * c - im[t]! * s;
      si += re[t]! * s + im[t]! * c;
    }
    outRe[k] = inverse ? sr / n : sr;
    outIm[k] = inverse ? si / n : si;
  }
}

/** DFT-20's axis input, when omitted, is -2 (ONNX's text; the schema gives inputs no defaults). */
const DFT_AXIS_INPUT_DEFAULT = -2;

const DFT: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const r = x.shape.length;
  if (r < 2)
    fail(ctx, "input must have rank at least 2 (the last axis holds real or [real, imaginary])");
  const comps = x.shape[r - 1]!;
  if (comps !== 1 && comps !== 2) fail(ctx, `the last axis must have size 1 or 2, got ${comps}`);
  const lenT = optInput(ctx, inputs, 1);
  const ver = opVersion(ctx);
  const axisAt = inputIndex(ver, "axis");
  const axisT = axisAt >= 0 ? optInput(ctx, inputs, axisAt) : undefined;
  const axisRaw = axisT
    ? intValues(ctx, axisT, "axis")[0]!
    : axisAt >= 0
      ? DFT_AXIS_INPUT_DEFAULT
      : intAttr(ctx, "axis");
  const axis = normAxis(ctx, axisRaw, r);
  if (axis === r - 1) fail(ctx, "axis cannot be the last (complex) axis");
  const inverse = intAttr(ctx, "inverse") !== 0;
  const onesided = intAttr(ctx, "onesided") !== 0;
  const inLen = x.shape[axis]!;
  const n = lenT ? intValues(ctx, lenT, "dft_length")[0]! : inLen;
  if (n <= 0) fail(ctx, `dft_length ${n} must be positive`);
  const bins = onesided ? Math.floor(n / 2) + 1 : n;
  const outShape = [...x.shape];
  outShape[axis] = bins;
  outShape[r - 1] = 2;
  checkedCount(ctx, outShape);
  const v = toFloat64(x);
  const outer = prod(x.shape.slice(0, axis));
  const inner = prod(x.shape.slice(axis + 1, r - 1));
  const out = scratch(Float64Array, prod(outShape));
  const re = scratch(Float64Array, n);
  const im = scratch(Float64Array, n);
  const oRe = scratch(Float64Array, bins);
  const oIm = scratch(Float64Array, bins);
  for (let o = 0; o < outer; o++)
    for (let i = 0; i < inner; i++) {
      re.fill(0);
      im.fill(0);
      for (let t = 0; t < Math.min(n, inLen); t++) {
        const src = ((o * inLen + t) * inner + i) * comps;
        re[t] = v[src]!;
        im[t] = comps === 2 ? v[src + 1]! : 0;
      }
      dft1(re, im, n, bins, inverse, oRe, oIm);
      for (let k = 0; k < bins; k++) {
        const dst = ((o * bins + k) * inner + i) * 2;
        out[dst] = oRe[k]!;
        out[dst + 1] = oIm[k]!;
      }
    }
  return [fromFloat64(x.dtype, outShape, out)];
};

const STFT: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  if (x.shape.length !== 3) fail(ctx, "signal must be [batch, length, 1 or 2]");
  const [batch, length, comps] = x.shape as [number, number, number];
  const step = Math.trunc(scalarNumber(ctx, input(ctx, inputs, 1), "frame_step"));
  const windowT = optInput(ctx, inputs, 2);
  const lenT = optInput(ctx, inputs, 3);
  const frameLen = lenT
    ? Math.trunc(scalarNumber(ctx, lenT, "frame_length"))
    : windowT
      ? windowT.shape[0]!
      : fail(ctx, "frame_length or window is required");
  const win = windowT ? toFloat64(windowT) : scratch(Float64Array, frameLen).fill(1);
  if (win.length !== frameLen)
    fail(ctx, `window has ${win.length} samples, frame_length is ${frameLen}`);
  if (step <= 0 || frameLen <= 0 || frameLen > length)
    fail(ctx, `frame_step ${step} / frame_length ${frameLen} do not fit a signal of ${length}`);
  const onesided = intAttr(ctx, "onesided") !== 0;
  const frames = Math.floor((length - frameLen) / step) + 1;
  const bins = onesided ? Math.floor(frameLen / 2) + 1 : frameLen;
  const outShape = [batch, frames, bins, 2];
  checkedCount(ctx, outShape);
  const v = toFloat64(x);
  const out = scratch(Float64Array, prod(outShape));
  const re = scratch(Float64Array, frameLen);
  const im = scratch(Float64Array, frameLen);
  const oRe = scratch(Float64Array, bins);
  const oIm = scratch(Float64Array, bins);
  for (let b = 0; b < batch; b++)
    for (let f = 0; f < frames; f++) {
      for (let t = 0; t < frameLen; t++) {
        const src = (b * length + f * step + t) * comps;
        re[t] = v[src]! * win[t]!;
        im[t] = comps === 2 ? v[src + 1]! * win[t]! : 0;
      }
      dft1(re, im, frameLen, bins, false, oRe, oIm);
      for (let k = 0; k < bins; k++) {
        const dst = ((b * frames + f) * bins + k) * 2;
        out[dst] = oRe[k]!;
        out[dst + 1] = oIm[k]!;
      }
    }
  return [fromFloat64(x.dtype, outShape, out)];
};

/** Triangular mel filters over the DFT bins, as the ONNX definition lays them out. */
const MelWeightMatrix: Kernel = (ctx, inputs) => {
  const num = (i: number, what: string) => scalarNumber(ctx, input(ctx, inputs, i), what);
  const mels = Math.trunc(num(0, "num_mel_bins"));
  const dftLen = Math.trunc(num(1, "dft_length"));
  const rate = num(2, "sample_rate");
  const lo = num(3, "lower_edge_hertz");
  const hi = num(4, "upper_edge_hertz");
  const specBins = Math.floor(dftLen / 2) + 1;
  checkedCount(ctx, [specBins, mels]);
  const toMel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
  const melLo = toMel(lo);
  // The ONNX reference spaces the mels + 2 edge points by (range / (mels + 2)), so the last
  // edge stops short of upper_edge_hertz; its test data depends on that.
  const melStep = (toMel(hi) - melLo) / (mels + 2);
  const edges = Array.from({ length: mels + 2 }, (_, i) => {
    const hz = 700 * (10 ** ((i * melStep + melLo) / 2595) - 1);
    return Math.floor(((dftLen + 1) * hz) / rate);
  });
  const out = scratch(Float64Array, specBins * mels);
  for (let m = 0; m < mels; m++) {
    const [a, c, e] = [edges[m]!, edges[m + 1]!, edges[m + 2]!];
    if (c === a) {
      if (c >= 0 && c < specBins) out[c * mels + m] = 1;
    } else
      for (let j = a; j <= c; j++)
        if (j >= 0 && j < specBins) out[j * mels + m] = (j - a) / (c - a);
    if (e > c)
      for (let j = c; j < e; j++) if (j >= 0 && j < specBins) out[j * mels + m] = (e - j) / (e - c);
  }
  return [fromFloat64(intAttr(ctx, "output_datatype"), [specBins, mels], out)];
};

// ---------------------------------------------------------------------------------------------
// GridSample (2-D): bilinear / nearest / bicubic; zeros / border / reflection padding.

function reflect(x: number, lo: number, hi: number): number {
  const span = hi - lo;
  if (span <= 0) return lo;
  let d = Math.abs(x - lo);
  const flips = Math.floor(d / span);
  d -= flips * span;
  return flips % 2 === 0 ? lo + d : hi - d;
}

function roundEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

const GridSample: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const grid = input(ctx, inputs, 1);
  if (x.shape.length !== 4 || grid.shape.length !== 4 || grid.shape[3] !== 2)
    fail(ctx, "only 2-D GridSample (X [N,C,H,W], grid [N,H',W',2]) is supported");
  let mode = stringAttr(ctx, "mode");
  if (mode === "linear") mode = "bilinear";
  if (mode === "cubic") mode = "bicubic";
  const pad = stringAttr(ctx, "padding_mode");
  const align = intAttr(ctx, "align_corners") !== 0;
  const [n, c, h, w] = x.shape as [number, number, number, number];
  const [, ho, wo] = grid.shape as [number, number, number];
  const outShape = [n, c, ho, wo];
  checkedCount(ctx, outShape);
  const v = toFloat64(x);
  const g = toFloat64(grid);
  const out = scratch(Float64Array, prod(outShape));
  const unnorm = (t: number, size: number) =>
    align ? ((t + 1) / 2) * (size - 1) : ((t + 1) * size - 1) / 2;
  const fixCoord = (p: number, size: number) => {
    if (pad === "border") return Math.min(Math.max(p, 0), size - 1);
    if (pad === "reflection") {
      const r = align ? reflect(p, 0, size - 1) : reflect(p, -0.5, size - 0.5);
      return Math.min(Math.max(r, 0), size - 1);
    }
    return p;
  };
  const pixel = (plane: number, yy: number, xx: number) => {
    if (pad !== "zeros") {
      yy = Math.round(fixCoord(yy, h));
      xx = Math.round(fixCoord(xx, w));
    }
    if (yy < 0 || yy >= h || xx < 0 || xx >= w) return 0;
    return v[plane + yy * w + xx]!;
  };
  const cubic = (t: number) => {
    const A = -0.75;
    const f = (d: number) => {
      const a = Math.abs(d);
      if (a <= 1) return ((A + 2) * a - (A + 3)) * a * a + 1;
      if (a < 2) return ((A * a - 5 * A) * a + 8 * A) * a - 4 * A;
      return 0;
    };
    return [f(t + 1), f(t), f(1 - t), f(2 - t)];
  };
  for (let b = 0; b < n; b++)
    for (let i = 0; i < ho; i++)
      for (let j = 0; j < wo; j++) {
        const gi = ((b * ho + i) * wo + j) * 2;
        let px = unnorm(g[gi]!, w);
        let py = unnorm(g[gi + 1]!, h);
        if (mode !== "bicubic") {
          px = fixCoord(px, w);
          py = fixCoord(py, h);
        }
        for (let ch = 0; ch < c; ch++) {
          const plane = (b * c + ch) * h * w;
          let val: number;
          if (mode === "nearest") val = pixel(plane, roundEven(py), roundEven(px));
          else if (mode === "bilinear") {
            const x0 = Math.floor(px);
            const y0 = Math.floor(py);
            const fx = px - x0;
            const fy = py - y0;
            val =
              pixel(plane, y0, x0) * (1 - fx) * (1 - fy) +
              pixel(plane, y0, x0 + 1) * fx * (1 - fy) +
              pixel(plane, y0 + 1, x0) * (1 - fx) * fy +
              pixel(plane, y0 + 1, x0 + 1) * fx * fy;
          } else {
            const x0 = Math.floor(px);
            const y0 = Math.floor(py);
            const wx = cubic(px - x0);
            const wy = cubic(py - y0);
            val = 0;
            for (let a = 0; a < 4; a++)
              for (let q = 0; q < 4; q++)
                val += wy[a]! * wx[q]! * pixel(plane, y0 - 1 + a, x0 - 1 + q);
          }
          out[((b * c + ch) * ho + i) * wo + j] = val;
        }
      }
  return [fromFloat64(x.dtype, outShape, out)];
};

function windowFn(make: (n: number, N: number) => number): Kernel {
  return (ctx, inputs) => {
    const size = Math.trunc(scalarNumber(ctx, input(ctx, inputs, 0), "size"));
    checkedCount(ctx, [size]);
    const periodic = intAttr(ctx, "periodic") !== 0;
    const N = periodic ? size : size - 1;
    const v = scratch(Float64Array, size);
    for (let n = 0; n < size; n++) v[n] = make(n, N);
    return [fromFloat64(intAttr(ctx, "output_datatype"), [size], v)];
  };
}

export const signalKernels: Record<string, Kernel> = {
  DFT,
  STFT,
  MelWeightMatrix,
  GridSample,
  HannWindow: windowFn((n, N) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / N)),
  HammingWindow: windowFn((n, N) => 25 / 46 - (21 / 46) * Math.cos((2 * Math.PI * n) / N)),
  BlackmanWindow: windowFn(
    (n, N) => 0.42 - 0.5 * Math.cos((2 * Math.PI * n) / N) + 0.08 * Math.cos((4 * Math.PI * n) / N),
  ),
};
