// The converter's tests: text in, text out (expectConverted: through expectPass, names the pass
// introduced compared in order, and the same outputs on seeded random inputs; then printed
// exactly), refusals (expectBlocked), and real runs before and after (convertAndCompare: the
// interpreter and, where its opsets allow, onnxruntime-node). The converter alone unless a case
// asks for lowering (`lower`: function ops the target lacks lowered on the way, as the CLI does).

import { expect } from "vitest";
import { convertModel } from "../../src/app/transform.js";
import { checkModel, formatProblem } from "../../src/check/index.js";
import { convertPass, type ConversionResult } from "../../src/convert/index.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import { run } from "../../src/interp/executor.js";
import { randomTensor, seededRandom } from "../../src/interp/random.js";
import type { RTensor } from "../../src/interp/types.js";
import type { Model } from "../../src/ir/types.js";
import { parseModelText, printModel } from "../../src/text/index.js";
import { runOrt } from "./ort.js";
import { expectPass } from "./pass.js";

/** The highest ai.onnx opset onnxruntime-node (1.30) accepts. */
export const ORT_MAX_OPSET = 26;

export function parse(text: string): Model {
  return parseModelText(text);
}

/** A model converted, lowering function ops the target lacks when `lower` (default: not). */
export function converted(model: Model, target: number, lower = false): ConversionResult {
  return convertModel(model, target, { lower });
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
  const r = converted(model, opset);
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
  const r = converted(parse(before), opset);
  expect(r.model).toBeUndefined();
  expect(r.plan.blocked.length).toBeGreaterThan(0);
  return r.plan.blocked.map((b) => `${b.where}: ${b.message}`);
}

function onnxOpset(m: Model): number {
  return m.opsetImports.find((o) => o.domain === "" || o.domain === "ai.onnx")!.version;
}

/** Random feeds for every graph input of a model with static shapes. */
export function randomFeeds(m: Model, seed = 1): Record<string, RTensor> {
  const feeds: Record<string, RTensor> = {};
  m.graph.inputs.forEach((v, i) => {
    if (m.graph.initializers.some((t) => t.name === v.name)) return;
    const t = v.type;
    if (!t || t.kind !== "tensor" || !t.shape || t.shape.some((d) => typeof d !== "number"))
      throw new Error(`input '${v.name}' needs a static tensor type for random feeds`);
    feeds[v.name] = randomTensor(t.elemType, t.shape as number[], seededRandom(seed + i));
  });
  return feeds;
}

export interface ConvertCase {
  /** The model before, in ONNX text. */
  text: string;
  target: number;
  /** Lower function ops the target lacks (default: the converter alone). */
  lower?: boolean;
  feeds?: Record<string, RTensor>;
  /** Skip onnxruntime-node for the model before (e.g. it has no kernel for an old version). */
  noOrtBefore?: boolean;
  noOrtAfter?: boolean;
  /** The interpreter has no kernel for the op: onnxruntime-node runs the model before as the reference. */
  noInterpreter?: boolean;
  tol?: { rtol: number; atol: number };
}

/** Converts, checks the result, compares outputs before/after; returns the converted model's text. */
export async function convertAndCompare(k: ConvertCase): Promise<string> {
  const before = parseModelText(k.text);
  const after = convertText(k.text, k.target, k.lower);
  const text = printModel(after);
  const problems = checkModel(after).problems.map(formatProblem);
  expect(problems, text).toEqual([]);
  const feeds = k.feeds ?? randomFeeds(before);
  const results: [string, Record<string, RTensor>][] = [];
  let expected: Record<string, RTensor>;
  if (k.noInterpreter) {
    expected = await runOrt(before, feeds);
  } else {
    expected = run(before, feeds);
    results.push(["interpreter", run(after, feeds)]);
    if (!k.noOrtBefore && onnxOpset(before) <= ORT_MAX_OPSET)
      results.push(["onnxruntime before", await runOrt(before, feeds)]);
  }
  if (!k.noOrtAfter && onnxOpset(after) <= ORT_MAX_OPSET)
    results.push(["onnxruntime after", await runOrt(after, feeds)]);
  for (const [who, got] of results)
    for (const o of before.graph.outputs) {
      const diff = compareTensors(
        got[o.name]!,
        expected[o.name]!,
        k.tol ?? { rtol: 1e-5, atol: 1e-6 },
      );
      expect(diff, `${who}: output '${o.name}'\n${text}`).toBeUndefined();
    }
  return text;
}

/** Converts a model given in text; throws with every blocked node's reason when it is blocked. */
export function convertText(text: string, target: number, lower = false): Model {
  const r = converted(parseModelText(text), target, lower);
  if (!r.model) throw new Error(r.plan.blocked.map((b) => `${b.where}: ${b.message}`).join("\n"));
  return r.model;
}

/** The node lines of the main graph of a printed model, trimmed (functions are not printed here). */
export function nodeLines(text: string): string[] {
  const lines = text.split("\n");
  const start = lines.findIndex(
    (l, i) => i > 0 && (l === "{" || (l.endsWith(" {") && !l.startsWith(" "))),
  );
  const end = lines.indexOf("}", start);
  return lines
    .slice(start + 1, end)
    .map((l) => l.trim())
    .filter((l) => l !== "");
}
