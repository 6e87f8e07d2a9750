// Where each attribute type sits in an AttributeProto: its number in `type` and the field that
// holds its value. The reader and the writer both go by this table.

import type { AttrType } from "../ir/types.js";

/** A type that holds one value, and the list type that holds many of them. */
export type ScalarAttrType =
  "FLOAT" | "INT" | "STRING" | "TENSOR" | "GRAPH" | "SPARSE_TENSOR" | "TYPE_PROTO";

export interface AttrField {
  /** The number of the type in AttributeProto.type. */
  id: number;
  /** The field that holds the value (none for UNDEFINED). */
  field?: string;
  /** The type of each element: the type itself, or the scalar type of a list type. */
  element?: ScalarAttrType;
  list?: true;
}

export const ATTR_FIELDS: Record<AttrType, AttrField> = {
  UNDEFINED: { id: 0 },
  FLOAT: { id: 1, field: "f", element: "FLOAT" },
  INT: { id: 2, field: "i", element: "INT" },
  STRING: { id: 3, field: "s", element: "STRING" },
  TENSOR: { id: 4, field: "t", element: "TENSOR" },
  GRAPH: { id: 5, field: "g", element: "GRAPH" },
  FLOATS: { id: 6, field: "floats", element: "FLOAT", list: true },
  INTS: { id: 7, field: "ints", element: "INT", list: true },
  STRINGS: { id: 8, field: "strings", element: "STRING", list: true },
  TENSORS: { id: 9, field: "tensors", element: "TENSOR", list: true },
  GRAPHS: { id: 10, field: "graphs", element: "GRAPH", list: true },
  SPARSE_TENSOR: { id: 11, field: "sparse_tensor", element: "SPARSE_TENSOR" },
  SPARSE_TENSORS: { id: 12, field: "sparse_tensors", element: "SPARSE_TENSOR", list: true },
  TYPE_PROTO: { id: 13, field: "tp", element: "TYPE_PROTO" },
  TYPE_PROTOS: { id: 14, field: "type_protos", element: "TYPE_PROTO", list: true },
};

/** The attribute types by their number in AttributeProto.type. */
export const ATTR_TYPE_BY_ID: readonly AttrType[] = (Object.keys(ATTR_FIELDS) as AttrType[]).sort(
  (a, b) => ATTR_FIELDS[a].id - ATTR_FIELDS[b].id,
);
