// The IR version a converted model gets: raised to what the target opset needs on the way up;
// on the way down, the larger of the IR released with the target opset and the lowest IR that
// carries what the model uses. Never a reason to refuse.

import { MIN_IR_VERSION_FOR_FUNCTIONS, minIrVersionForOpset } from "../schema/ir-versions.js";
import { attributeGraphs, walkGraphs, walkNodes } from "../ir/visit.js";
import type { Model, Type } from "../ir/types.js";

/** Element types by the IR version that introduced them (float8: 9, 4-bit: 10, ...). */
function irForElemType(t: number): number {
  if (t >= 17 && t <= 20) return 9;
  if (t === 21 || t === 22) return 10;
  if (t === 23) return 11;
  if (t === 24) return 12;
  if (t === 25 || t === 26) return 13;
  if (t === 16) return 4;
  return 3;
}

function irForType(t: Type | undefined): number {
  if (!t) return 3;
  switch (t.kind) {
    case "tensor":
      return irForElemType(t.elemType);
    case "sparse_tensor":
      return Math.max(6, irForElemType(t.elemType));
    case "sequence":
    case "map":
      return 4;
    case "optional":
      return 8;
    default:
      return 3;
  }
}

/** The lowest IR version that carries the model's features (functions, types, ...). */
export function minIrVersionForFeatures(model: Model): number {
  let need = 3;
  if (model.functions.length > 0) need = Math.max(need, MIN_IR_VERSION_FOR_FUNCTIONS);
  if (model.trainingInfo?.length) need = Math.max(need, 7);
  const g = model.graph;
  const inputs = new Set(g.inputs.map((v) => v.name));
  // IR 3 requires every initializer to be a graph input.
  if (g.initializers.some((t) => !inputs.has(t.name))) need = Math.max(need, 4);
  for (const graph of walkGraphs(model)) {
    if (graph.sparseInitializers.length) need = Math.max(need, 6);
    for (const v of [...graph.inputs, ...graph.outputs, ...graph.valueInfo])
      need = Math.max(need, irForType(v.type));
    for (const t of graph.initializers) need = Math.max(need, irForElemType(t.dataType));
  }
  for (const { node } of walkNodes(model))
    for (const a of node.attributes) {
      if (a.type === "SPARSE_TENSOR" || a.type === "SPARSE_TENSORS") need = Math.max(need, 6);
      if (a.type === "TENSOR" && a.value) need = Math.max(need, irForElemType(a.value.dataType));
      if (attributeGraphs(a).length === 0 && a.refAttrName) need = Math.max(need, 8);
    }
  return need;
}

/** The IR version of the model converted to ai.onnx opset `target`. */
export function convertedIrVersion(model: Model, target: number, up: boolean): number {
  const released = minIrVersionForOpset(target);
  if (up) return Math.max(model.irVersion, released);
  return Math.max(released, minIrVersionForFeatures(model));
}
