// expectPass: the shape of every pass test. Both models are ONNX text; the pass runs on the first
// (src/passes/pass.ts contract) and must give the second up to the names it introduces, leave its
// input untouched, and compute what the input computes on seeded random inputs.

import { expect } from "vitest";
import { compareValues, DEFAULT_TOLERANCE, type Tolerance } from "../../src/interp/backend-test.js";
import { runValues } from "../../src/interp/executor.js";
import { fromFloat64 } from "../../src/interp/tensor.js";
import type { RValue } from "../../src/interp/types.js";
import {
  DataType,
  type Function,
  type Graph,
  type Model,
  type ValueInfo,
} from "../../src/ir/types.js";
import { mapNodeGraphs, renameGraph, renameNodes, type Renaming } from "../../src/ir/visit.js";
import { runPass } from "../../src/passes/manager.js";
import {
  passContext,
  type Pass,
  type PassContext,
  type PassSuccess,
} from "../../src/passes/pass.js";
import { parseModelText } from "../../src/text/parse.js";
import { printModel } from "../../src/text/print.js";

export interface ExpectPassOptions {
  ctx?: Partial<PassContext>;
  /** Values for some graph inputs; the others are drawn at random. */
  inputs?: Record<string, RValue>;
  /** Range of random float inputs (default [-2, 2)); integers are drawn from [-5, 5]. */
  low?: number;
  high?: number;
  /** Size of a symbolic or unknown dimension (default 3). */
  dim?: number;
  seed?: number;
  tolerance?: Tolerance;
}

/**
 * Runs the pass on `before` and expects `after`: equal once the names the models introduce
 * (node names; value names other than the main graph's inputs, outputs and initializers, and a
 * function's formals) are renumbered in order of first appearance. Also expects success, the input
 * model unchanged, `modified` set when the models differ, and the same outputs from both models
 * on seeded random inputs. Returns the pass's result for further checks (its notes).
 */
export function expectPass(
  pass: Pass,
  beforeText: string,
  afterText: string,
  opts: ExpectPassOptions = {},
): PassSuccess {
  const before = parseModelText(beforeText, "before");
  const expected = parseModelText(afterText, "after");
  const printedBefore = printModel(before);
  // Test mode off here: a mutated input is this helper's own finding, named after the pass.
  const result = runPass(pass, before, passContext({ testMode: false, ...opts.ctx }));
  expect(printModel(before), `${pass.name} must not change its input model`).toBe(printedBefore);
  if (!result.ok)
    expect.fail(
      `${pass.name} failed: ${result.notes.map((n) => `${n.where ? `${n.where}: ` : ""}${n.message}`).join("; ")}`,
    );
  const want = printModel(canonicalNames(expected));
  expect(printModel(canonicalNames(result.model)), `${pass.name}: the model it gives`).toBe(want);
  if (printModel(canonicalNames(before)) !== want)
    expect(result.modified, `${pass.name} changed the model, so 'modified' must be set`).toBe(true);
  expectSameOutputs(before, result.model, opts);
  return result;
}

/** Runs both models on the same seeded random inputs and expects the same outputs. */
export function expectSameOutputs(a: Model, b: Model, opts: ExpectPassOptions = {}): void {
  const inputs = randomInputs(a, opts);
  const want = runValues(a, inputs);
  const got = runValues(b, inputs);
  expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
  for (const [name, w] of Object.entries(want)) {
    const problem = compareValues(got[name]!, w, opts.tolerance ?? DEFAULT_TOLERANCE);
    expect(problem, `output '${name}'`).toBeUndefined();
  }
}

