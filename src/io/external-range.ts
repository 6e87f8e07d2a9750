// External data without a file system: a tensor's entries (location, offset, length) and the
// range of its data file they name, checked against the file's size. Shared by the loader on
// disk (external.ts) and the page, which reads picked files.

import { OnnxError } from "../errors.js";
import { dtypeName, rawByteLength } from "../ir/dtype.js";
import type { Tensor } from "../ir/tensor.js";
import { DataType } from "../ir/types.js";

/** The keys of an external data entry that may appear once only (ONNX's checker holds to it). */
const SINGLE_KEYS = ["location", "offset", "length"];

export function externalEntry(t: Tensor, key: string): string | undefined {
  if (t.data.kind !== "external") return undefined;
  return t.data.entries.find(([k]) => k === key)?.[1];
}

/** The location of a tensor's external data; a key given twice (two locations) is refused. */
export function externalLocation(t: Tensor, where?: string): string {
  if (t.data.kind === "external" && where !== undefined) checkExternalKeys(t, where);
  return externalEntry(t, "location") ?? "";
}

/** Refuses external data entries with a location, offset or length given more than once. */
export function checkExternalKeys(t: Tensor, where?: string): void {
  if (t.data.kind !== "external") return;
  for (const key of SINGLE_KEYS) {
    const n = t.data.entries.reduce((c, [k]) => c + (k === key ? 1 : 0), 0);
    if (n > 1)
      throw new OnnxError(
        "E_MODEL",
        `tensor '${t.name}' has ${n} '${key}' entries in its external data (one is allowed)`,
        where,
      );
  }
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
  checkExternalKeys(t, where);
  for (const key of ["offset", "length"]) {
    const v = externalEntry(t, key);
    if (v !== undefined && !/^\d+$/.test(v.trim()))
      throw new OnnxError(
        "E_MODEL",
        `external data ${key} '${v}' of tensor '${t.name}' is not a non-negative integer`,
        where,
      );
  }
  // Compared as bigints and printed as given: an offset past 2^53 is not rounded to another one.
  const offsetEntry = externalEntry(t, "offset")?.trim();
  const lengthEntry = externalEntry(t, "length")?.trim();
  const offset = BigInt(offsetEntry ?? "0");
  const needed = rawByteLength(t.dataType, t.elementCount);
  if (t.dataType === DataType.STRING)
    throw new OnnxError(
      "E_MODEL",
      `tensor '${t.name}' is a string tensor, which cannot keep its data in an external file`,
      where,
    );
  if (lengthEntry !== undefined && needed >= 0 && BigInt(lengthEntry) !== BigInt(needed))
    throw new OnnxError(
      "E_MODEL",
      `external data of tensor '${t.name}' is ${BigInt(lengthEntry)} bytes long, but ${tensorLabel(t)} takes ${needed}`,
      where,
    );
  // Without a length entry the tensor's bytes start at the offset and are as many as it takes.
  const length =
    lengthEntry !== undefined
      ? BigInt(lengthEntry)
      : needed >= 0
        ? BigInt(needed)
        : BigInt(size) - offset;
  if (length < 0n || offset + length > BigInt(size))
    throw new OnnxError(
      "E_IO",
      `external data of tensor '${t.name}' (offset ${offset}, length ${length}${lengthEntry === undefined ? ` for ${tensorLabel(t)}` : ""}) is past the end of '${externalLocation(t)}' (${size} bytes)`,
      where,
    );
  return { offset: Number(offset), length: Number(length) };
}
