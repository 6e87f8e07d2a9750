// Browser build: proto/onnx.proto's text, bundled by the web build (esbuild's text loader), and
// protobufjs's generated code compiled ahead of time (the page's Content-Security-Policy forbids
// the Function() protobufjs compiles it with). Stands in for proto-text.node.ts.

import protobuf from "protobufjs";
// @ts-expect-error: a .proto file imported as text by the web build (scripts/build-web.mjs)
import text from "../../proto/onnx.proto";
// @ts-expect-error: a virtual module of the web build (scripts/build-web.mjs)
import compiled from "onnx-expand:protobuf-codegen";

type Factory = (...scope: unknown[]) => unknown;
type Codegen = ((fmt?: unknown, ...rest: unknown[]) => unknown) & { toString(): string };

// protobufjs builds each function's text with util.codegen and compiles it when the text is
// finished (called with its scope); here the finished text is looked up instead of compiled.
const util = protobuf.util as unknown as { codegen: (params?: unknown, name?: string) => Codegen };
const real = util.codegen;
util.codegen = (params, name) => {
  const g = real(params, name);
  const gen: Codegen = (fmt, ...rest) => {
    if (typeof fmt === "string") {
      g(fmt, ...rest);
      return gen;
    }
    const scope = (fmt ?? {}) as Record<string, unknown>;
    const keys = Object.keys(scope);
    const make = (compiled as Map<string, Factory>).get(`${keys.join(",")}\n${g.toString()}`);
    if (make) return make(...keys.map((k) => scope[k]));
    // Text the build did not see (a type it did not set up): fails when called, not before.
    return () => {
      throw new Error("protobufjs code that the web build did not compile");
    };
  };
  return gen;
};

export function onnxProtoText(): string {
  return text as string;
}
