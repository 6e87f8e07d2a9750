// float32, float16 and bfloat16 MaxPool over two spatial axes without the indices output, on
// WebAssembly: the general loop's rule (the largest value of the window's taps inside the input,
// taken in kernel order; any NaN gives NaN) with the window's bounds worked out per row instead of
// through a table. The caller checks that the WebAssembly product is enabled.

import { DataType } from "../../ir/types.js";
import { allocStorage } from "../tensor.js";
import { f32At, gemmArena, scratchAlloc, scratchRelease, stage } from "./wasm/gemm.js";
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
 * MaxPool of float32, float16 or bfloat16 on WebAssembly (ewmem.wat's mp2d: conv-pool.ts's rule
 * with the window's bounds worked out per row), plane by plane through the arena: float16 and
 * bfloat16 widened to float32 there (h2f, exact), the results narrowed back (f2h: the largest
 * value is one of the inputs, so its bits come back, a NaN as encodeHalf writes it).
 */
export function maxPool2d(x: RTensor, w: Window2d, outShape: number[]): RTensor {
  const g = flat2d(w);
  const half: 0 | 1 | 2 = x.dtype === DataType.FLOAT16 ? 1 : x.dtype === DataType.BFLOAT16 ? 2 : 0;
  const ar = gemmArena()!;
  const [H, W, OH, OW] = g as [number, number, number, number];
  const planes = x.shape[0]! * x.shape[1]!;
  const out = allocStorage(x.dtype, planes * OH * OW) as Float32Array | Uint16Array;
  const src = { data: x.data as Float32Array | Uint16Array, half };
  try {
    const oAt = scratchAlloc(ar, OH * OW * 4 + 16, "a pooled plane");
    for (let p = 0; p < planes; p++) {
      const xAt = stage(ar, src, p * H * W, H * W);
      ar.ex.mp2d!(xAt, ...g, oAt);
      if (half) {
        ar.ex.f2h!(oAt, oAt, OH * OW, (half - 1) | 2 | 4);
        out.set(new Uint16Array(ar.memory.buffer, oAt, OH * OW), p * OH * OW);
      } else out.set(f32At(ar, oAt, OH * OW), p * OH * OW);
      ar.top = xAt;
    }
  } finally {
    scratchRelease(ar);
  }
  return { dtype: x.dtype, shape: outShape, data: out };
}
