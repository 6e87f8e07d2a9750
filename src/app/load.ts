// A model from a file's name and bytes, decided the same way on the command line (io/files.ts
// loadModel) and in the page: `.onnxtxt` is ONNX text, every other name (`.onnx`, `.txt`, ...) is
// a binary ModelProto. No file system here, so the page can use it.

import { OnnxError } from "../errors.js";
import { decodeModel } from "../io/codec.js";
import { isTextPath as isTextModelName, looksBinary } from "../io/format.js";
import type { Model } from "../ir/types.js";
import { parseModelText } from "../text/parse.js";

export { isTextPath as isTextModelName, looksBinary } from "../io/format.js";

/** Decodes a model file's bytes; errors name the file. `baseDir`: where external data lives. */
export function modelFromBytes(bytes: Uint8Array, name: string, baseDir?: string): Model {
  if (!isTextModelName(name)) return decodeModel(bytes, { where: name, baseDir });
  if (looksBinary(bytes))
    throw new OnnxError(
      "E_PARSE",
      "holds binary data, not ONNX text (a binary .onnx model is read by print, check and run)",
      name,
    );
  return parseModelText(new TextDecoder().decode(bytes), name);
}