/** A value for each main graph input that is not an initializer, drawn with a seeded generator. */
export function randomInputs(m: Model, opts: ExpectPassOptions = {}): Record<string, RValue> {
  let seed = opts.seed ?? 20261202;
  const rand = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const low = opts.low ?? -2;
  const high = opts.high ?? 2;
  const initializers = new Set(m.graph.initializers.map((t) => t.name));
  const out: Record<string, RValue> = {};
  for (const vi of m.graph.inputs) {
    if (initializers.has(vi.name)) continue;
    const given = opts.inputs?.[vi.name];
    if (given) {
      out[vi.name] = given;
      continue;
    }
    const t = vi.type;
    if (t?.kind !== "tensor")
      throw new Error(`input '${vi.name}' is not a tensor: give it in opts.inputs`);
    const shape = (t.shape ?? []).map((d) => (typeof d === "number" ? d : (opts.dim ?? 3)));
    const n = shape.reduce((p, d) => p * d, 1);
    const float = [DataType.FLOAT, DataType.DOUBLE, DataType.FLOAT16, DataType.BFLOAT16].includes(
      t.elemType,
    );
    const values = Float64Array.from({ length: n }, () =>
      t.elemType === DataType.BOOL
        ? rand() < 0.5
          ? 0
          : 1
        : float
          ? low + (high - low) * rand()
          : Math.floor(rand() * 11) - 5,
    );
    out[vi.name] = fromFloat64(t.elemType, shape, values);
  }
  return out;
}

/**
 * The model with introduced names renumbered in order of first appearance: value names `_1`,
 * `_2`, ... and node names `_n1`, ... (a number a kept name already uses is skipped). Kept: the
 * main graph's inputs, outputs and initializers; in a function, its formal inputs and outputs.
 * value_info is listed by name, so its order does not count.
 */
export function canonicalNames(m: Model): Model {
  const byName = (a: ValueInfo, b: ValueInfo) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const withInfo = (g: Graph, info: (g: Graph) => ValueInfo[]): Graph => ({
    ...g,
    valueInfo: info(g),
    nodes: g.nodes.map((n) => mapNodeGraphs(n, (sub) => withInfo(sub, info))),
  });
  const noInfo = (g: Graph) => withInfo(g, () => []);
  const sortedInfo = (g: Graph) => withInfo(g, (x) => [...x.valueInfo].sort(byName));
  const g = m.graph;
  // Values are numbered first on a copy without value_info, so that its order does not decide
  // the numbers; then the model is renamed with them (node names counted afresh).
  const main = numbering(
    new Set([
      ...g.inputs.map((x) => x.name),
      ...g.outputs.map((x) => x.name),
      ...g.initializers.map((t) => t.name),
      ...g.sparseInitializers.map((s) => s.values.name),
    ]),
  );
  renameGraph(noInfo(g), main);
  main.restart();
  const graph = sortedInfo(renameGraph(g, main));
  const fn = (f: Function): Function => {
    const r = numbering(new Set([...f.inputs, ...f.outputs]));
    renameNodes(
      f.nodes.map((n) => mapNodeGraphs(n, noInfo)),
      { ...r, local: r.value },
    );
    r.restart();
    return {
      ...f,
      nodes: renameNodes(f.nodes, { ...r, local: r.value }).map((n) =>
        mapNodeGraphs(n, sortedInfo),
      ),
      valueInfo: f.valueInfo.map((x) => ({ ...x, name: r.value(x.name) })).sort(byName),
    };
  };
  return { ...m, graph, functions: m.functions.map(fn) };
}

/** Names `_1`, `_2`, ... for values and `_n1`, ... for nodes, skipping kept names. */
function numbering(keep: Set<string>): Renaming & { restart(): void } {
  const names = new Map<string, string>();
  let v = 0;
  let k = 0;
  const fresh = (prefix: string, next: () => number) => {
    let s: string;
    do s = `${prefix}${next()}`;
    while (keep.has(s));
    return s;
  };
  return {
    value: (x) => {
      if (x === "" || keep.has(x)) return x;
      let y = names.get(x);
      if (y === undefined) names.set(x, (y = fresh("_", () => ++v)));
      return y;
    },
    node: (n) => (n.name ? fresh("_n", () => ++k) : undefined),
    restart: () => {
      k = 0;
    },
  };
}
