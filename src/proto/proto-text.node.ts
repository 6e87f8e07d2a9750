// Node-only: proto/onnx.proto read from disk. The web build replaces this module by
// proto-text.web.ts, which has the text as bundled data.

import { readFileSync } from "node:fs";

export function onnxProtoText(): string {
  return readFileSync(new URL("../../proto/onnx.proto", import.meta.url), "utf8");
}
