// The deployed corpus as the deployed benches read it: each test/data/deployed/<name>/model.onnx
// (those whose name contains `only`, when given), loaded, with its symbolic dims fixed as the
// benches fix them (1 for a batch, 8 otherwise).

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Model } from "../src/ir/types.js";
import { loadModel } from "../src/io/files.js";

const root = join(import.meta.dirname, "..", "test", "data", "deployed");

export function* deployedModels(
  only?: string,
): Generator<{ name: string; model: Model; dims: Map<string, number> }> {
  for (const name of readdirSync(root).sort()) {
    const file = join(root, name, "model.onnx");
    if ((only && !name.includes(only)) || !existsSync(file)) continue;
    const model = loadModel(file);
    const dims = new Map<string, number>();
    for (const v of model.graph.inputs)
      if (v.type?.kind === "tensor")
        for (const d of v.type.shape ?? [])
          if (typeof d === "string") dims.set(d, /batch/i.test(d) ? 1 : 8);
    yield { name, model, dims };
  }
}
