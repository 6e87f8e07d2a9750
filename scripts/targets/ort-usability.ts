// onnxruntime's own usability checker (check_onnx_model_mobile_usability, in onnxruntime's Python
// wheel) on models, through ort_usability.py: per model, the partitions its CoreML ML Program and
// NNAPI execution providers would form, the nodes they cover and the ops they lack — as the
// checker's command line estimates them (onnxruntime's basic optimizations applied first), and on
// the model as it is (`raw`, what `check --target`'s own partitions are compared with). The one
// wrapper of the checker: bench:targets, scripts/targets/compare-checker.ts and the tests use it.
// The Python is the corpus scripts' ($CORPUS_PYTHON, or the corpus venv); without onnxruntime
// there, `python` is undefined and the callers say so.

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { findPython } from "../corpus/python.js";

export interface EpEstimate {
  nodes: number;
  supported: number;
  partitions: number;
  sizes: number[];
  /** ai.onnx ops by name, other domains as domain:op. */
  unsupportedOps: string[];
  /** Nodes refused for an input without a fixed shape, and for a rank the EP does not take. */
  dynamicInputNodes: number;
  rankNodes: number;
}

/** An EP's estimate, or why the checker could not make it. */
export type EpResult = EpEstimate | { error: string };

export interface UsabilityVerdict {
  model: string;
  /** The onnxruntime release whose checker judged. */
  onnxruntime?: string;
  /** As the checker's command line judges (onnxruntime's basic optimizations first). */
  coreml?: EpResult;
  nnapi?: EpResult;
  /** On the model as it is. */
  raw?: { coreml?: EpResult; nnapi?: EpResult };
  /** The model could not be read. */
  error?: string;
}

/** The estimate, or undefined where the checker failed (`error` says why). */
export const estimateOf = (e: EpResult | undefined): EpEstimate | undefined =>
  e && !("error" in e) ? e : undefined;

/** The Python with onnxruntime's checker, or undefined. */
export function usabilityPython(): string | undefined {
  return findPython(["onnxruntime", "onnx"]);
}

export const NO_USABILITY_PYTHON =
  "onnxruntime's Python wheel not found (set CORPUS_PYTHON, or npm run corpus:export makes the venv)";

/** The checker's estimate for each model file (one Python process for all). */
export function usability(python: string, files: string[], timeout?: number): UsabilityVerdict[] {
  if (!files.length) return [];
  const r = spawnSync(python, [join(import.meta.dirname, "ort_usability.py"), ...files], {
    encoding: "utf8",
    maxBuffer: 64 << 20,
    ...(timeout ? { timeout } : {}),
  });
  if (r.status !== 0)
    throw new Error(`ort_usability.py: ${(r.stderr || "").trim().split("\n").pop()}`);
  return r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as UsabilityVerdict);
}

/** "1, 49/49" or "3, 122/126 (Gather)": partitions, nodes covered, ops left. */
export function estimateCell(r: EpResult | undefined): string {
  if (!r) return "?";
  if ("error" in r) return `error: ${r.error.slice(0, 40)}`;
  const e = r;
  const left = [
    ...e.unsupportedOps,
    ...(e.dynamicInputNodes ? [`${e.dynamicInputNodes} dynamic`] : []),
    ...(e.rankNodes ? [`${e.rankNodes} rank`] : []),
  ];
  return `${e.partitions}, ${e.supported}/${e.nodes}${left.length ? ` (${left.join(", ")})` : ""}`;
}
