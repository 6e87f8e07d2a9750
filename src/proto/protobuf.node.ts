// Node: protobufjs (with long for its 64-bit integers), required on first use. The model codec
// (src/io/decode.ts, encode.ts) is our own; protobufjs reads and writes only the few rare
// messages the IR keeps as decoded (training info, device configurations, ...), so a command
// on a model without them never loads it (~15 ms of start-up). The web build replaces this
// module by protobuf.web.ts.

import { createRequire } from "node:module";
import type protobufTypes from "protobufjs";
import type LongType from "long";

let lib: typeof protobufTypes | undefined;

/** protobufjs, configured (int64 as Long) on the first call. */
export function protobufjs(): typeof protobufTypes {
  if (!lib) {
    const require = createRequire(import.meta.url);
    const pb = require("protobufjs") as typeof protobufTypes;
    pb.util.Long = require("long") as typeof LongType;
    pb.configure();
    lib = pb;
  }
  return lib;
}
