// Model bytes to IR and back, without a file system (shared by files.ts and the web page).

import { OnnxError } from "../errors.js";
import type { Model } from "../ir/types.js";
import { decodeIR, type DecodeOptions } from "./decode.js";
import { encodeModelBytes } from "./encode.js";

/** Decodes model bytes into IR. Tensor raw data stays a view of `bytes`. */
export function decodeModel(bytes: Uint8Array, opts: DecodeOptions = {}): Model {
  if (bytes.length === 0)
    throw new OnnxError("E_DECODE", "empty file: not an ONNX model", opts.where);
  try {
    return decodeIR("ModelProto", bytes, opts);
  } catch (e) {
    if (e instanceof OnnxError) throw e;
    throw new OnnxError("E_DECODE", `not a valid ONNX model: ${(e as Error).message}`, opts.where);
  }
}

/** Encodes a model into one buffer. */
export function encodeModel(model: Model): Uint8Array {
  return encodeModelBytes(model);
}
