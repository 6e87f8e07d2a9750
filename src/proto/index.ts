export {
  onnxRoot,
  messageType,
  decodeMessage,
  encodeMessage,
  StreamEncoder,
  type Msg,
} from "./wire.js";
export { Writer } from "./writer.js";
