// The shape of a schema file (schemas/<Op>.json): one operator, all its versions.
// Validated with zod at load; a broken file fails with its path and the field.

import { z } from "zod";

export const AttrTypeName = z.enum([
  "FLOAT",
  "INT",
  "STRING",
  "TENSOR",
  "GRAPH",
  "SPARSE_TENSOR",
  "TYPE_PROTO",
  "FLOATS",
  "INTS",
  "STRINGS",
  "TENSORS",
  "GRAPHS",
  "SPARSE_TENSORS",
  "TYPE_PROTOS",
]);

export const AttributeSchema = z.strictObject({
  name: z.string().min(1),
  type: AttrTypeName,
  required: z.boolean(),
  /** Default value as JSON: number, string, or array of them. Absent: no default. */
  default: z.union([z.number(), z.string(), z.array(z.number()), z.array(z.string())]).optional(),
  description: z.string().optional(),
});

export const FormalSchema = z.strictObject({
  name: z.string().min(1),
  /** A type-constraint variable (e.g. "T") or a concrete type (e.g. "tensor(int64)"). */
  type: z.string().min(1),
  option: z.enum(["single", "optional", "variadic"]),
  /** Variadic only: whether all arguments share one type (default true). */
  homogeneous: z.boolean().optional(),
  /** Variadic only: the least number of arguments. */
  min_arity: z.number().int().nonnegative().optional(),
  description: z.string().optional(),
});

export const TypeConstraintSchema = z.strictObject({
  name: z.string().min(1),
  allowed: z.array(z.string().min(1)).min(1),
  description: z.string().optional(),
});

/** How the version expands into other ops, if it is a function. */
export const FunctionBodySchema = z.union([
  /** A FunctionProto body in ONNX text syntax (the nodes between braces, with an opset import line). */
  z.strictObject({
    kind: z.literal("text"),
    opset: z.number().int().positive(),
    body: z.string().min(1),
  }),
  /** A body built in code from the call's input types and static shapes (src/schema/builders). */
  z.strictObject({ kind: z.literal("builder"), builder: z.string().min(1) }),
]);

export const Unbounded = 2147483647;

export const OpVersionSchema = z.strictObject({
  since: z.number().int().positive(),
  description: z.string().optional(),
  deprecated: z.boolean().optional(),
  experimental: z.boolean().optional(),
  /** True when ONNX defines the version as a function. */
  function: z.boolean(),
  attributes: z.array(AttributeSchema),
  inputs: z.array(FormalSchema),
  outputs: z.array(FormalSchema),
  min_inputs: z.number().int().nonnegative(),
  max_inputs: z.number().int().nonnegative(),
  min_outputs: z.number().int().nonnegative(),
  max_outputs: z.number().int().nonnegative(),
  type_constraints: z.array(TypeConstraintSchema),
  body: FunctionBodySchema.optional(),
});

export const OperatorFileSchema = z.strictObject({
  /** "" is ai.onnx. */
  domain: z.string(),
  name: z.string().min(1),
  versions: z.array(OpVersionSchema).min(1),
});

export type AttributeSchema = z.infer<typeof AttributeSchema>;
export type FormalSchema = z.infer<typeof FormalSchema>;
export type TypeConstraintSchema = z.infer<typeof TypeConstraintSchema>;
export type FunctionBodySchema = z.infer<typeof FunctionBodySchema>;
export type OpVersionSchema = z.infer<typeof OpVersionSchema>;
export type OperatorFile = z.infer<typeof OperatorFileSchema>;

/** One resolved operator version, with its operator's identity. */
export interface OpVersion extends OpVersionSchema {
  domain: string;
  name: string;
}
