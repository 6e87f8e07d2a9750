// The one check of a target ai.onnx opset, wherever one is given: the converter, the CLI's
// --opset (convert, expand), the page's opset box and its worker. Only errors.ts is imported, so
// the page can run it before it asks the worker.

import { OnnxError } from "../errors.js";

/**
 * The target opset `value` names, as a number: a whole number from 1 to `max` (the newest ai.onnx
 * opset the schema registry knows); anything else is an E_USAGE error in one line, `what`
 * naming the value ("--opset", "target opset").
 */
export function targetOpset(value: string | number, max: number, what = "target opset"): number {
  const text = String(value).trim();
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (n >= 1 && n <= max) return n;
  throw new OnnxError(
    "E_USAGE",
    `${what} ${text === "" ? "(empty)" : `'${text}'`} is not one this tool knows (ai.onnx 1 to ${max})`,
  );
}
