// The package's version: what `onnx-expand --version` prints (bin.ts answers it without loading
// the program).
export const VERSION = "0.1.0";
