// Fields a file spelled out with their default value, or left out where the IR always holds a
// value. The IR has one spelling for both ("" for ai.onnx, "" for a tensor without a name); these
// sets let the encoder write a file's bytes back as they were.

import type { Tensor } from "../ir/tensor.js";
import type { Node, OpsetId } from "../ir/types.js";

/** A WeakSet that answers at no cost while nothing was ever added to it (most models). */
class Marks<T extends object> extends WeakSet<T> {
  private used = false;
  override add(v: T): this {
    this.used = true;
    return super.add(v);
  }
  override has(v: T): boolean {
    return this.used && super.has(v);
  }
}

/** Nodes whose file spelled out an empty domain. */
export const explicitEmptyDomain: WeakSet<Node> = new Marks<Node>();
/** Tensors whose file spelled out an empty name. */
export const explicitEmptyName: WeakSet<Tensor> = new Marks<Tensor>();
/** Opset imports whose file left the domain out (ai.onnx either way). */
export const omittedDomain: WeakSet<OpsetId> = new Marks<OpsetId>();
