// The one rule for how a model file is read, on disk (files.ts loadModel) and in the page (app/):
// a name ending in `.onnxtxt` is ONNX text (refused when its first bytes are binary), any other
// name (`.onnx`, `.txt`, ...) a binary ModelProto. No file system here, so the page can use it.

import { OnnxError } from "../errors.js";
import type { Model } from "../ir/types.js";
import { parseModelText } from "../text/parse.js";
import { decodeModel } from "./codec.js";
import type { DecodeOptions } from "./decode.js";

export type ModelFormat = "binary" | "text";

/** Whether a file of this name is read (and written) as ONNX text. */
export function isTextPath(name: string): boolean {
  return name.endsWith(".onnxtxt");
}

/**
 * Whether the first bytes of a file hold control characters no text has (a binary model given a
 * text name).
 */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 512).some((b) => b < 9 || (b > 13 && b < 32 && b !== 27));
}

/**
 * The model a file's bytes hold, read as its name says (or as `format` forces); errors name the
 * file. `decode`: the binary decoder's options (where external data lives, what it found).
 */
export function modelFromBytes(
  bytes: Uint8Array,
  name: string,
  opts: { format?: ModelFormat; decode?: DecodeOptions } = {},
): Model {
  if ((opts.format ?? (isTextPath(name) ? "text" : "binary")) === "binary")
    return decodeModel(bytes, { ...opts.decode, where: name });
  if (looksBinary(bytes))
    throw new OnnxError(
      "E_PARSE",
      "holds binary data, not ONNX text (a binary .onnx model is read by print, check and run)",
      name,
    );
  // The byte-order mark, if any, is kept: the lexer skips it.
  return parseModelText(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes), name);
}
