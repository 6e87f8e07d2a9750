// Whether a tensor's stored data fits its shape and type (initializers, TENSOR attributes).

import { rawByteLength } from "../ir/dtype.js";
import type { Tensor } from "../ir/tensor.js";

/** Why a tensor's stored data cannot be read as its shape says (external data is checked on load). */
export function tensorDataProblem(t: Tensor): string | undefined {
  const shape = `[${t.dims.join(",")}]`;
  if (t.dims.some((d) => !Number.isSafeInteger(d) || d < 0)) return `has an invalid shape ${shape}`;
  const n = t.dims.reduce((a, b) => a * b, 1);
  if (t.data.kind === "raw" || t.data.kind === "lazy") {
    const need = rawByteLength(t.dataType, n);
    const have = t.byteLength;
    if (need >= 0 && have !== need)
      return `holds ${have} bytes of raw data; shape ${shape} needs ${need}`;
  } else if (t.data.kind === "string") {
    if (t.data.values.length !== n)
      return `holds ${t.data.values.length} strings; shape ${shape} needs ${n}`;
  } else if (t.data.kind === "none") {
    if (n !== 0) return `holds no data; shape ${shape} needs ${n} values`;
  } else if (t.data.kind !== "external") {
    // Typed fields: complex numbers take two entries, 4-bit types pack two per int32 entry.
    const id = t.dataType;
    const need = id === 14 || id === 15 ? 2 * n : id >= 21 && id <= 23 ? Math.ceil(n / 2) : n;
    if (t.data.values.length !== need)
      return `holds ${t.data.values.length} values in ${t.data.kind}_data; shape ${shape} needs ${need}`;
  }
  return undefined;
}
