// The reference interpreter: run models, move tensors in and out, run backend-test folders.

export * from "./types.js";
export {
  run,
  runValues,
  unsupportedOps,
  assertSupported,
  DEFAULT_MAX_ELEMENTS,
  DEFAULT_MAX_ITERATIONS,
  type RunOptions,
} from "./executor.js";
export { fromIRTensor, toIRTensor, sparseToDense } from "./ir-tensors.js";
export { encodeTensorProto, decodeTensorProto, decodeValueProto } from "./value-proto.js";
export { decodeNpy } from "./npy.js";
export { parseJsonTensor } from "./json-tensor.js";
export {
  runBackendTest,
  findBackendTestDirs,
  compareTensors,
  compareValues,
  floatErrors,
  formatFloatErrors,
  DEFAULT_TOLERANCE,
  type BackendTestResult,
  type FloatErrors,
  type OutputErrors,
  type Tolerance,
} from "./backend-test.js";
export { bodyKernelFor, bodyKernels, hasKernel, kernels, kernelFor } from "./kernels/index.js";
export { allocTensor, elementCount, toFloat64, fromFloat64 } from "./tensor.js";
export { formatProfile, type RunProfile, type NodeProfile, type OpTypeProfile } from "./profile.js";
