// fold-constants: a node whose inputs are all constants (initializers that are not graph
// inputs, Constant nodes, values folded before it) is run once by the interpreter and becomes an
// initializer; Shape and Size of a value whose shape inference knows fold too, so that
// the Shape → Gather → Concat → Reshape chains exporters write become constant shapes. Never
// folded: ops with randomness (Random*, Bernoulli, Multinomial, Dropout in training), the
// quantization ops (a quantized model's QDQ pairs stay), ops with subgraphs, ops of other
// domains, and a result over the byte cap (`limit`, default 1 MiB: a folded tensor is stored in
// the model; what it replaces usually is not). Folded values a graph output names stay as
// Constant nodes. Nodes and initializers left unused are removed. In every graph (passes/
// scopes.ts): a subgraph folds what it computes from its own constants, never a value it reads
// from outside nor its own inputs; Shape and Size fold from inferred shapes only in the main
// graph and in If branches (a Loop or Scan body runs again on values whose shapes may change);
// a local function's body folds what it computes from its Constant nodes (a folded value becomes
// a Constant node there), never from its inputs, and never a node reading one of its attributes.

import { DEFAULT_FOLD_LIMIT } from "../check/consts.js";
import { analysisOf } from "../check/infer.js";
import { fromIRTensor, toIRTensor } from "../interp/ir-tensors.js";
import { run } from "../interp/executor.js";
import type { RTensor } from "../interp/types.js";
import { formatBytes, storageByteSize } from "../interp/budget.js";
import { Tensor } from "../ir/tensor.js";
import { outerNamesUsedBy } from "../ir/graph.js";
import { modelNodeCounts } from "../ir/functions.js";
import { hasGraphAttribute } from "../ir/visit.js";
import {
  DataType,
  staticShape,
  type Function,
  type Graph,
  type Model,
  type Node,
  type Type,
} from "../ir/types.js";
import { constantTensor } from "./lift-constants.js";
import type { Note, Pass } from "./pass.js";
import { eachScope, shapesKnown, type PassScope } from "./scopes.js";

export interface FoldOptions {
  /** Largest folded tensor, in bytes (default 1 MiB). */
  limit?: number;
  /**
   * Most bytes the folded constants may take in all (and each node's run, less what is already
   * folded): a node that would go over is left unfolded, with a warning (default: no limit).
   */
  maxMemory?: number;
}

export { DEFAULT_FOLD_LIMIT };

/**
 * Kept as they are: a quantized model's QuantizeLinear / DequantizeLinear pairs are how backends
 * (onnxruntime's QDQ fusions, TensorRT, QNN, NNAPI) know to run in int8; a dequantized weight
 * folded into float would be four times the bytes and run in float (onnxscript's optimizer keeps
 * them too).
 */
const QUANT = new Set(["QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear"]);

const RANDOM = new Set([
  "RandomNormal",
  "RandomNormalLike",
  "RandomUniform",
  "RandomUniformLike",
  "Bernoulli",
  "Multinomial",
  "Dropout",
]);

/** Runs one node on constant inputs: its outputs by name. */
function evaluate(
  model: Model,
  node: Node,
  values: Map<string, RTensor>,
  maxMemory?: number,
  budgetName?: string,
): Record<string, RTensor> {
  const inputs = [...new Set(node.inputs.filter((x) => x !== ""))];
  const mini: Model = {
    ...model,
    functions: model.functions,
    graph: {
      name: "fold",
      nodes: [node],
      inputs: inputs.map((name) => ({
        name,
        type: { kind: "tensor", elemType: values.get(name)!.dtype, shape: values.get(name)!.shape },
      })),
      outputs: node.outputs.filter((o) => o !== "").map((name) => ({ name })),
      initializers: [],
      sparseInitializers: [],
      valueInfo: [],
    },
  };
  return run(
    mini,
    Object.fromEntries(inputs.map((n) => [n, values.get(n)!])),
    maxMemory === undefined ? {} : { maxMemory, ...(budgetName ? { budgetName } : {}) },
  );
}

/** Rounds of folding at most: each round's types are inferred on the last round's model. */
const MAX_ROUNDS = 16;

export function foldConstants(options: FoldOptions = {}): Pass {
  const limit = options.limit ?? DEFAULT_FOLD_LIMIT;
  return {
    name: "fold-constants",
    run(model) {
      // A fold can make a shape known that inference could not see before (a Pad whose pads
      // were computed), and so a Shape of it foldable: fold again until nothing folds.
      const start = modelNodeCounts(model).all;
      // What the constants folded in every round take, held to maxMemory.
      const memory = { max: options.maxMemory ?? Infinity, held: 0 };
      const notes: Note[] = [];
      let total = 0;
      let current = model;
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const r = foldOnce(current, limit, memory);
        // A node that could not be folded is tried again each round: said once.
        for (const n of r.notes)
          if (!notes.some((m) => m.where === n.where && m.message === n.message)) notes.push(n);
        if (!r.folded) break;
        total += r.folded;
        current = r.model;
      }
      if (!total) return { ok: true, model, modified: false, notes };
      notes.push({
        level: "info",
        message: `folded ${total} node${total === 1 ? "" : "s"} into constants (${start} -> ${modelNodeCounts(current).all} nodes)`,
      });
      return { ok: true, model: current, modified: true, notes };
    },
  };
}

