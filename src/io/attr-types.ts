// AttributeProto.AttributeType: the IR's names by the wire's numbers, and back.

import type { AttrType } from "../ir/types.js";

/** The IR's attribute type for each AttributeType number. */
export const ATTR_TYPES: readonly AttrType[] = [
  "UNDEFINED",
  "FLOAT",
  "INT",
  "STRING",
  "TENSOR",
  "GRAPH",
  "FLOATS",
  "INTS",
  "STRINGS",
  "TENSORS",
  "GRAPHS",
  "SPARSE_TENSOR",
  "SPARSE_TENSORS",
  "TYPE_PROTO",
  "TYPE_PROTOS",
];

/** The AttributeType number of each of the IR's attribute types. */
export const ATTR_TYPE_ID = Object.fromEntries(ATTR_TYPES.map((t, i) => [t, i])) as Record<
  AttrType,
  number
>;
