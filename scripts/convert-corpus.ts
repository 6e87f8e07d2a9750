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
import { convertModel } from "../src/convert/index.js";
import { compareValues, DEFAULT_TOLERANCE, legacyBfloat16 } from "../src/interp/backend-test.js";
import { decodeValueProto } from "../src/interp/value-proto.js";
import { runValues } from "../src/interp/executor.js";
import type { RTensor, RValue } from "../src/interp/types.js";
import { loadModel } from "../src/io/files.js";
import type { Model } from "../src/ir/types.js";
import { runOrt } from "../test/helpers/ort.js";

export const LIBONNX_ROOT = "/usr/share/libonnx-testdata/data";
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
function compareSet(model: Model, got: Record<string, RValue>, set: TestSet): string | undefined {
  for (const o of model.graph.outputs) {
    const want = set.outputs[o.name];
    const have = got[o.name];
    if (!want) continue;
    if (!have) return `output '${o.name}' missing`;
    const d = compareValues(have, want, DEFAULT_TOLERANCE);
    if (d) return `output '${o.name}': ${d}`;
  }
  return undefined;
}

export type RunResult = { ok: true } | { ok: false; wrong: boolean; reason: string };

export async function runOnOrt(model: Model, sets: TestSet[]): Promise<RunResult> {
  for (const set of sets) {
    let got: Record<string, RValue>;
    try {
      for (const v of Object.values(set.inputs))
        if (!("dtype" in v)) return { ok: false, wrong: false, reason: "a non-tensor input" };
      got = await runOrt(model, set.inputs as Record<string, RTensor>);
    } catch (e) {
      return { ok: false, wrong: false, reason: (e as Error).message.split("\n")[0]! };
    }
    const d = compareSet(model, got, set);
    if (d) return { ok: false, wrong: true, reason: d };
  }
  return { ok: true };
}

export function runOnInterpreter(model: Model, sets: TestSet[]): RunResult {
  for (const set of sets) {
    let got: Record<string, RValue>;
    try {
      got = runValues(model, set.inputs);
    } catch (e) {
      return { ok: false, wrong: false, reason: (e as Error).message.split("\n")[0]! };
    }
    const d = compareSet(model, got, set);
    if (d) return { ok: false, wrong: true, reason: d };
  }
  return { ok: true };
}

/**
 * Converts one corpus model to `target` and runs the result: on onnxruntime-node when the
 * target opset allows, and in the interpreter when `interpreterRunsOriginal`.
 */
export async function convertAndRun(
  m: CorpusModel,
  target: number,
  interpreterRunsOriginal: boolean,
): Promise<ConversionOutcome> {
  let converted: Model | undefined;
  try {
    const r = convertModel(m.model, target);
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
  const checkProblems = checkModel(converted).problems.map(formatProblem);
  const failures: { who: string; r: RunResult }[] = [];
  if (target <= ORT_MAX_OPSET && converted.irVersion <= ORT_MAX_IR)
    failures.push({ who: "onnxruntime", r: await runOnOrt(converted, m.sets) });
  if (interpreterRunsOriginal)
    failures.push({ who: "interpreter", r: runOnInterpreter(converted, m.sets) });
  const bad = failures.filter((f) => !f.r.ok);
  const wrong = bad.find((f) => !f.r.ok && f.r.wrong);
  const first = wrong ?? bad[0];
  if (!first) return { target, outcome: "pass", checkProblems };
  const reason = first.r.ok ? "" : `${first.who}: ${first.r.reason}`;
  return { target, outcome: wrong ? "wrong" : "error", reason, checkProblems };
}
