// Browser build: stands in for external.node.ts. The page gives a model's external tensors the
// range of the data files picked with it when it opens the model; a tensor whose file was not
// picked cannot be read.

import { OnnxError } from "../errors.js";
import type { Tensor } from "../ir/tensor.js";

export function readExternalData(t: Tensor, where?: string): Uint8Array {
  const loc = t.data.kind === "external" ? t.data.entries.find(([k]) => k === "location")?.[1] : "";
  throw new OnnxError(
    "E_IO",
    `tensor '${t.name}' keeps its data in '${loc ?? ""}', which was not opened with the model (pick the model and its data files together)`,
    where,
  );
}
