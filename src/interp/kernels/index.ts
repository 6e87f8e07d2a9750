// The kernel registry: ai.onnx op type → kernel. Kernels read the node's opset version from
// their context where versions differ, so one entry serves every version of an op.

import type { Kernel } from "../types.js";
import { controlKernels } from "./control.js";
import { elementwiseKernels } from "./elementwise.js";
import { extraKernels } from "./extra.js";
import { logCumSumExpKernels } from "./logcumsumexp.js";
import { miscKernels } from "./misc.js";
import { nnKernels } from "./nn.js";
import { quantKernels } from "./quant.js";
import { recurrentKernels } from "./recurrent.js";
import { reduceKernels } from "./reduce.js";
import { resampleKernels } from "./resample.js";
import { shapeKernels } from "./shape.js";
import { signalKernels } from "./signal.js";

export const kernels: Readonly<Record<string, Kernel>> = Object.freeze({
  ...elementwiseKernels,
  ...shapeKernels,
  ...controlKernels,
  ...nnKernels,
  ...miscKernels,
  ...resampleKernels,
  ...recurrentKernels,
  ...quantKernels,
  ...extraKernels,
  ...signalKernels,
  ...reduceKernels,
  ...logCumSumExpKernels,
});

/** The kernel for an ai.onnx op type, if the interpreter has one. */
export function kernelFor(opType: string): Kernel | undefined {
  return Object.prototype.hasOwnProperty.call(kernels, opType) ? kernels[opType] : undefined;
}
