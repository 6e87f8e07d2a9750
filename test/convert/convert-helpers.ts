// Text in, text out for the converter: the model after conversion, printed, must equal the
// expected model text, printed (so formatting does not matter); and it must pass check.

import { expect } from "vitest";
import { checkModel, formatProblem } from "../../src/check/index.js";
import { convertModel, convertPass, type ConversionResult } from "../../src/convert/index.js";
import { expectPass } from "../helpers/pass.js";
import type { Model } from "../../src/ir/types.js";
import { parseModelText } from "../../src/text/parse.js";
import { printModel } from "../../src/text/print.js";

export function parse(text: string): Model {
  return parseModelText(text);
}

/**
 * Converts `before` to `opset` and compares with `after` (both ONNX text): through expectPass
 * (names the pass introduced compared in order, same outputs in the interpreter on seeded
 * random inputs) unless `run` is false (ops the interpreter lacks), then printed exactly.
 * Returns the conversion's result, for the plan.
 */
export function expectConverted(
  before: string,
  opset: number,
  after: string,
  opts: { run?: boolean } = {},
): ConversionResult {
  if (opts.run !== false) expectPass(convertPass(opset), before, after, { low: 0.5, high: 3 });
  const model = parse(before);
  const printedBefore = printModel(model);
  const r = convertModel(model, opset);
  expect(r.plan.blocked.map((b) => `${b.where}: ${b.message}`)).toEqual([]);
  expect(printModel(r.model!)).toBe(printModel(parse(after)));
  // The input is never mutated.
  expect(printModel(model)).toBe(printedBefore);
  expectValid(r.model!);
  return r;
}

export function expectValid(model: Model): void {
  const report = checkModel(model);
  expect(report.problems.map(formatProblem)).toEqual([]);
}

/** Converts and expects refusal; returns the blocked lines ("where: message"). */
export function expectBlocked(before: string, opset: number): string[] {
  const r = convertModel(parse(before), opset);
  expect(r.model).toBeUndefined();
  expect(r.plan.blocked.length).toBeGreaterThan(0);
  return r.plan.blocked.map((b) => `${b.where}: ${b.message}`);
}
