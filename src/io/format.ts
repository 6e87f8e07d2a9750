// Which format a model file is in: a file named `.onnxtxt` is ONNX text (refused when its first
// bytes are binary), any other name a binary ModelProto. The command line and the page decide
// alike.

/** Whether a file of this name is read as ONNX text. */
export function isTextPath(path: string): boolean {
  return path.endsWith(".onnxtxt");
}

/**
 * Whether the first bytes of a file hold control characters no text has (a binary model given a
 * text name).
 */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 512).some((b) => b < 9 || (b > 13 && b < 32 && b !== 27));
}
