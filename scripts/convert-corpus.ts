// The opset converter on Debian's libonnx-testdata backend tests: each model that
// onnxruntime-node runs correctly as it is is converted to other opsets, and the converted model
// must still give the stored outputs (on onnxruntime-node where its opset allows, and in the
// interpreter where the interpreter runs the original correctly). A conversion is `pass`,
// `refused` (blocked, with the reason), `wrong` (a runtime gives other numbers: never allowed),
// or `error` (a runtime cannot run the converted model). Used by scripts/convert-report.ts and by
// test/convert/corpus.test.ts.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { checkModel, formatProblem } from "../src/check/index.js";
import { convertModel } from "../src/app/transform.js";
import {
  compareValues,
  DEFAULT_TOLERANCE,
  floatErrors,
  legacyBfloat16,
  type Tolerance,
} from "../src/interp/backend-test.js";
import { decodeValueProto } from "../src/interp/value-proto.js";
import { runValues } from "../src/interp/executor.js";
import type { RTensor, RValue } from "../src/interp/types.js";
import { loadModel } from "../src/io/files.js";
import type { Model } from "../src/ir/types.js";
import { LIBONNX_TESTDATA } from "../test/helpers/data.js";
import { runOrt } from "../test/helpers/ort.js";

/** Debian's libonnx-testdata, where its package puts it (or $LIBONNX_TESTDATA). */
export const LIBONNX_ROOT = LIBONNX_TESTDATA;
/** The highest ai.onnx opset and IR version onnxruntime-node 1.30 accepts. */
export const ORT_MAX_OPSET = 26;
export const ORT_MAX_IR = 13;

export interface TestSet {
  inputs: Record<string, RValue>;
  /** Expected outputs by graph output name. */
  outputs: Record<string, RValue>;
}

export interface CorpusModel {
  dir: string;
  name: string;
  model: Model;
  opset: number;
  sets: TestSet[];
}

export type Outcome = "pass" | "refused" | "wrong" | "error";

export interface ConversionOutcome {
  target: number;
  outcome: Outcome;
  /** Refused: the first blocked node's reason; wrong/error: what went wrong, and where. */
  reason?: string;
  /** Problems `check` finds in the converted model. */
  checkProblems?: string[];
  /** The converted model (when asked for with `keep`). */
  model?: Model;
  /** The largest norm-wise error of an output of onnxruntime's run (see floatErrors). */
  worstNorm?: number;
}

function numbered(dir: string, prefix: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith(".pb"))
    .sort((a, b) => Number(a.slice(prefix.length, -3)) - Number(b.slice(prefix.length, -3)));
}

/** The model of a test folder and its test data sets (undefined when it has none). */
export function loadCorpusModel(dir: string): CorpusModel | undefined {
  const model = loadModel(join(dir, "model.onnx"));
  const opset = model.opsetImports.find((o) => o.domain === "" || o.domain === "ai.onnx")?.version;
  if (opset === undefined) return undefined;
  const init = new Set(model.graph.initializers.map((t) => t.name));
  const feedable = model.graph.inputs.filter((v) => !init.has(v.name));
  const sets: TestSet[] = [];
  for (const s of readdirSync(dir).sort()) {
    const sdir = join(dir, s);
    if (!s.startsWith("test_data_set_") || !statSync(sdir).isDirectory()) continue;
    const set: TestSet = { inputs: {}, outputs: {} };
    numbered(sdir, "input_").forEach((f, i) => {
      const target = feedable[i];
      const { name, value } = decodeValueProto(readFileSync(join(sdir, f)), target?.type);
      const vi = model.graph.inputs.find((v) => v.name === name) ?? target;
      if (vi) set.inputs[vi.name] = legacyBfloat16(value, vi.type);
    });
    const outs = numbered(sdir, "output_");
    if (outs.length !== model.graph.outputs.length) return undefined;
    outs.forEach((f, i) => {
      const target = model.graph.outputs[i];
      const { name, value } = decodeValueProto(readFileSync(join(sdir, f)), target?.type);
      const vo = model.graph.outputs.find((v) => v.name === name) ?? target;
      if (vo) set.outputs[vo.name] = legacyBfloat16(value, vo.type);
    });
    sets.push(set);
  }
  if (sets.length === 0) return undefined;
  return { dir, name: dir.split("/").at(-1)!, model, opset, sets };
}

/** Every test folder with a model under the root, in a stable order. */
export function corpusDirs(root = LIBONNX_ROOT): string[] {
  const out: string[] = [];
  if (!existsSync(root)) return out;
  for (const group of readdirSync(root).sort()) {
    const g = join(root, group);
    if (!statSync(g).isDirectory()) continue;
    for (const t of readdirSync(g).sort())
      if (existsSync(join(g, t, "model.onnx"))) out.push(join(g, t));
  }
  return out;
}

/** Compares a run's outputs with the stored ones; the first difference, or undefined. */
function compareSet(
  model: Model,
  got: Record<string, RValue>,
  set: TestSet,
  tol: Tolerance,
  norms: number[],
): string | undefined {
  for (const o of model.graph.outputs) {
    const want = set.outputs[o.name];
    const have = got[o.name];
    if (!want) continue;
    if (!have) return `output '${o.name}' missing`;
    const e = "dtype" in have && "dtype" in want ? floatErrors(have, want) : undefined;
    if (e) norms.push(e.norm);
    const d = compareValues(have, want, tol);
    if (d) return `output '${o.name}': ${d}`;
  }
  return undefined;
}

