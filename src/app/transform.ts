// The transforms the command line and the page offer: each builds the pipeline the CLI runs and
// gives the pass manager's result (a model and notes, or a refusal with the notes that say why).

import { convertPipeline, type PassConvertOptions } from "../convert/index.js";
import type { ExpandOptions } from "../expand/context.js";
import { expandPipeline } from "../expand/pipeline.js";
import type { Model } from "../ir/types.js";
import { runPass } from "../passes/manager.js";
import { passContext, type PassResult } from "../passes/pass.js";

export type TransformResult = PassResult;

/**
 * The model converted to ai.onnx opset `target`; function ops the target lacks are lowered to
 * their bodies on the way unless `options.lower` is false (src/convert/lowering.ts).
 */
export function convert(
  model: Model,
  target: number,
  options: PassConvertOptions = {},
): TransformResult {
  return runPass(convertPipeline(target, options), model, passContext());
}

/** The model with function ops expanded as `options` select. */
export function expand(model: Model, options: ExpandOptions = {}): TransformResult {
  return runPass(expandPipeline(options), model, passContext());
}
