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

/**
 * The changes of meaning the schemas record, by the name `schema/facts.ts` asks them by: a new
 * one is added here, and zod checks every schema file's `fact` against the list (a misspelt name
 * in a file is an error at load, in code a type error).
 */
export const FACT_NAMES = [
  "half-pixel-symmetric",
  "heads-for-3d-only",
  "linear-mode-names",
  "multidirectional-broadcast",
  "scale-per-channel",
  "softmax-along-axis",
  "wrap-mode",
] as const;

export type FactName = (typeof FACT_NAMES)[number];

/**
 * A change of meaning recorded on the version that made it: what the version does differently
 * from the one before, which its signature does not show (GroupNormalization-21: scale and bias
 * per channel). `schema/facts.ts` answers questions by `fact`; the converter's plan reads
 * `breaks` as the steps across this version that change a node's meaning.
 */
export const MeaningChangeSchema = z.strictObject({
  kind: z.literal("meaning"),
  /** The name facts.ts asks by, e.g. "scale-per-channel" (one of FACT_NAMES). */
  fact: z.enum(FACT_NAMES),
  /** The change in words, as the converter's plan states it for a step up. */
  what: z.string().min(1),
  /** Steps across this version (from the version before: "up"; back to it: "down") that the
   * signature diff does not show as breaking, so that a node needs an adapter to take them. */
  breaks: z.array(z.enum(["up", "down"])),
  /** How a step down states the change, when it reads differently from `what`. */
  what_down: z.string().min(1).optional(),
});

export { Unbounded } from "./unbounded.js";

export const OpVersionSchema = z.strictObject({
  since: z.number().int().positive(),
  /** Where the facts come from when not ONNX: the runtime release ("onnxruntime 1.30.0"), since
   * onnxruntime edits its ops in place without new versions. */
  source: z.string().min(1).optional(),
  description: z.string().optional(),
  deprecated: z.boolean().optional(),
  experimental: z.boolean().optional(),
  /** True when ONNX defines the version as a function (for onnxruntime's ops: when a body in
   * standard ops computes the same function, given here). */
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
  /** Changes of meaning this version made (hand-written in schemas/_overlay/). */
  changes: z.array(MeaningChangeSchema).optional(),
});

export const OperatorFileSchema = z.strictObject({
  /** "" is ai.onnx. */
  domain: z.string(),
  name: z.string().min(1),
  /**
   * A runtime's own registration in a standard domain at versions the standard lacks
   * (onnxruntime's LayerNormalization-1 and SimplifiedLayerNormalization-1 in ai.onnx): resolved
   * only where the domain has no version of the op at the opset, and named as the runtime's.
   */
  registered_by: z.literal("onnxruntime").optional(),
  versions: z.array(OpVersionSchema).min(1),
});

export type AttributeSchema = z.infer<typeof AttributeSchema>;
export type FormalSchema = z.infer<typeof FormalSchema>;
export type TypeConstraintSchema = z.infer<typeof TypeConstraintSchema>;
export type FunctionBodySchema = z.infer<typeof FunctionBodySchema>;
export type MeaningChange = z.infer<typeof MeaningChangeSchema>;
export type OpVersionSchema = z.infer<typeof OpVersionSchema>;
export type OperatorFile = z.infer<typeof OperatorFileSchema>;

/** One resolved operator version, with its operator's identity. */
export interface OpVersion extends OpVersionSchema {
  domain: string;
  name: string;
  /** Set on a runtime's own registration in a standard domain (OperatorFile.registered_by). */
  registeredBy?: string;
}
