// The transforms the command line and the page offer, as one result shape: a model and notes, or
// a refusal with the notes that say why. Today they call the converter's and the expander's
// passes; this is the one place to switch them to pipelines.

import { convertPass } from "../convert/index.js";
import { OnnxError } from "../errors.js";
import { expandPass, type ExpandOptions } from "../expand/expand.js";
import type { Model } from "../ir/types.js";
import { passContext, runPass, type Note, type Pass } from "../passes/pass.js";

export type TransformResult =
  { ok: true; model: Model; modified: boolean; notes: Note[] } | { ok: false; notes: Note[] };

function transform(pass: Pass, model: Model): TransformResult {
  try {
    const r = runPass(pass, model, passContext());
    return { ok: true, model: r.model, modified: r.changed, notes: r.report };
  } catch (e) {
    const notes = (e as { notes?: Note[] }).notes;
    if (e instanceof OnnxError && notes) return { ok: false, notes };
    throw e;
  }
}

/** The model converted to ai.onnx opset `target`. */
export function convert(model: Model, target: number): TransformResult {
  return transform(convertPass(target), model);
}

/** The model with function ops expanded as `options` select. */
export function expand(model: Model, options: ExpandOptions = {}): TransformResult {
  return transform(expandPass(options), model);
}
