// A normalization's ε kept float32 where a runtime would misread it in half.
//
// onnxruntime fuses the decomposed LayerNormalization and RMS normalization (ReduceMean → Add ε →
// Sqrt → Div …) into one kernel at its default optimization level, and takes ε from the Add's
// constant only when that constant is float32; in a float16 model it uses 1e-5 instead. A model
// whose ε is 1e-6 (Llama-style RMSNorm) then computes other numbers on onnxruntime than in the
// model's own graph: measured on the deployed Llama, 1.1e-2 from the float32 model against 3.8e-4
// with the fusion off. Keeping that one Add float32 (two Casts) leaves the ε exact and the pattern
// unfused. Where ε is 1e-5 the fusion's default is the model's value and nothing is kept; when the
// pass verifies, the Adds are kept only if the half model computed with ε read as 1e-5 (what
// onnxruntime runs) is further from the float32 run than the aim or than twice the half model's
// own error (the deployed Llama: 6.6e-4 own, far more misread; BERT's ε of 1e-12 beside means
// near 1 is not). onnxruntime fuses no bfloat16
// pattern.

import { DataType, type Model, type Node, type Type } from "../../ir/types.js";
import { fromIRTensor } from "../../interp/ir-tensors.js";
import { toFloat64 } from "../../interp/tensor.js";
import { Tensor } from "../../ir/tensor.js";
import { F32 } from "./plan.js";
import { constantValue } from "./rewrite.js";

/** The ε onnxruntime's LayerNorm fusions take when they cannot read the model's. */
export const FUSION_DEFAULT_EPSILON = Math.fround(1e-5);

const isOp = (n: Node | undefined, op: string) =>
  !!n && n.opType === op && (n.domain === "" || n.domain === "ai.onnx");

/** The scalar float32 value a name holds when it is a stored one-element constant. */
function scalarOf(
  name: string,
  stored: Map<string, Tensor>,
  producer: Map<string, Node>,
): number | undefined {
  const t = stored.get(name) ?? (producer.get(name) && constantValue(producer.get(name)!));
  if (!t || t.dataType !== F32 || t.elementCount !== 1) return undefined;
  return toFloat64(fromIRTensor(t))[0];
}

/** Candidate ε Adds (by index in the main graph) for this rule, with the reason. */
export function fusedEpsilonKeeps(model: Model, to: number): Map<number, string> {
  const out = new Map<number, string>();
  if (to !== DataType.FLOAT16) return out;
  const g = model.graph;
  const stored = new Map<string, Tensor>();
  for (const t of g.initializers) stored.set(t.name, t);
  const producer = new Map<string, Node>();
  const readers = new Map<string, Node[]>();
  for (const n of g.nodes) {
    for (const o of n.outputs) if (o) producer.set(o, n);
    for (const i of n.inputs) if (i) readers.set(i, [...(readers.get(i) ?? []), n]);
  }
  g.nodes.forEach((n, i) => {
    if (!isOp(n, "Add") || n.inputs.length !== 2) return;
    const [a, b] = n.inputs as [string, string];
    const mean = isOp(producer.get(a), "ReduceMean")
      ? a
      : isOp(producer.get(b), "ReduceMean")
        ? b
        : "";
    if (!mean) return;
    const eps = scalarOf(mean === a ? b : a, stored, producer);
    if (eps === undefined || eps === FUSION_DEFAULT_EPSILON) return;
    const next = readers.get(n.outputs[0] ?? "") ?? [];
    if (next.length !== 1 || !isOp(next[0], "Sqrt")) return;
    // onnxruntime's patterns divide by the root (a Reciprocal, as torch's dynamo exporter writes
    // rsqrt, is not fused).
    const root = next[0]!.outputs[0] ?? "";
    const after = readers.get(root) ?? [];
    if (after.length !== 1 || !isOp(after[0], "Div") || after[0]!.inputs[1] !== root) return;
    out.set(
      i,
      `its ε ${eps.toExponential(3)} would be read as 1e-5 by onnxruntime's fused LayerNormalization in a half model (it reads ε only from a float32 constant)`,
    );
  });
  return out;
}

/** The model with each candidate Add's ε read as onnxruntime's fusion reads it in half: 1e-5. */
export function withMisreadEpsilon(
  model: Model,
  adds: Iterable<number>,
  types: Map<string, Type>,
): { model: Model; types: Map<string, Type> } {
  const g = model.graph;
  const stored = new Set(g.initializers.map((t) => t.name));
  let name = "misread_epsilon";
  for (let k = 1; stored.has(name); k++) name = `misread_epsilon_${k}`;
  const at = new Set(adds);
  const producer = new Map<string, Node>();
  for (const n of g.nodes) for (const o of n.outputs) if (o) producer.set(o, n);
  const nodes = g.nodes.map((n, i) => {
    if (!at.has(i)) return n;
    const inputs = n.inputs.map((x) => (isOp(producer.get(x), "ReduceMean") ? x : name));
    return { ...n, inputs };
  });
  const eps = Tensor.from(F32, [], [FUSION_DEFAULT_EPSILON], name);
  const withEps = new Map(types);
  withEps.set(name, { kind: "tensor", elemType: F32, shape: [] });
  return {
    model: { ...model, graph: { ...g, nodes, initializers: [...g.initializers, eps] } },
    types: withEps,
  };
}
