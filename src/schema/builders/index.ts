// Builders of function bodies, by the name schema files use in { "kind": "builder", "builder": ... }.

import { activationBuilders } from "./activations.js";
import { attentionBuilder } from "./attention.js";
import type { BodyBuilder } from "./context.js";
import { contribBuilders } from "./contrib.js";
import { contribAttentionBuilders } from "./contrib-attention.js";
import { generatorBuilders } from "./generators.js";
import { logCumSumExpBuilder } from "./logcumsumexp.js";
import { linearAttentionBuilder } from "./linear-attention.js";
import { lossBuilders } from "./losses.js";
import { normalizationBuilders } from "./normalization.js";
import { reduceBuilders } from "./reduce.js";
import { sequenceMapBuilder } from "./sequence-map.js";
import { spatialBuilders } from "./spatial.js";

export const BODY_BUILDERS: Readonly<Record<string, BodyBuilder>> = {
  ...reduceBuilders,
  ...activationBuilders,
  ...normalizationBuilders,
  ...lossBuilders,
  ...generatorBuilders,
  ...spatialBuilders,
  ...contribBuilders,
  ...contribAttentionBuilders,
  log_cum_sum_exp: logCumSumExpBuilder,
  attention: attentionBuilder,
  linear_attention: linearAttentionBuilder,
  sequence_map: sequenceMapBuilder,
};

export { BuildArgs, type BodyBuilder, type BodyContext, type FunctionBody } from "./context.js";
export { TextWriter } from "./writer.js";
