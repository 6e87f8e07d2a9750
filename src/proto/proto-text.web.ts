// Browser build: proto/onnx.proto's text, bundled by the web build (esbuild's text loader).
// Stands in for proto-text.node.ts.

// @ts-expect-error: a .proto file imported as text by the web build (scripts/build-web.mjs)
import text from "../../proto/onnx.proto";

export function onnxProtoText(): string {
  return text as string;
}
