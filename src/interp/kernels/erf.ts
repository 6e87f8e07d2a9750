// Erf. The reference evaluation (`erf`) is a float64 Maclaurin series for |x| < 2.5 and a
// continued fraction for erfc beyond; it serves float64 tensors. Float32 tensors (and the half
// types, computed in float32) take `erfFloat32`, which gives the same float32 result for every
// float32 input at a fraction of the cost: a degree-8 Taylor polynomial about the nearest point
// of a grid of step 1/64 on [0, 6] (coefficients from erf' = (2/√π)·e^(−x²) and the Hermite
// polynomials, made once), accepted only when both ends of a relative interval of ±2^-40 around
// it round to the same float32 (the two evaluations differ far less than that); otherwise, and
// for 0, |x| ≥ 6 and NaN, the reference series decides. `bench/interp-erf-check.ts` compares
// the two over all 2^32 float32 inputs. WebAssembly's `erf32` (wasm/gemm-template.mjs, through
// ew-wasm.ts) is the same evaluation, the same operations in the same order.

/** erf(x) in float64: the series / continued fraction split. */
export function erf(x: number): number {
  const ax = Math.abs(x);
  if (ax < 2.5) {
    // Maclaurin series: erf(x) = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
    let term = x;
    let sum = x;
    const x2 = x * x;
    for (let n = 1; n < 60; n++) {
      term *= -x2 / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return (2 / Math.sqrt(Math.PI)) * sum;
  }
  if (ax > 6) return Math.sign(x);
  // Continued fraction for erfc at larger |x|.
  let f = 0;
  for (let k = 60; k >= 1; k--) f = k / 2 / (ax + f);
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / (ax + f);
  return Math.sign(x) * (1 - erfc);
}

const STEPS = 64; // grid points per unit
const POINTS = 6 * STEPS + 1;
const DEGREE = 8;
const SLACK = 2 ** -40;

let table: Float64Array | undefined;

/** Taylor coefficients of erf about k/64, k = 0..384: DEGREE + 1 per point, constant first. */
function coefficients(): Float64Array {
  const t = new Float64Array(3465); // POINTS · (DEGREE + 1), a fixed 27 KiB table
  const c = 2 / Math.sqrt(Math.PI);
  for (let k = 0; k < POINTS; k++) {
    const x0 = k / STEPS;
    const base = k * (DEGREE + 1);
    t[base] = erf(x0);
    // erf^(j)(x0) = c · (−1)^(j−1) · H_{j−1}(x0) · e^(−x0²), H the physicists' Hermite polynomials.
    const g = c * Math.exp(-x0 * x0);
    let hPrev = 0;
    let h = 1; // H_0
    let fact = 1;
    for (let j = 1; j <= DEGREE; j++) {
      fact *= j;
      t[base + j] = (((j - 1) % 2 === 0 ? 1 : -1) * h * g) / fact;
      const next = 2 * x0 * h - 2 * (j - 1) * hPrev; // H_j
      hPrev = h;
      h = next;
    }
  }
  return t;
}

/** The Taylor table (POINTS × (DEGREE + 1) float64, constant first), made once. */
export const erfTable = (): Float64Array => (table ??= coefficients());

/** erf over float32 values into float32 storage; the same results as rounding `erf`. */
export function erfFloat32(src: Float32Array, out: Float32Array): void {
  const t = erfTable();
  const fround = Math.fround;
  const n = src.length;
  for (let i = 0; i < n; i++) {
    const x = src[i]!;
    const ax = x < 0 ? -x : x;
    if (!(ax < 6) || ax === 0) {
      out[i] = erf(x);
      continue;
    }
    const k = (ax * STEPS + 0.5) | 0; // the nearest grid point (ax < 6: no overflow)
    const h = ax - k * (1 / STEPS); // exact: both are float32-sized
    const b = k * (DEGREE + 1);
    let p = t[b + 8]!;
    p = p * h + t[b + 7]!;
    p = p * h + t[b + 6]!;
    p = p * h + t[b + 5]!;
    p = p * h + t[b + 4]!;
    p = p * h + t[b + 3]!;
    p = p * h + t[b + 2]!;
    p = p * h + t[b + 1]!;
    p = p * h + t[b]!;
    const lo = fround(p - p * SLACK);
    if (lo === fround(p + p * SLACK)) out[i] = x < 0 ? -lo : lo;
    else out[i] = erf(x);
  }
}
