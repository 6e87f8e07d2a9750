// Tensors as the CLI prints them.

import { dtypeName } from "../ir/dtype.js";
import { elementString } from "../interp/tensor.js";
import type { RTensor } from "../interp/types.js";

/** "name: float [2,3] = 1, 2, 3, ..." with the first `limit` values. */
export function summarizeTensor(name: string, t: RTensor, limit = 8): string {
  const n = t.data.length;
  const shown: string[] = [];
  for (let i = 0; i < Math.min(n, limit); i++) shown.push(elementString(t, i));
  const tail = n > limit ? `, ... (${n} values)` : "";
  return `${name}: ${dtypeName(t.dtype)} [${t.shape.join(",")}] = ${n === 0 ? "(empty)" : shown.join(", ") + tail}`;
}
