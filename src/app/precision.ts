// `precision --to float16|bfloat16` and `lower --precision`: the to-half pass with its
// verification fed the user's inputs, or seeded random ones (the rules of `run --random`).

import { OnnxError } from "../errors.js";
import type { RValue } from "../interp/types.js";
import { DataType, type Model } from "../ir/types.js";
import {
  lowerPrecision,
  toHalf,
  type PrecisionReport,
  type ToHalfOptions,
} from "../passes/to-half/index.js";
import type { Note, Pass, PassResult } from "../passes/pass.js";
import { runPass as transformWith } from "../passes/manager.js";
import { passContext } from "../passes/pass.js";
import { expandPipeline as expandOnly } from "../expand/pipeline.js";
import type { Profile } from "../targets/profile.js";
import { randomInputs } from "./random-inputs.js";

export type { PrecisionReport } from "../passes/to-half/index.js";

/** What `precision` (and `lower --precision`) takes. */
export interface PrecisionRequest {
  to: "float16" | "bfloat16";
  keepIo?: boolean | string[];
  keepOps?: string[];
  keepNodes?: string[];
  clamp?: boolean;
  /** Verify by running both (default true). */
  verify?: boolean;
  maxError?: number;
  /** Seed of the random inputs (default 0). */
  seed?: number;
  /** Symbolic dims of the random inputs. */
  dims?: ReadonlyMap<string, number>;
  /** Inputs the user gave (the others are drawn). */
  inputs?: Record<string, RValue>;
}

/** The element type a precision names. */
export function precisionType(name: string): number {
  if (name === "float16") return DataType.FLOAT16;
  if (name === "bfloat16") return DataType.BFLOAT16;
  throw new OnnxError("E_USAGE", `the precision must be float16 or bfloat16, not '${name}'`);
}

function options(req: PrecisionRequest, profile?: Profile): ToHalfOptions {
  const given = req.inputs ?? {};
  return {
    to: precisionType(req.to),
    ...(req.keepIo !== undefined ? { keepIo: req.keepIo } : {}),
    ...(req.keepOps ? { keepOps: req.keepOps } : {}),
    ...(req.keepNodes ? { keepNodes: req.keepNodes } : {}),
    ...(req.clamp ? { clamp: true } : {}),
    ...(profile ? { profile } : {}),
    ...(req.verify === false
      ? {}
      : {
          verify: {
            inputs: (m: Model) => ({
              ...randomInputs(m, req.seed ?? 0, req.dims, Object.keys(given)),
              ...given,
            }),
            ...(req.maxError !== undefined ? { maxError: req.maxError } : {}),
          },
        }),
  };
}

/** The to-half pass as a request asks (a profile: the target's element types count). */
export function precisionPass(req: PrecisionRequest, profile?: Profile): Pass {
  return toHalf(options(req, profile));
}

/** The model made half, with the report. */
export function precision(
  model: Model,
  req: PrecisionRequest,
):
  | (Extract<PassResult, { ok: true }> & { report: PrecisionReport })
  | Extract<PassResult, { ok: false }> {
  // Model-local functions inlined first (an exporter's modules as functions): the pass makes the
  // main graph half, and a call stays float32.
  const notes: Note[] = [];
  if (model.functions.length) {
    const only = model.functions.map((f) => ({ domain: f.domain, op: f.name }));
    const e = transformWith(expandOnly({ only, origin: false }), model, passContext());
    if (!e.ok) return e;
    model = e.model;
    notes.push({ level: "info", message: `inlined ${only.length} model-local function(s) first` });
  }
  const r = lowerPrecision(model, options(req));
  if (!r.ok) return r;
  return {
    ok: true,
    model: r.model,
    modified: true,
    notes: [...notes, ...r.notes],
    report: r.report,
  };
}
