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
    const hint = looksLikeText(bytes) ? " (the file holds ONNX text: name it .onnxtxt)" : "";
    if (e instanceof OnnxError) {
      if (!hint) throw e;
      const message = e.where ? e.message.slice(e.where.length + 2) : e.message;
      throw new OnnxError(e.code, `${message}${hint}`, e.where);
    }
    throw new OnnxError(
      "E_DECODE",
      `not a valid ONNX model: ${(e as Error).message}${hint}`,
      opts.where,
    );
  }
}

/** Whether bytes that failed to decode begin as ONNX text does: "<ir_version" or "<\n ir_version". */
function looksLikeText(bytes: Uint8Array): boolean {
  const head = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, 256));
  return /^\uFEFF?\s*(#[^\n]*\n\s*)*<\s*ir_version\s*:/.test(head);
}

/** Encodes a model into one buffer. */
export function encodeModel(model: Model): Uint8Array {
  return encodeModelBytes(model);
}