/** One round over every graph of the model, on one analysis of it (see foldGraph). */
function foldOnce(
  model: Model,
  limit: number,
  memory: { max: number; held: number },
): { model: Model; folded: number; notes: Note[] } {
  let types: Map<Graph | Function, Map<string, Type>> | undefined;
  try {
    types = analysisOf(model).types;
  } catch {
    // inference could not follow the model: fold what needs no shapes
  }
  let folded = 0;
  const notes: Note[] = [];
  const out = eachScope(model, (g, scope) => {
    const r = foldGraph(
      model,
      g,
      scope,
      shapesKnown(scope) ? types?.get(scope.owner) : undefined,
      limit,
      memory,
    );
    folded += r.folded;
    notes.push(...r.notes);
    return r.graph;
  });
  return { model: folded ? out : model, folded, notes };
}

/** One round in one graph: every node whose inputs are constant (or whose shape is known, for Shape/Size). */
function foldGraph(
  model: Model,
  g: Graph,
  scope: PassScope,
  types: Map<string, Type> | undefined,
  limit: number,
  memory: { max: number; held: number },
): { graph: Graph; folded: number; notes: Note[] } {
  const inputNames = new Set(g.inputs.map((v) => v.name));
  const outputNames = new Set(g.outputs.map((v) => v.name));
  const values = new Map<string, RTensor>();
  const lazy = new Map<string, Tensor>();
  for (const t of g.initializers) if (!inputNames.has(t.name)) lazy.set(t.name, t);
  const valueOf = (name: string): RTensor | undefined => {
    let v = values.get(name);
    if (!v) {
      const t = lazy.get(name);
      if (!t || t.byteLength > limit) return undefined;
      v = fromIRTensor(t);
      values.set(name, v);
    }
    return v;
  };
  const added: Tensor[] = [];
  const nodes: Node[] = [];
  const notes: Note[] = [];
  let folded = 0;
  for (const n of g.nodes) {
    const domain = n.domain === "ai.onnx" ? "" : (n.domain ?? "");
    const plain =
      domain === "" &&
      !RANDOM.has(n.opType) &&
      !QUANT.has(n.opType) &&
      !hasGraphAttribute(n) &&
      !n.attributes.some((a) => a.refAttrName !== undefined);
    let outs: Record<string, RTensor> | undefined;
    if (plain && n.opType === "Constant") {
      // Any form of value (a tensor, value_float(s), value_int(s), value_string(s)); kept
      // as it is: lift-constants makes Constant nodes initializers.
      const out = n.outputs[0];
      const t = out && !outputNames.has(out) ? constantTensor(n, out) : undefined;
      if (out && t) {
        if (t.byteLength <= limit) values.set(out, fromIRTensor(t));
        lazy.set(out, t);
      }
      nodes.push(n);
      continue;
    }
    if (plain && (n.opType === "Shape" || n.opType === "Size") && n.inputs[0]) {
      const s = staticShape(types?.get(n.inputs[0])) ?? valueOf(n.inputs[0])?.shape;
      if (s) {
        const start = Number(n.attributes.find((a) => a.name === "start")?.value ?? 0);
        const endAttr = n.attributes.find((a) => a.name === "end");
        const norm = (k: number) => Math.min(s.length, Math.max(0, k < 0 ? k + s.length : k));
        const dims =
          n.opType === "Shape"
            ? s.slice(norm(start), endAttr ? norm(Number(endAttr.value)) : s.length)
            : [s.reduce((p, d) => p * d, 1)];
        const t = Tensor.from(
          DataType.INT64,
          n.opType === "Shape" ? [dims.length] : [],
          dims.map(BigInt),
        );
        outs = { [n.outputs[0]!]: fromIRTensor(t) };
      }
    } else if (
      plain &&
      n.inputs.length > 0 &&
      n.inputs.every((x) => x === "" || valueOf(x) !== undefined)
    ) {
      try {
        // The node's run may take what the constants folded so far leave of the budget.
        const left = memory.max - memory.held;
        outs = evaluate(
          model,
          n,
          values,
          Number.isFinite(memory.max) ? Math.max(0, left) : undefined,
          memory.held
            ? `what --max-memory leaves after ${formatBytes(memory.held)} of folded constants`
            : "--max-memory",
        );
      } catch (e) {
        notes.push({
          level: "warning",
          where: `${scope.where} > node '${n.name ?? n.opType}' (${n.opType})`,
          message: `not folded: ${(e as Error).message}`,
        });
      }
    }
    const fits =
      outs &&
      n.outputs.every((o) => o === "" || (outs![o] && storageByteSize(outs![o]!.data) <= limit)) &&
      !n.outputs.some((o) => outputNames.has(o));
    if (!outs || !fits) {
      nodes.push(n);
      continue;
    }
    folded++;
    for (const o of n.outputs) {
      if (o === "") continue;
      memory.held += storageByteSize(outs[o]!.data);
      values.set(o, outs[o]!);
      const t = toIRTensor(outs[o]!, o);
      lazy.set(o, t);
      added.push(t);
    }
  }
  if (!folded) return { graph: g, folded, notes };
  // What the remaining nodes (and subgraphs, through their outer names) still read.
  const used = new Set<string>(g.outputs.map((v) => v.name));
  const keep: Node[] = [];
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i]!;
    if (n.outputs.length && !n.outputs.some((o) => o !== "" && used.has(o))) continue;
    keep.push(n);
    for (const x of n.inputs) if (x) used.add(x);
    if (hasGraphAttribute(n)) for (const x of outerNamesUsedBy(n)) used.add(x);
  }
  keep.reverse();
  const initializers = [...g.initializers, ...added].filter(
    (t) => used.has(t.name) || inputNames.has(t.name),
  );
  return { graph: { ...g, nodes: keep, initializers }, folded, notes };
}
