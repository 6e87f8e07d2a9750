export {
  loadModel,
  saveModel,
  decodeModel,
  encodeModel,
  loadExternalData,
  externalFile,
  writeFileAtomic,
  isTextPath,
  type LoadOptions,
  type SaveOptions,
} from "./files.js";
export { decodeIR, explicitEmptyDomain } from "./decode.js";
export {
  encodeModelBytes,
  encodeModelChunks,
  encodeTensorBytes,
  type EncodeOptions,
} from "./encode.js";
