// Browser build: protobufjs bundled (with long for its 64-bit integers). Stands in for
// protobuf.node.ts, which requires it on first use.

import protobuf from "protobufjs";
import Long from "long";

protobuf.util.Long = Long;
protobuf.configure();

/** protobufjs, configured (int64 as Long). */
export function protobufjs(): typeof protobuf {
  return protobuf;
}