export type RunResult =
  { ok: true; worstNorm?: number } | { ok: false; wrong: boolean; reason: string };

const worst = (norms: number[]) => (norms.length ? Math.max(...norms) : undefined);

export async function runOnOrt(
  model: Model,
  sets: TestSet[],
  tol: Tolerance = DEFAULT_TOLERANCE,
): Promise<RunResult> {
  const norms: number[] = [];
  for (const set of sets) {
    let got: Record<string, RValue>;
    try {
      for (const v of Object.values(set.inputs))
        if (!("dtype" in v)) return { ok: false, wrong: false, reason: "a non-tensor input" };
      got = await runOrt(model, set.inputs as Record<string, RTensor>);
    } catch (e) {
      return { ok: false, wrong: false, reason: (e as Error).message.split("\n")[0]! };
    }
    const d = compareSet(model, got, set, tol, norms);
    if (d) return { ok: false, wrong: true, reason: d };
  }
  return { ok: true, worstNorm: worst(norms) };
}

export function runOnInterpreter(
  model: Model,
  sets: TestSet[],
  tol: Tolerance = DEFAULT_TOLERANCE,
): RunResult {
  const norms: number[] = [];
  for (const set of sets) {
    let got: Record<string, RValue>;
    try {
      got = runValues(model, set.inputs);
    } catch (e) {
      return { ok: false, wrong: false, reason: (e as Error).message.split("\n")[0]! };
    }
    const d = compareSet(model, got, set, tol, norms);
    if (d) return { ok: false, wrong: true, reason: d };
  }
  return { ok: true, worstNorm: worst(norms) };
}

export interface ConvertAndRunOptions {
  /** How outputs are judged (default: ONNX's backend-test tolerances). */
  tolerance?: Tolerance;
  /**
   * Lower function ops the target lacks, as the CLI's `convert` does (default false: the
   * converter alone, which refuses them).
   */
  lower?: boolean;
  /** Give the converted model back in the outcome. */
  keep?: boolean;
}

/**
 * Converts one corpus model to `target` and runs the result: on onnxruntime-node when the
 * target opset allows, and in the interpreter when `interpreterRunsOriginal`.
 */
export async function convertAndRun(
  m: CorpusModel,
  target: number,
  interpreterRunsOriginal: boolean,
  opts: ConvertAndRunOptions = {},
): Promise<ConversionOutcome> {
  const tol = opts.tolerance ?? DEFAULT_TOLERANCE;
  let converted: Model | undefined;
  try {
    const r = convertModel(m.model, target, { lower: opts.lower ?? false });
    if (!r.model) {
      const b = r.plan.blocked[0]!;
      return {
        target,
        outcome: "refused",
        reason: `${b.op} ${b.from || "-"} -> ${b.to || "-"}: ${b.message}`,
      };
    }
    converted = r.model;
  } catch (e) {
    return { target, outcome: "error", reason: `convert: ${(e as Error).message.split("\n")[0]}` };
  }
  return { target, ...(await judgeRuns(converted, m, interpreterRunsOriginal, tol, opts.keep)) };
}

/**
 * Runs a transformed model on the corpus model's data (on onnxruntime-node where its opset and
 * IR version allow, and in the interpreter when asked) and judges it: pass, wrong or error.
 */
export async function judgeRuns(
  transformed: Model,
  m: CorpusModel,
  interpreter: boolean,
  tol: Tolerance = DEFAULT_TOLERANCE,
  keep = false,
): Promise<Omit<ConversionOutcome, "target">> {
  const checkProblems = checkModel(transformed).problems.map(formatProblem);
  const kept = keep ? { model: transformed } : {};
  const failures: { who: string; r: RunResult }[] = [];
  const opset = transformed.opsetImports.find((o) => o.domain === "" || o.domain === "ai.onnx");
  if ((opset?.version ?? 0) <= ORT_MAX_OPSET && transformed.irVersion <= ORT_MAX_IR)
    failures.push({ who: "onnxruntime", r: await runOnOrt(transformed, m.sets, tol) });
  if (interpreter)
    failures.push({ who: "interpreter", r: runOnInterpreter(transformed, m.sets, tol) });
  const bad = failures.filter((f) => !f.r.ok);
  const wrong = bad.find((f) => !f.r.ok && f.r.wrong);
  const first = wrong ?? bad[0];
  const ortRun = failures[0]?.who === "onnxruntime" ? failures[0].r : undefined;
  const worstNorm = ortRun?.ok ? ortRun.worstNorm : undefined;
  if (!first)
    return {
      outcome: "pass",
      checkProblems,
      ...kept,
      ...(worstNorm !== undefined ? { worstNorm } : {}),
    };
  const reason = first.r.ok ? "" : `${first.who}: ${first.r.reason}`;
  return { outcome: wrong ? "wrong" : "error", reason, checkProblems, ...kept };
}
