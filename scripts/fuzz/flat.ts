// Huge flat models for fuzzing: one node given 100,000 to 1,000,000 inputs, or a graph given
// 100,000 to 300,000 initializers. Nothing nests, so every command must treat them as the large
// lists they are (a spread or a recursion over a list runs out of stack where a loop does not).

import type { Random } from "../../src/interp/random.js";
import { decodeModel, encodeModel } from "../../src/io/codec.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType } from "../../src/ir/types.js";

/** The model made huge and flat; the input bytes when they do not decode. */
export function hugeFlat(input: Uint8Array, rng: Random): Uint8Array {
  let model;
  try {
    model = decodeModel(input);
  } catch {
    return input;
  }
  const g = model.graph;
  const node = g.nodes.length ? rng.pick(g.nodes) : undefined;
  if (node && node.inputs.length && rng.chance(0.6)) {
    const n = rng.range(100_000, 1_000_000);
    const first = node.inputs[0]!;
    node.inputs = Array.from({ length: n }, (_, i) => node.inputs[i % node.inputs.length] ?? first);
  } else {
    const n = rng.range(100_000, 300_000);
    for (let i = 0; i < n; i++)
      g.initializers.push(
        new Tensor(DataType.FLOAT, [], { kind: "raw", bytes: new Uint8Array(4) }, `flat_${i}`),
      );
  }
  return encodeModel(model);
}
