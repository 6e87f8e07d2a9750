// Model bytes to IR and back, without a file system (shared by files.ts and the web page).

import { OnnxError } from "../errors.js";
import type { Model } from "../ir/types.js";
import { decodeMessage, encodeMessage } from "../proto/wire.js";
import { ProtoReader } from "./from-proto.js";
import { ProtoWriter } from "./to-proto.js";

/** Decodes model bytes into IR. Tensor raw data stays a view of `bytes`. */
export function decodeModel(
  bytes: Uint8Array,
  opts: { baseDir?: string; where?: string } = {},
): Model {
  if (bytes.length === 0)
    throw new OnnxError("E_DECODE", "empty file: not an ONNX model", opts.where);
  const msg = decodeMessage("ModelProto", bytes, opts.where);
  try {
    return new ProtoReader({ baseDir: opts.baseDir }).model(msg);
  } catch (e) {
    if (e instanceof OnnxError) throw new OnnxError(e.code, e.message, opts.where);
    throw new OnnxError("E_DECODE", `not a valid ONNX model: ${(e as Error).message}`, opts.where);
  }
}

/** Encodes a model into one buffer. */
export function encodeModel(model: Model): Uint8Array {
  return encodeMessage("ModelProto", new ProtoWriter().model(model));
}
