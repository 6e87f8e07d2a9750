// float32 (and float16, bfloat16) MaxPool over two spatial axes without the indices output: the general loop's rule (the
// largest value of the window's taps inside the input, taken in kernel order; any NaN gives NaN)
// with the window's bounds worked out per row instead of through a table.

import { DataType } from "../../ir/types.js";
import { allocStorage, encodeHalf, scratch, toFloat32 } from "../tensor.js";
import { narrowHalfWasm, widenHalfWasm } from "./ew-wasm.js";
import type { RTensor } from "../types.js";

/** The window geometry of a 2-D convolution or pooling. */
export interface Window2d {
  inSpatial: number[];
  outSpatial: number[];
  kernel: number[];
  strides: number[];
  dilations: number[];
  padBegin: number[];
}

/** [H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw] of a 2-D window. */
export function flat2d(w: Window2d): number[] {
  return [w.inSpatial, w.outSpatial, w.kernel, w.strides, w.dilations, w.padBegin].flatMap((a) =>
    a.slice(0, 2),
  );
}

/**
 * float32 MaxPool, and float16 / bfloat16 through float32 (widened exactly; the largest value
 * is one of the inputs, so rounding it back gives its bits, a NaN as the reference writes it).
 */
export function maxPool2d(x: RTensor, w: Window2d, outShape: number[]): RTensor {
  const [H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw] = flat2d(w);
  const planes = x.shape[0]! * x.shape[1]!;
  const half = x.dtype === DataType.FLOAT16 ? 1 : x.dtype === DataType.BFLOAT16 ? 2 : 0;
  let xv = x.data as Float32Array;
  if (half) {
    xv = scratch(Float32Array, x.data.length);
    if (!widenHalfWasm(x.data as Uint16Array, half, xv)) xv = toFloat32(x) as Float32Array;
  }
  const n = planes * OH * OW;
  const out = half ? scratch(Float32Array, n) : (allocStorage(DataType.FLOAT, n) as Float32Array);
  let o = 0;
  for (let p = 0; p < planes; p++) {
    const x0 = p * H * W;
    for (let oh = 0; oh < OH; oh++) {
      const ih0 = oh * sh - ph;
      for (let ow = 0; ow < OW; ow++) {
        const iw0 = ow * sw - pw;
        let acc = -Infinity;
        let seen = false;
        for (let kh = 0; kh < KH; kh++) {
          const ih = ih0 + kh * dh;
          if (ih < 0 || ih >= H) continue;
          const row = x0 + ih * W;
          for (let kw = 0; kw < KW; kw++) {
            const iw = iw0 + kw * dw;
            if (iw < 0 || iw >= W) continue;
            const v = xv[row + iw]!;
            if (v > acc || !seen || (v !== v && acc === acc)) acc = v;
            seen = true;
          }
        }
        out[o++] = acc;
      }
    }
  }
  if (!half) return { dtype: DataType.FLOAT, shape: outShape, data: out };
  const bits = allocStorage(x.dtype, n) as Uint16Array;
  if (!narrowHalfWasm(out, half, bits)) bits.set(encodeHalf(x.dtype, out));
  return { dtype: x.dtype, shape: outShape, data: bits };
}
