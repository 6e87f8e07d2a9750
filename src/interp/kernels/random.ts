// RandomUniform, RandomNormal and their *Like forms (1, 22): samples in the output dtype. A
// `seed` makes the draws reproducible (the same seed and shape give the same values on every
// machine); without one every run draws anew. The generator is the one Bernoulli uses, draw for
// draw, so Bernoulli's body (RandomUniformLike, Less, Cast) gives the kernel's output for the same
// seed. The spec allows any generator: no other runtime's numbers are matched.

import { attrInt, attrInts, getAttr } from "../../ir/attributes.js";
import {
  bfloat16BitsToNumber,
  dtypeName,
  float16BitsToNumber,
  numberToBfloat16Bits,
  numberToFloat16Bits,
} from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { seededRandom, type Random } from "../random.js";
import { fromFloat64 } from "../tensor.js";
import type { Kernel, KernelContext, RTensor, RValue } from "../types.js";
import { alloc, fail, input } from "./util.js";
import { floatAttr, intAttr } from "./attrs.js";

const FLOAT_TYPES = new Set<number>([
  DataType.FLOAT16,
  DataType.BFLOAT16,
  DataType.FLOAT,
  DataType.DOUBLE,
]);

/** The float seed's bit pattern as a 32-bit integer seed. */
export function seedBits(seed: number): number {
  const f = new Float32Array([seed]);
  return new Int32Array(f.buffer)[0]!;
}

/** The node's generator: seeded by its `seed` attribute, else by Math.random. */
export function nodeRandom(ctx: KernelContext): Random {
  const a = getAttr(ctx.node, "seed");
  return seededRandom(
    a?.type === "FLOAT" && a.value !== undefined
      ? seedBits(a.value)
      : Math.floor(Math.random() * 4294967296),
  );
}

/** x rounded to the nearest value of a floating-point dtype. */
function rounded(dtype: number, x: number): number {
  switch (dtype) {
    case DataType.FLOAT:
      return Math.fround(x);
    case DataType.FLOAT16:
      return float16BitsToNumber(numberToFloat16Bits(x));
    case DataType.BFLOAT16:
      return bfloat16BitsToNumber(numberToBfloat16Bits(x));
    default:
      return x;
  }
}

type Draw = (rng: Random, ctx: KernelContext, dtype: number) => () => number;

/** In [low, high) in the output dtype: a draw that rounds up to `high` is drawn again. */
const uniform: Draw = (rng, ctx, dtype) => {
  const low = floatAttr(ctx, "low");
  const high = floatAttr(ctx, "high");
  return () => {
    for (let tries = 0; ; tries++) {
      const v = rounded(dtype, low + (high - low) * rng.next());
      if (v < high || tries >= 64 || !(low < high)) return v;
    }
  };
};

/** Box-Muller: two uniform draws per normal sample (the second of each pair is not kept). */
const normal: Draw = (rng, ctx) => {
  const mean = floatAttr(ctx, "mean");
  const scale = floatAttr(ctx, "scale");
  return () => {
    const u = 1 - rng.next(); // in (0, 1]: the log is finite
    return mean + scale * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
  };
};

function sample(ctx: KernelContext, dtype: number, shape: number[], draw: Draw): RTensor {
  if (!FLOAT_TYPES.has(dtype))
    fail(ctx, `dtype ${dtype} (${dtypeName(dtype)}) is not a floating-point type`);
  const values = alloc(ctx, DataType.DOUBLE, shape).data as Float64Array;
  const next = draw(nodeRandom(ctx), ctx, dtype);
  for (let i = 0; i < values.length; i++) values[i] = next();
  return fromFloat64(dtype, shape, values);
}

const fromShape =
  (draw: Draw): Kernel =>
  (ctx) => {
    const shape = attrInts(ctx.node, "shape");
    if (!shape) fail(ctx, "attribute 'shape' is required");
    return [sample(ctx, intAttr(ctx, "dtype"), shape, draw)];
  };

const like =
  (draw: Draw): Kernel =>
  (ctx, inputs: (RValue | undefined)[]) => {
    const x = input(ctx, inputs, 0);
    const dtype = attrInt(ctx.node, "dtype") ?? x.dtype;
    return [sample(ctx, dtype, [...x.shape], draw)];
  };

export const randomKernels: Record<string, Kernel> = {
  RandomUniform: fromShape(uniform),
  RandomNormal: fromShape(normal),
  RandomUniformLike: like(uniform),
  RandomNormalLike: like(normal),
};
