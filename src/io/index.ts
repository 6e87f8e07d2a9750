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
export { decodeIR } from "./decode.js";
export { explicitEmptyDomain } from "./presence.js";
export {
  encodeModelBytes,
  encodeModelChunks,
  encodeTensorBytes,
  type EncodeOptions,
} from "./encode.js";
