// A normalization's ε kept float32 where a runtime would misread it in half.
//
// onnxruntime fuses the decomposed LayerNormalization and RMS normalization (ReduceMean → Add ε →
// Sqrt → …) into one kernel at its default optimization level, and takes ε from the Add's
// constant only when that constant is float32; in a float16 model it uses 1e-5 instead. A model
// whose ε is 1e-6 (Llama-style RMSNorm) then computes other numbers on onnxruntime than in the
// model's own graph: measured on the deployed Llama, 1.1e-2 from the float32 model against 3.8e-4
// with the fusion off. Keeping that one Add float32 (two Casts) leaves the ε exact and the pattern
// unfused. It is kept only where the misread ε would matter: where ε is 1e-5 (the fusion's default
// is the model's value) nothing is kept, and with the float32 run's values at hand, only where the
// difference moves the smallest mean it is added to by more than half an ulp of float16 (BERT's
// ε of 1e-12 beside means near 1 does not). onnxruntime fuses no bfloat16 pattern.

import { DataType, type Model, type Node } from "../../ir/types.js";
import type { RValue } from "../../interp/types.js";
import { fromIRTensor } from "../../interp/ir-tensors.js";
import { toFloat64 } from "../../interp/tensor.js";
import type { Tensor } from "../../ir/tensor.js";
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

/** float16's unit roundoff: half an ulp of 1. */
const HALF_ULP = 2 ** -11;

/** The smallest magnitude of a float32 run's value (undefined when it is not a tensor). */
function smallest(v: RValue | undefined): number | undefined {
  if (!v || !("dtype" in v)) return undefined;
  let m = Infinity;
  for (const x of toFloat64(v)) if (Math.abs(x) < m) m = Math.abs(x);
  return m;
}

/**
 * Nodes (by index in the main graph) kept float32 for this rule, with the reason. `values`: the
 * float32 run's intermediates, when the pass verifies.
 */
export function fusedEpsilonKeeps(
  model: Model,
  to: number,
  values?: Record<string, RValue>,
): Map<number, string> {
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
    if (values) {
      const least = smallest(values[mean]);
      if (least !== undefined && Math.abs(eps - FUSION_DEFAULT_EPSILON) <= HALF_ULP * least) return;
    }
    out.set(
      i,
      `its ε ${eps.toExponential(3)} would be read as 1e-5 by onnxruntime's fused LayerNormalization in a half model (it reads ε only from a float32 constant)`,
    );
  });
  return out;
}
