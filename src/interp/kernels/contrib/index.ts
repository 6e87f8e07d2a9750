// onnxruntime's operators: the com.microsoft ops its quantizer, transformers optimizer and graph
// optimizations write, and its own registrations in the ONNX domain (SimplifiedLayerNormalization;
// its LayerNormalization-1 runs on ai.onnx's LayerNormalization kernel).

import type { Kernel } from "../../types.js";
import { attentionKernels } from "./attention.js";
import { fusedKernels, onnxDomainKernels } from "./fused.js";
import { matmulKernels } from "./matmul.js";
import { qlinearKernels } from "./qlinear.js";

/** com.microsoft op type → kernel. */
export const contribKernels: Readonly<Record<string, Kernel>> = Object.freeze({
  ...qlinearKernels,
  ...fusedKernels,
  ...matmulKernels,
  ...attentionKernels,
});

/** onnxruntime's ops in the ONNX domain that ONNX does not have. */
export const onnxDomainRuntimeKernels: Readonly<Record<string, Kernel>> = onnxDomainKernels;
