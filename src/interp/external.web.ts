// Browser build: stands in for external.node.ts. A model dropped on a page comes without the files
// beside it, so tensors stored outside the model cannot be read.

import { OnnxError } from "../errors.js";
import type { Tensor } from "../ir/tensor.js";

export function loadExternalData(t: Tensor, where?: string): void {
  throw new OnnxError(
    "E_IO",
    `tensor '${t.name}' keeps its data in a file beside the model, which a web page cannot read`,
    where,
  );
}
