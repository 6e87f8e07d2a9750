// Declared ranges of integer inputs, one syntax wherever a user gives them (`lower --input-range`,
// bench:targets): "attention_mask=0:1,position_ids=0:63", a comma-separated list of NAME=LO:HI
// (several texts merge, as repeated flags), LO and HI integers (either may be negative), LO ≤ HI.
// Lowering may then rely on every value of the input lying in [LO, HI] (legalize-cast-range: a
// Cast the target refuses read through a table); the lowered model is exact only for such inputs,
// and says so in its metadata (RANGES_KEY).

import { OnnxError } from "../errors.js";
import { dtypeName, INTEGER_TYPES } from "../ir/dtype.js";
import type { Model } from "../ir/types.js";
import { deriveSeed, randomTensor, seededRandom } from "../interp/random.js";
import type { RTensor, RValue } from "../interp/types.js";
import type { InputRange, InputRanges } from "../passes/legalize-cast-range.js";

export type { InputRange, InputRanges };

/** The model metadata key a lowering with declared ranges writes them under. */
export const RANGES_KEY = "onnx-expand:input-ranges";

/** Parses "name=lo:hi,name=lo:hi" (spaces around items allowed); a bad item is a usage error. */
export function parseInputRanges(...texts: string[]): Map<string, InputRange> {
  const ranges = new Map<string, InputRange>();
  for (const text of texts)
    for (const raw of text.split(",")) {
      const item = raw.trim();
      if (item === "") continue;
      const m = /^(.+?)\s*=\s*(-?\d+)\s*:\s*(-?\d+)$/.exec(item);
      if (!m)
        throw new OnnxError(
          "E_USAGE",
          `input range '${item}' is not NAME=LO:HI with integer LO and HI`,
        );
      const [name, lo, hi] = [m[1]!.trim(), Number(m[2]), Number(m[3])];
      if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi))
        throw new OnnxError("E_USAGE", `input range '${item}': a bound is too large`);
      if (lo > hi) throw new OnnxError("E_USAGE", `input range '${item}': LO ${lo} > HI ${hi}`);
      const before = ranges.get(name);
      if (before && (before.lo !== lo || before.hi !== hi))
        throw new OnnxError(
          "E_USAGE",
          `input '${name}' is given two ranges, ${before.lo}:${before.hi} and ${lo}:${hi}`,
        );
      ranges.set(name, { lo, hi });
    }
  return ranges;
}

/** The text form of ranges, as parseInputRanges reads it. */
export function formatInputRanges(ranges: InputRanges): string {
  return [...ranges].map(([n, r]) => `${n}=${r.lo}:${r.hi}`).join(",");
}

/** Every range names an integer input of the model's graph (else a usage error naming it). */
export function checkInputRanges(model: Model, ranges: InputRanges): void {
  const inits = new Set(model.graph.initializers.map((t) => t.name));
  const inputs = new Map(
    model.graph.inputs.filter((v) => !inits.has(v.name)).map((v) => [v.name, v] as const),
  );
  for (const [name, r] of ranges) {
    const v = inputs.get(name);
    if (!v)
      throw new OnnxError(
        "E_USAGE",
        `input range '${name}=${r.lo}:${r.hi}': the model has no input '${name}' (it has: ${[...inputs.keys()].join(", ") || "none"})`,
      );
    const t = v.type?.kind === "tensor" ? v.type.elemType : undefined;
    if (t === undefined || !INTEGER_TYPES.includes(t))
      throw new OnnxError(
        "E_USAGE",
        `input range '${name}=${r.lo}:${r.hi}': input '${name}' is ${t === undefined ? "not a tensor of known type" : dtypeName(t)}, not an integer tensor`,
      );
  }
}

/** The model with its declared ranges recorded in its metadata (RANGES_KEY). */
export function recordInputRanges(model: Model, ranges: InputRanges): Model {
  if (!ranges.size) return model;
  const rest = (model.metadataProps ?? []).filter(([k]) => k !== RANGES_KEY);
  return { ...model, metadataProps: [...rest, [RANGES_KEY, formatInputRanges(ranges)]] };
}

/**
 * Inputs with each ranged one redrawn within its range (seeded, uniform over the integers), for
 * runs that check a lowering exact within the ranges.
 */
export function drawWithinRanges(
  inputs: Record<string, RValue>,
  ranges: InputRanges,
  seed: number,
): Record<string, RValue> {
  const out = { ...inputs };
  let k = 0;
  for (const [name, r] of ranges) {
    const t = out[name] as RTensor | undefined;
    k++;
    if (!t || !("dtype" in t)) continue;
    const rng = seededRandom(deriveSeed(seed, 1000 + k));
    out[name] = randomTensor(t.dtype, [...t.shape], rng, r.lo - 0.5, r.hi + 0.5 - 1e-9);
  }
  return out;
}
