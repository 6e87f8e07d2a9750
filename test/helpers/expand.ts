// Expanding a model in tests: the pass on text or IR, what is left of it, and running both sides.

import { expect } from "vitest";
import { checkModel } from "../../src/check/index.js";
import type { ExpandOptions } from "../../src/expand/context.js";
import { expandPipeline } from "../../src/expand/pipeline.js";
import { run, type RTensor } from "../../src/interp/index.js";
import { walkNodes } from "../../src/ir/visit.js";
import type { Model } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/manager.js";
import {
  failureError,
  passContext,
  type PassResult,
  type PassSuccess,
} from "../../src/passes/pass.js";
import { parseModelText } from "../../src/text/parse.js";
import { compareTensors } from "../../src/interp/backend-test.js";

/** The expand pipeline's result on a model (text or IR). */
export function expandResult(model: Model | string, options: ExpandOptions = {}): PassResult {
  const m = typeof model === "string" ? parseModelText(model) : model;
  return runPass(expandPipeline(options), m, passContext());
}

/** The expand pipeline's success; a failure thrown as its OnnxError. */
export function expand(model: Model | string, options: ExpandOptions = {}): PassSuccess {
  const r = expandResult(model, options);
  if (!r.ok) throw failureError(r);
  return r;
}

/** Every op of the model (main graph, subgraphs, local functions) as `domain.Op` or `Op`. */
export function opsOf(m: Model): string[] {
  return [...walkNodes(m)].map(({ node }) =>
    node.domain && node.domain !== "ai.onnx" ? `${node.domain}.${node.opType}` : node.opType,
  );
}

/** Every value and node name defined anywhere in the main graph and its subgraphs. */
export function definedNames(m: Model): { values: string[]; nodes: string[] } {
  const values: string[] = [];
  const nodes: string[] = [];
  const visit = (g: Model["graph"]) => {
    for (const v of g.inputs) values.push(v.name);
    for (const t of g.initializers) values.push(t.name);
    for (const n of g.nodes) {
      for (const o of n.outputs) if (o !== "") values.push(o);
      if (n.name) nodes.push(n.name);
      for (const a of n.attributes) {
        if (a.type === "GRAPH" && a.value) visit(a.value);
        if (a.type === "GRAPHS" && a.value) a.value.forEach(visit);
      }
    }
  };
  visit(m.graph);
  return { values, nodes };
}

/**
 * The expanded model checks clean, defines every name once, and gives the outputs of the
 * original (interpreter, within `rtol`).
 */
export function expectSameRun(
  before: Model,
  after: Model,
  inputs: Record<string, RTensor>,
  rtol = 1e-6,
): void {
  expect(checkModel(after).problems.map((p) => p.message)).toEqual([]);
  const { values, nodes } = definedNames(after);
  expect(values.length).toBe(new Set(values).size);
  expect(nodes.length).toBe(new Set(nodes).size);
  const want = run(before, inputs);
  const got = run(after, inputs);
  for (const o of before.graph.outputs)
    expect(compareTensors(got[o.name]!, want[o.name]!, { rtol, atol: 1e-7 })).toBeUndefined();
}
