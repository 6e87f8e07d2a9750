// float32 MaxPool over two spatial axes without the indices output: the general loop's rule (the
// largest value of the window's taps inside the input, taken in kernel order; any NaN gives NaN)
// with the window's bounds worked out per row instead of through a table.

import { DataType } from "../../ir/types.js";
import { allocStorage } from "../tensor.js";
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

export function maxPool2d(x: RTensor, w: Window2d, outShape: number[]): RTensor {
  const [H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw] = flat2d(w);
  const planes = x.shape[0]! * x.shape[1]!;
  const xv = x.data as Float32Array;
  const out = allocStorage(DataType.FLOAT, planes * OH * OW) as Float32Array;
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
  return { dtype: DataType.FLOAT, shape: outShape, data: out };
}
