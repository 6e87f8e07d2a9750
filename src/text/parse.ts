// PLACEHOLDER until the text-syntax work lands: the parser of ONNX text syntax.
import { OnnxError } from "../errors.js";
import type { Model } from "../ir/types.js";
export function parseModelText(_text: string, file?: string): Model {
  throw new OnnxError("E_UNSUPPORTED", "ONNX text parsing is not implemented yet", file);
}
