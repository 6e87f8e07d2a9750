// External data without a file system: a tensor's entries (location, offset, length) and the
// range of its data file they name, checked against the file's size. Shared by the loader on
// disk (external.ts) and the page, which reads picked files.

import { OnnxError } from "../errors.js";
import { dtypeName, rawByteLength } from "../ir/dtype.js";
import type { Tensor } from "../ir/tensor.js";
import { DataType } from "../ir/types.js";

export function externalEntry(t: Tensor, key: string): string | undefined {
  if (t.data.kind !== "external") return undefined;
  return t.data.entries.find(([k]) => k === key)?.[1];
}
export function externalLocation(t: Tensor): string {
  return externalEntry(t, "location") ?? "";
}

/** A tensor's type as a user writes it: float[1024]. */
function tensorLabel(t: Tensor): string {
  return `${dtypeName(t.dataType)}[${t.dims.join(",")}]`;
}

/** Where a tensor's bytes lie in its external data file of `size` bytes; refuses bad or out-of-file ranges. */
export function externalRange(
  t: Tensor,
  size: number,
  where?: string,
): { offset: number; length: number } {
  for (const key of ["offset", "length"]) {
    const v = externalEntry(t, key);
    if (v !== undefined && !/^\d+$/.test(v.trim()))
      throw new OnnxError(
        "E_MODEL",
        `external data ${key} '${v}' of tensor '${t.name}' is not a non-negative integer`,
        where,
      );
  }
  const offset = Number(externalEntry(t, "offset") ?? "0");
  const lengthEntry = externalEntry(t, "length");
  const needed = rawByteLength(t.dataType, t.elementCount);
  if (t.dataType === DataType.STRING)
    throw new OnnxError(
      "E_MODEL",
      `tensor '${t.name}' is a string tensor, which cannot keep its data in an external file`,
      where,
    );
  if (lengthEntry !== undefined && needed >= 0 && Number(lengthEntry) !== needed)
    throw new OnnxError(
      "E_MODEL",
      `external data of tensor '${t.name}' is ${lengthEntry} bytes long, but ${tensorLabel(t)} takes ${needed}`,
      where,
    );
  // Without a length entry the tensor's bytes start at the offset and are as many as it takes.
  const length =
    lengthEntry !== undefined ? Number(lengthEntry) : needed >= 0 ? needed : size - offset;
  if (!(length >= 0) || offset + length > size)
    throw new OnnxError(
      "E_IO",
      `external data of tensor '${t.name}' (offset ${offset}, length ${length}${lengthEntry === undefined ? ` for ${tensorLabel(t)}` : ""}) is past the end of '${externalLocation(t)}' (${size} bytes)`,
      where,
    );
  return { offset, length };
}
