// The application layer under the command line and the inspector page: a model from a file's name
// and bytes, inputs bound to a model, the check that a model can run, the transforms, outputs of
// two runs compared, notes as lines; and a session holding a model and a transform's result.

export { acceptModel, isTextModelName, looksBinary, modelFromBytes } from "./load.js";
export { checkLoaded, type ModelCheck } from "./check.js";
export { modelFiles, type ModelFile } from "./save.js";
export {
  bindInputs,
  declaredDtype,
  decodeInputFile,
  jsonInputArgs,
  requestedInputs,
  requiredInputs,
  type InputArg,
  type InputFile,
  type InputRequest,
} from "./inputs.js";
export { randomInputs } from "./random-inputs.js";
export { formatTaken, randomDims, withTakenDims, type TakenDim } from "./random-dims.js";
export { formatDims, parseDims } from "./dims.js";
export {
  checkInputRanges,
  drawWithinRanges,
  formatInputRanges,
  parseInputRanges,
  recordInputRanges,
  RANGES_KEY,
  type InputRange,
  type InputRanges,
} from "./ranges.js";
export { RUN_BLOCKERS, assertRunnable, runModels } from "./runnable.js";
export {
  convert,
  convertModel,
  convertPass,
  convertPipeline,
  expand,
  expandPipeline,
  lower,
  describePipelines,
  lowerPipeline,
  lowerSteps,
  type LowerStep,
  planConversion,
  simplify,
  transform,
  type LowerRequest,
  type LowerResult,
  type ConvertRequest,
  type ExpandRequest,
  type TransformResult,
} from "./transform.js";
export {
  precision,
  precisionPass,
  precisionType,
  type PrecisionReport,
  type PrecisionRequest,
} from "./precision.js";
export {
  compareOutputs,
  largestDifference,
  tensorDifference,
  type Difference,
  type OutputComparison,
} from "./compare.js";
export {
  firstDivergences,
  valueDivergence,
  type DivergenceOptions,
  type NodeDivergence,
  type ValueDivergence,
} from "./divergence.js";
export { RefusedError, formatNote, problemNotes } from "./notes.js";
export { Session, type Loaded, type Prepare, type RunReport, type Side } from "./session.js";
