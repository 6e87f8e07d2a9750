// The value of a Constant node, whichever attribute holds it.

import { Tensor } from "../ir/tensor.js";
import { DataType, type Node } from "../ir/types.js";

/** The tensor a Constant node produces; undefined for sparse values or a malformed node. */
export function constantOfNode(n: Node): Tensor | undefined {
  const a = n.attributes[0] && n.attributes.length === 1 ? n.attributes[0] : undefined;
  if (!a || a.value === undefined) return undefined;
  switch (a.name) {
    case "value":
      return a.type === "TENSOR" ? a.value : undefined;
    case "value_int":
      return a.type === "INT" ? Tensor.scalar(DataType.INT64, a.value) : undefined;
    case "value_ints":
      return a.type === "INTS" ? Tensor.from(DataType.INT64, [a.value.length], a.value) : undefined;
    case "value_float":
      return a.type === "FLOAT" ? Tensor.scalar(DataType.FLOAT, a.value) : undefined;
    case "value_floats":
      return a.type === "FLOATS"
        ? Tensor.from(DataType.FLOAT, [a.value.length], a.value)
        : undefined;
    default:
      return undefined;
  }
}
