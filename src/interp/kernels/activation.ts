// Activations that the spec defines as functions: Gelu-20, Mish-18/22, Swish-24, SwiGLU-28.
// Each is computed in float64 from the decoded inputs and rounded once to the element type
// (float16/bfloat16 round to nearest even). The formulas are rewritten where the textbook form
// cancels (1 + erf(x) and 1 + tanh(u) for negative arguments) but keep its IEEE behaviour at
// the infinities: x · gate(x) with gate(-inf) = 0 gives NaN at -inf, as the function bodies do.

import { dtypeName } from "../../ir/dtype.js";
import { fromFloat64, toFloat64 } from "../tensor.js";
import type { Kernel, RTensor } from "../types.js";
import { fail, floatInput } from "./util.js";
import { floatAttr, stringAttr } from "./attrs.js";

const SQRT1_2 = Math.SQRT1_2;
const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);

/** erf(x) by its Maclaurin series; used for |x| < 1 only, where it converges in ~25 terms. */
function erfSeries(x: number): number {
  const x2 = x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 60; n++) {
    term *= -x2 / n;
    const add = term / (2 * n + 1);
    sum += add;
    if (Math.abs(add) <= 1e-17 * Math.abs(sum)) break;
  }
  return TWO_OVER_SQRT_PI * sum;
}

/** erf(z) for 0 ≤ z ≤ 6 by the series of positive terms (2/√π)·e^(−z²)·Σ 2ⁿz^(2n+1)/(2n+1)!!. */
function erfPositive(z: number): number {
  const z2 = 2 * z * z;
  let term = z;
  let sum = z;
  for (let n = 1; n < 200; n++) {
    term *= z2 / (2 * n + 1);
    sum += term;
    if (term <= 1e-17 * sum) break;
  }
  return TWO_OVER_SQRT_PI * Math.exp(-z * z) * sum;
}

/**
 * erfc(z) for z ≥ 1 by the continued fraction
 * erfc(z) = exp(−z²)/√π · 1/(z + (1/2)/(z + 1/(z + (3/2)/(z + …)))) (modified Lentz method;
 * under 200 steps at z = 1, fewer further out).
 */
function erfcFraction(z: number): number {
  if (z > 27) return 0;
  const tiny = 1e-300;
  let f = z;
  let c = z;
  let d = 0;
  for (let k = 1; k < 1000; k++) {
    const a = k / 2;
    d = z + a * d;
    d = d === 0 ? tiny : d;
    c = z + a / c;
    c = c === 0 ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-z * z) / Math.sqrt(Math.PI) / f;
}

/**
 * erfc(x) with a small relative error over the whole range: 1 − erf(x) by the alternating
 * series for |x| < 1 (erfc ≥ 0.15 there, so nothing cancels), 1 + erf(|x|) by the series of
 * positive terms for x ≤ −1, and the continued fraction for x ≥ 1.
 */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return x;
  if (Math.abs(x) < 1) return 1 - erfSeries(x);
  if (x < 0) return -x > 6 ? 2 : 1 + erfPositive(-x);
  return erfcFraction(x);
}

/** Gelu: 0.5·x·(1 + erf(x/√2)) = 0.5·x·erfc(−x/√2). */
export function gelu(x: number): number {
  return 0.5 * x * erfc(-x * SQRT1_2);
}

const GELU_TANH_K = Math.sqrt(2 / Math.PI);

/** Gelu, approximate = "tanh": 0.5·x·(1 + tanh(u)) = x / (1 + exp(−2u)), u = √(2/π)(x + 0.044715x³). */
export function geluTanh(x: number): number {
  const u = GELU_TANH_K * (x + 0.044715 * x * x * x);
  return x / (1 + Math.exp(-2 * u));
}

/** Mish: x·tanh(softplus(x)); tanh(log(1 + e^x)) = n / (n + 2) with n = e^x (e^x + 2). */
export function mish(x: number): number {
  if (x > 40) return x; // the gate is 1 to double precision
  const e = Math.exp(x);
  const n = e * (e + 2);
  return x * (n / (n + 2));
}

/** The logistic function without overflow: 1/(1 + e^−t). */
function sigmoid(t: number): number {
  if (t >= 0) return 1 / (1 + Math.exp(-t));
  const e = Math.exp(t);
  return e / (1 + e);
}

/** Swish with coefficient alpha: x·sigmoid(alpha·x). */
export function swish(x: number, alpha: number): number {
  return x * sigmoid(alpha * x);
}

function mapFloat(x: RTensor, f: (v: number) => number): RTensor {
  const v = toFloat64(x);
  for (let i = 0; i < v.length; i++) v[i] = f(v[i]!);
  return fromFloat64(x.dtype, [...x.shape], v);
}

const Gelu: Kernel = (ctx, inputs) => {
  const x = floatInput(ctx, inputs, 0, "X");
  const approximate = stringAttr(ctx, "approximate");
  if (approximate !== "none" && approximate !== "tanh")
    fail(ctx, `approximate must be 'none' or 'tanh', got '${approximate}'`);
  return [mapFloat(x, approximate === "tanh" ? geluTanh : gelu)];
};

const Mish: Kernel = (ctx, inputs) => [mapFloat(floatInput(ctx, inputs, 0, "X"), mish)];

const Swish: Kernel = (ctx, inputs) => {
  const alpha = floatAttr(ctx, "alpha");
  return [mapFloat(floatInput(ctx, inputs, 0, "X"), (v) => swish(v, alpha))];
};

/** SwiGLU: Swish_alpha(A)·B, for A and B of one type and one shape (no broadcasting). */
const SwiGLU: Kernel = (ctx, inputs) => {
  const a = floatInput(ctx, inputs, 0, "A");
  const b = floatInput(ctx, inputs, 1, "B");
  if (a.dtype !== b.dtype)
    fail(ctx, `A and B must have one type, got ${dtypeName(a.dtype)} and ${dtypeName(b.dtype)}`);
  if (a.shape.length !== b.shape.length || a.shape.some((d, i) => d !== b.shape[i]))
    fail(
      ctx,
      `A [${a.shape.join(",")}] and B [${b.shape.join(",")}] must have the same shape (SwiGLU does not broadcast)`,
    );
  const alpha = floatAttr(ctx, "alpha");
  const av = toFloat64(a);
  const bv = toFloat64(b);
  for (let i = 0; i < av.length; i++) av[i] = swish(av[i]!, alpha) * bv[i]!;
  return [fromFloat64(a.dtype, [...a.shape], av)];
};

export const activationKernels: Record<string, Kernel> = { Gelu, Mish, Swish, SwiGLU };
