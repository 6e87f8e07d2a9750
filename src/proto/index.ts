export {
  onnxRoot,
  messageType,
  decodeMessage,
  encodeMessage,
  ChunkWriter,
  StreamEncoder,
  type Msg,
} from "./wire.js";
