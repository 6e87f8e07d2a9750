// onnxruntime's own usability checker (check_onnx_model_mobile_usability, in onnxruntime's Python
// wheel) on models, through ort_usability.py: per model, the partitions its CoreML ML Program and
// NNAPI execution providers would form (as the checker estimates them, onnxruntime's basic
// optimizations applied first), the nodes they cover and the ops they lack. The Python is the
// corpus scripts' ($CORPUS_PYTHON, or the corpus venv); without onnxruntime there, `python` is
// undefined and the callers say so.

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

export interface UsabilityVerdict {
  model: string;
  coreml?: EpEstimate;
  nnapi?: EpEstimate;
  error?: string;
}

/** The Python with onnxruntime's checker, or undefined. */
export function usabilityPython(): string | undefined {
  return findPython(["onnxruntime", "onnx"]);
}

export const NO_USABILITY_PYTHON =
  "onnxruntime's Python wheel not found (set CORPUS_PYTHON, or npm run corpus:export makes the venv)";

/** The checker's estimate for each model file (one Python process for all). */
export function usability(python: string, files: string[]): UsabilityVerdict[] {
  if (!files.length) return [];
  const r = spawnSync(python, [join(import.meta.dirname, "ort_usability.py"), ...files], {
    encoding: "utf8",
    maxBuffer: 64 << 20,
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
export function estimateCell(e: EpEstimate | undefined): string {
  if (!e) return "?";
  const left = [
    ...e.unsupportedOps,
    ...(e.dynamicInputNodes ? [`${e.dynamicInputNodes} dynamic`] : []),
    ...(e.rankNodes ? [`${e.rankNodes} rank`] : []),
  ];
  return `${e.partitions}, ${e.supported}/${e.nodes}${left.length ? ` (${left.join(", ")})` : ""}`;
}
