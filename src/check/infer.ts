// Type and shape inference over a whole model, and a way to keep what it found: a copy of the
// model whose value_info lists the inferred type of every intermediate value.

import { mapNodeGraphs } from "../ir/visit.js";
import type { Function, Graph, Model, Type, ValueInfo } from "../ir/types.js";
import { SchemaRegistry } from "../schema/registry.js";
import { analyzeModel, type Analysis } from "./analyze.js";
import { withFreshDims } from "./fresh-dims.js";
import type { OpRegistry } from "./report.js";

export interface InferOptions {
  /** Defaults to the registry of this package's schemas/. */
  registry?: OpRegistry;
  /**
   * Give each dimension inference cannot name a fresh symbol (`unk__N`, as ONNX's inference
   * does), so that values computed from it share it. Off by default for analyses (unknown
   * dimensions are null); on by default where inferred types are written into a model
   * (withInferredValueInfo).
   */
  freshDims?: boolean;
}

export function analyze(model: Model, opts: InferOptions = {}): Analysis {
  const run = () => analyzeModel(model, { registry: opts.registry ?? SchemaRegistry.default() });
  return opts.freshDims ? withFreshDims(model, run) : run();
}

/** The last analysis of a model object, with what it was made of (see analysisOf). */
interface Kept {
  registry: OpRegistry;
  freshDims: boolean;
  graph: Graph;
  nodes: Graph["nodes"];
  count: number;
  functions: Function[];
  analysis: Analysis;
}
const kept = new WeakMap<Model, Kept>();

/**
 * The analysis of a model, worked out once per model object and registry: passes never mutate
 * the model they are given, so the validation before a rewrite and the type inference of the
 * passes that follow share one. A model whose graph, node list or functions were replaced or
 * grew since is analysed again.
 */
export function analysisOf(model: Model, opts: InferOptions = {}): Analysis {
  const registry = opts.registry ?? SchemaRegistry.default();
  const k = kept.get(model);
  if (
    k &&
    k.registry === registry &&
    k.freshDims === !!opts.freshDims &&
    k.graph === model.graph &&
    k.nodes === model.graph.nodes &&
    k.count === model.graph.nodes.length &&
    k.functions === model.functions
  )
    return k.analysis;
  const analysis = analyze(model, { registry, freshDims: opts.freshDims });
  kept.set(model, {
    registry,
    freshDims: !!opts.freshDims,
    graph: model.graph,
    nodes: model.graph.nodes,
    count: model.graph.nodes.length,
    functions: model.functions,
    analysis,
  });
  return analysis;
}

/**
 * Types of the values of the main graph and its subgraphs (value names are unique across
 * them in a valid model), as declared or inferred. Function bodies are not included.
 */
export function inferTypes(model: Model, opts: InferOptions = {}): Map<string, Type> {
  const out = new Map<string, Type>();
  for (const [owner, m] of analyze(model, opts).types) {
    if (!("initializers" in owner)) continue;
    for (const [k, v] of m) if (!out.has(k)) out.set(k, v);
  }
  return out;
}

/** Per scope: the main graph, each subgraph and each function body. */
export function inferScopeTypes(
  model: Model,
  opts: InferOptions = {},
): Map<Graph | Function, Map<string, Type>> {
  return analysisOf(model, opts).types;
}

/**
 * A copy of the model (tensors shared, nothing else changed) whose graphs, subgraphs and
 * functions list in value_info the type of every node output that is not a graph output,
 * inferred or as already declared. The input model is left as it was. What is written into a
 * model names each dimension inference cannot name with a fresh symbol (`unk__N`), as ONNX's
 * inference writes them, unless `freshDims` is false: then such a dimension is left unknown.
 */
export function withInferredValueInfo(model: Model, opts: InferOptions = {}): Model {
  const types = inferScopeTypes(model, { ...opts, freshDims: opts.freshDims ?? true });
  const infos = (
    owner: Graph | Function,
    names: string[],
    skip: Set<string>,
    old: ValueInfo[],
  ): ValueInfo[] => {
    const known = types.get(owner);
    const byName = new Map(old.map((v) => [v.name, v] as const));
    const out: ValueInfo[] = [];
    for (const name of names) {
      if (skip.has(name) || name === "") continue;
      const t = known?.get(name);
      const prev = byName.get(name);
      byName.delete(name);
      if (t) out.push({ ...prev, name, type: t });
      else if (prev) out.push(prev);
    }
    return [...out, ...byName.values()];
  };
  const nodeOutputs = (owner: Graph | Function) =>
    owner.nodes.flatMap((n) => n.outputs).filter((n, i, a) => a.indexOf(n) === i);
  const copyGraph = (g: Graph): Graph => ({
    ...g,
    nodes: g.nodes.map((n) => mapNodeGraphs(n, copyGraph)),
    valueInfo: infos(g, nodeOutputs(g), new Set(g.outputs.map((o) => o.name)), g.valueInfo),
  });
  const copyFunction = (f: Function): Function => ({
    ...f,
    nodes: f.nodes.map((n) => mapNodeGraphs(n, copyGraph)),
    valueInfo: infos(f, nodeOutputs(f), new Set(f.outputs), f.valueInfo),
  });
  return { ...model, graph: copyGraph(model.graph), functions: model.functions.map(copyFunction) };
}
