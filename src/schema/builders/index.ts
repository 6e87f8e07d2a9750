// Builders of function bodies, by the name schema files use in { "kind": "builder", "builder": ... }.

import type { BodyBuilder } from "./context.js";
import { logCumSumExpBuilder } from "./logcumsumexp.js";
import { reduceBuilders } from "./reduce.js";

export const BODY_BUILDERS: Readonly<Record<string, BodyBuilder>> = {
  ...reduceBuilders,
  log_cum_sum_exp: logCumSumExpBuilder,
};

export { BuildArgs, type BodyBuilder, type BodyContext, type FunctionBody } from "./context.js";
export { TextWriter } from "./writer.js";
