// PLACEHOLDER until the text-syntax work lands: the printer of ONNX text syntax.
import type { Model } from "../ir/types.js";
export interface PrintOptions {
  initializers?: boolean;
}
export function printModel(_model: Model, _opts: PrintOptions = {}): string {
  throw new Error("ONNX text printing is not implemented yet");
}
