// The kernel registry: ai.onnx op type → kernel. Kernels read the node's opset version from
// their context where versions differ, so one entry serves every version of an op.

import type { BodyKernel, Kernel } from "../types.js";
import { activationKernels } from "./activation.js";
import { attentionKernels } from "./attention.js";
import { bernoulliKernels } from "./bernoulli.js";
import { randomKernels } from "./random.js";
import { castKernels } from "./cast.js";
import { controlKernels } from "./control.js";
import { convStateKernels } from "./conv-state.js";
import { detectionKernels } from "./detection.js";
import { elementwiseKernels } from "./elementwise.js";
import { gridKernels } from "./grid.js";
import { indexingKernels } from "./indexing.js";
import { linalgKernels } from "./linalg.js";
import { logCumSumExpKernels } from "./logcumsumexp.js";
import { convPoolKernels } from "./conv-pool.js";
import { nnKernels } from "./nn.js";
import { normalizationKernels } from "./normalization.js";
import { quantKernels } from "./quant.js";
import { recurrentKernels } from "./recurrent.js";
import { reduceKernels } from "./reduce.js";
import { resampleKernels } from "./resample.js";
import { sequenceBodyKernels, sequenceKernels } from "./sequence.js";
import { shapeKernels } from "./shape.js";
import { signalKernels } from "./signal.js";
import { stringKernels } from "./strings.js";
import { contribKernels, onnxDomainRuntimeKernels } from "./contrib/index.js";

export const kernels: Readonly<Record<string, Kernel>> = Object.freeze({
  ...elementwiseKernels,
  ...castKernels,
  ...shapeKernels,
  ...nnKernels,
  ...convPoolKernels,
  ...sequenceKernels,
  ...indexingKernels,
  ...linalgKernels,
  ...detectionKernels,
  ...stringKernels,
  ...resampleKernels,
  ...recurrentKernels,
  ...quantKernels,
  ...signalKernels,
  ...reduceKernels,
  ...logCumSumExpKernels,
  ...activationKernels,
  ...normalizationKernels,
  ...attentionKernels,
  ...gridKernels,
  ...convStateKernels,
  ...bernoulliKernels,
  ...randomKernels,
  // onnxruntime's own registrations in the ONNX domain (SimplifiedLayerNormalization)
  ...onnxDomainRuntimeKernels,
});

/** Kernels of other domains, by domain. */
const domainKernels: Readonly<Record<string, Readonly<Record<string, Kernel>>>> = Object.freeze({
  "com.microsoft": contribKernels,
});

/**
 * The kernel for an op type of a domain (ai.onnx by default; com.microsoft: onnxruntime's ops,
 * contrib/), if the interpreter has one.
 */
export function kernelFor(opType: string, domain = ""): Kernel | undefined {
  // Names come from the model: only the tables' own keys (an op `toString` of domain `__proto__`
  // is no kernel).
  const table =
    domain === "" || domain === "ai.onnx"
      ? kernels
      : Object.hasOwn(domainKernels, domain)
        ? domainKernels[domain]
        : undefined;
  return table && Object.hasOwn(table, opType) ? table[opType] : undefined;
}

/** Kernels of ai.onnx ops with bodies (If, Loop, Scan, SequenceMap): see BodyKernel. */
export const bodyKernels: Readonly<Record<string, BodyKernel>> = Object.freeze({
  ...controlKernels,
  ...sequenceBodyKernels,
});

/** The body kernel of an op type (ai.onnx only: no other domain's op here has a body). */
export function bodyKernelFor(opType: string, domain = ""): BodyKernel | undefined {
  if (domain !== "" && domain !== "ai.onnx") return undefined;
  return Object.prototype.hasOwnProperty.call(bodyKernels, opType)
    ? bodyKernels[opType]
    : undefined;
}

/** Whether the interpreter runs an op type of a domain (a kernel or a body kernel). */
export function hasKernel(opType: string, domain = ""): boolean {
  return kernelFor(opType, domain) !== undefined || bodyKernelFor(opType, domain) !== undefined;
}
