// PLACEHOLDER: filled by the reduce/LogCumSumExp kernel work. Maps op type → kernel.
import type { Kernel } from "../types.js";
export const reduceKernels: Record<string, Kernel> = {};
