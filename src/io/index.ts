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
export { ProtoReader } from "./from-proto.js";
export { ProtoWriter } from "./to-proto.js";
