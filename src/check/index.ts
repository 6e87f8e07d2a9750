// The checker and type/shape inference: checkModel reports every problem in one run;
// inferTypes gives the type of each value the walk could work out.

import type { Graph, Model, Type } from "../ir/types.js";
import { SchemaRegistry } from "../schema/registry.js";
import { analyzeModel, type Analysis } from "./analyze.js";
import type { CheckReport, OpRegistry } from "./report.js";

export { analyzeModel, minIrVersionForOpset, type Analysis } from "./analyze.js";
export {
  formatProblem,
  type CheckReport,
  type OpRegistry,
  type Problem,
  type ProblemCode,
} from "./report.js";
export { broadcastShapes, describeType, mergeTypes, parseTypeString, typeString } from "./types.js";

export interface CheckOptions {
  /** Defaults to the registry of this package's schemas/. */
  registry?: OpRegistry;
}

function run(model: Model, opts: CheckOptions): Analysis {
  return analyzeModel(model, { registry: opts.registry ?? SchemaRegistry.default() });
}

/** Checks a model against the IR rules and the operator schemas; lists every problem found. */
export function checkModel(model: Model, opts: CheckOptions = {}): CheckReport {
  const { problems } = run(model, opts);
  return { ok: problems.length === 0, problems };
}

/**
 * Types of the values of the main graph and its subgraphs (value names are unique across
 * them in a valid model), as declared or inferred. Function bodies are not included.
 */
export function inferTypes(model: Model, opts: CheckOptions = {}): Map<string, Type> {
  const { types } = run(model, opts);
  const out = new Map<string, Type>();
  for (const [owner, m] of types) {
    if (!("initializers" in owner)) continue;
    for (const [k, v] of m) if (!out.has(k)) out.set(k, v);
  }
  return out;
}

/** Per-graph types: the main graph, each subgraph and each function body. */
export function inferGraphTypes(
  model: Model,
  opts: CheckOptions = {},
): Map<Graph | import("../ir/types.js").Function, Map<string, Type>> {
  return run(model, opts).types;
}
