// Cast to and from the 8-, 4- and 2-bit types (float8 e4m3fn/e4m3fnuz/e5m2/e5m2fnuz/e8m0,
// float4e2m1, int4/uint4, int2/uint2): decoded exactly to float64, and encoded as ONNX's Cast
// does (minifloats: nearest even, `saturate` for out-of-range values, e8m0 by its `round_mode`;
// sub-byte integers: truncated and wrapped, as Cast stores every narrow integer type).

import { isMiniFloat, numberToMiniFloatBits, packedBits } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { allocStorage, toFloat64, wrapSubByte } from "../tensor.js";
import type { KernelContext, RTensor } from "../types.js";
import { intAttr, stringAttr } from "./attrs.js";

/** Whether a dtype is one of the 8-, 4- and 2-bit types this file casts. */
export function isLowPrecision(dtype: number): boolean {
  return isMiniFloat(dtype) || packedBits(dtype) > 0;
}

/**
 * x cast to `to` where either is a low-precision type; `castWide` casts between the other types
 * (castTensor). Cast's `saturate` (19 and later) and `round_mode` (float8e8m0) are read from the
 * node when its version has them.
 */
export function castLowPrecision(
  ctx: KernelContext,
  x: RTensor,
  to: number,
  castWide: (x: RTensor, to: number) => RTensor,
): RTensor {
  const shape = [...x.shape];
  if (x.dtype === to) return { dtype: to, shape, data: x.data.slice() as RTensor["data"] };
  // From a low-precision type: exact in double, then as a double is cast.
  const wide: RTensor = isLowPrecision(x.dtype)
    ? { dtype: DataType.DOUBLE, shape, data: toFloat64(x) }
    : x;
  if (!isLowPrecision(to)) return castWide(wide, to);
  const v =
    wide.dtype === DataType.DOUBLE
      ? (wide.data as Float64Array)
      : (castWide(wide, DataType.DOUBLE).data as Float64Array);
  const n = v.length;
  const out = allocStorage(to, n) as Uint8Array | Int8Array;
  if (packedBits(to) && !isMiniFloat(to)) {
    wrapSubByte(to, out, v);
    return { dtype: to, shape, data: out };
  }
  // Versions before 19 know no saturate; before 25, no round_mode (e8m0 rounds up).
  const saturate = intAttr(ctx, "saturate", { without: 1 }) !== 0;
  const round = stringAttr(ctx, "round_mode", { without: "up" }) as "up" | "down" | "nearest";
  for (let i = 0; i < n; i++) out[i] = numberToMiniFloatBits(to, v[i]!, saturate, round);
  return { dtype: to, shape, data: out };
}
