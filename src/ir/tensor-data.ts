// The one validation of a tensor's stored data: its element type is a known one (not 0, UNDEFINED),
// its shape is valid, and its data holds exactly what the shape needs — in raw_data the bytes of
// the shape (4- and 2-bit types packed, rounded up to a whole byte), in a typed field the entries
// of the shape (two per complex number; one packed byte per int32_data entry for the 4- and 2-bit
// types), in the field the type keeps its values in. `check` reports it as a problem, the
// interpreter's loader (a run, a folded constant) and the transforms refuse such a tensor with it.
// Bool bytes other than 0 and 1 are not a problem: as in onnxruntime, any non-zero byte is true
// (docs/semantics.md); the interpreter reads them so.

import { dtypeInfo, rawByteLength } from "./dtype.js";
import type { Tensor } from "./tensor.js";
import type { Model } from "./types.js";
import { walkTensors } from "./visit.js";

const FIELD_OF_KIND: Readonly<Record<string, string>> = {
  float: "float_data",
  int32: "int32_data",
  int64: "int64_data",
  double: "double_data",
  uint64: "uint64_data",
  string: "string_data",
};

/** Why a tensor's stored data cannot be read as its type and shape say, or undefined when it can
 * (the length of external data is checked when its file is opened). */
export function tensorDataProblem(t: Tensor): string | undefined {
  const info = dtypeInfo(t.dataType);
  if (!info)
    return t.dataType === 0
      ? "has element type 0 (UNDEFINED)"
      : `has an unknown element type ${t.dataType}`;
  const shape = `[${t.dims.join(",")}]`;
  if (t.dims.some((d) => !Number.isSafeInteger(d) || d < 0)) return `has an invalid shape ${shape}`;
  const n = t.dims.reduce((a, b) => a * b, 1);
  if (!Number.isSafeInteger(n)) return `has a shape ${shape} of more elements than can be held`;
  // A tensor split into segments holds one part of the data: its length is not the shape's.
  if (t.segment) return undefined;
  const d = t.data;
  switch (d.kind) {
    case "external":
      return undefined;
    case "none":
      return n === 0 ? undefined : `holds no data; shape ${shape} needs ${n} values`;
    case "raw":
    case "lazy": {
      if (info.size === 0) return `is a ${info.name} tensor stored as raw data`;
      const need = rawByteLength(t.dataType, n);
      const have = t.byteLength;
      return have === need
        ? undefined
        : `holds ${have} bytes of raw data; shape ${shape} needs ${need}`;
    }
    default: {
      const field = FIELD_OF_KIND[d.kind]!;
      if (field !== info.field)
        return `holds its values in ${field}; ${info.name} tensors keep them in ${info.field}`;
      // Complex numbers take two entries; packed types one byte of elements an int32 entry.
      const need = info.name.startsWith("complex")
        ? 2 * n
        : info.size > 0 && info.size < 1
          ? rawByteLength(t.dataType, n)
          : n;
      const have = d.values.length;
      return have === need
        ? undefined
        : `holds ${have} values in ${field}; shape ${shape} needs ${need}`;
    }
  }
}

/** The first tensor of a model (initializers, sparse initializers, attributes, in every graph and
 * function) whose data is malformed, as one line naming it; undefined when there is none. */
export function modelTensorDataProblem(model: Model): string | undefined {
  for (const t of walkTensors(model)) {
    const bad = tensorDataProblem(t);
    if (bad) return `tensor${t.name ? ` '${t.name}'` : ""} ${bad}`;
  }
  return undefined;
}
