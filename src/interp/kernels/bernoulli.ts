// Bernoulli-15/22: 1 with probability p, else 0. A `seed` makes the draws reproducible (the same
// seed, shape and probabilities give the same output on every machine); without one every run
// draws anew. The spec allows any generator, so no other runtime's numbers are matched.

import { attrInt } from "../../ir/attributes.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { fromFloat64, toFloat64 } from "../tensor.js";
import type { Kernel } from "../types.js";
import { nodeRandom } from "./random.js";
import { fail, floatInput } from "./util.js";

const OUTPUT_TYPES = new Set<number>([
  DataType.UINT8,
  DataType.UINT16,
  DataType.UINT32,
  DataType.UINT64,
  DataType.INT8,
  DataType.INT16,
  DataType.INT32,
  DataType.INT64,
  DataType.BFLOAT16,
  DataType.FLOAT16,
  DataType.FLOAT,
  DataType.DOUBLE,
  DataType.BOOL,
]);

const Bernoulli: Kernel = (ctx, inputs) => {
  const x = floatInput(ctx, inputs, 0, "input");
  const dtype = attrInt(ctx.node, "dtype", x.dtype);
  if (!OUTPUT_TYPES.has(dtype))
    fail(ctx, `dtype ${dtype} (${dtypeName(dtype)}) is not a numeric or bool type`);
  const rng = nodeRandom(ctx);
  const p = toFloat64(x);
  for (let i = 0; i < p.length; i++) {
    const pi = p[i]!;
    if (!(pi >= 0 && pi <= 1))
      fail(ctx, `input value ${pi} at index ${i} is not a probability in [0, 1]`);
    p[i] = rng.next() < pi ? 1 : 0;
  }
  return [fromFloat64(dtype, [...x.shape], p)];
};

export const bernoulliKernels: Record<string, Kernel> = { Bernoulli };
