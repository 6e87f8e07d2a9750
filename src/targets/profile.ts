// Target profiles: what a backend runs, as data (targets/<name>.json, validated here with zod).
// Per op: the opset versions supported (ranges of `since` versions, as the sources write them),
// optionally the element types, and constraints from a closed vocabulary (below: constant or
// absent inputs, ranks, attribute values and ranges, static dims, element types per input, the
// values of a constant input, alternatives). A node that fails one is `partial` (the backend
// does not take it). What a source says and no constraint can check is a `caveat`: the node
// counts as supported, with the caveat listed beside it, as onnxruntime's own checker lists them.
//
// `ai.onnx-<N>` is made from the schemas (every op of ai.onnx at opset N that is not a function,
// any type). Finding profiles on disk by name is load.ts's (this module runs in the page too).

import { z } from "zod";
import { OnnxError } from "../errors.js";
import { SchemaRegistry } from "../schema/registry.js";

const Value = z.union([z.number(), z.string()]);
const Input = { input: z.number().int().min(0), name: z.string() };

/** One condition a node must meet; `any` holds when every condition of one alternative does. */
export type Constraint =
  | { kind: "constant-input"; input: number; name: string }
  | { kind: "absent-input"; input: number; name: string }
  | { kind: "absent-output"; output: number; name: string }
  | { kind: "max-outputs"; max: number }
  | { kind: "rank"; input?: number; min: number; max: number }
  | {
      kind: "attribute";
      name: string;
      in?: (number | string)[];
      notIn?: (number | string)[];
      min?: number;
      max?: number;
      absent?: true;
    }
  | { kind: "given-input"; input: number; name: string }
  | { kind: "static-dims"; input?: number; output?: number; axisFrom?: string; nonEmpty?: true }
  | { kind: "input-types"; input: number; name: string; types: string[] }
  | { kind: "output-types"; output: number; name: string; types: string[] }
  | {
      kind: "input-values";
      input: number;
      name: string;
      min?: number;
      max?: number;
      notIn?: number[];
      equalsDim?: { input: number; axis: number };
    }
  | { kind: "dims-equal"; input: number; output: number; axis: number }
  | { kind: "even-split" }
  | { kind: "every-axis"; attribute: string }
  | { kind: "not-downsampling" }
  | { kind: "symmetric-pads" }
  | { kind: "kernel-matches-weight" }
  | { kind: "same-activations" }
  | { kind: "branches-agree" }
  | { kind: "any"; of: Constraint[][] };

const Constraint: z.ZodType<Constraint> = z.lazy(() =>
  z.discriminatedUnion("kind", [
    // input k must be a constant (an initializer or a Constant's output); absent: holds
    z.object({ kind: z.literal("constant-input"), ...Input }).strict(),
    // input k must be absent (the op's optional input the backend does not take)
    z.object({ kind: z.literal("absent-input"), ...Input }).strict(),
    z
      .object({
        kind: z.literal("absent-output"),
        output: z.number().int().min(0),
        name: z.string(),
      })
      .strict(),
    // at most this many outputs used (BatchNormalization's, MaxPool's "one output")
    z.object({ kind: z.literal("max-outputs"), max: z.number().int().min(0) }).strict(),
    // input k's rank in [min, max]; without `input`, every input's rank
    z
      .object({
        kind: z.literal("rank"),
        input: z.number().int().min(0).optional(),
        min: z.number().int().min(0),
        max: z.number().int().min(0),
      })
      .strict(),
    // the attribute's value (the schema's default when the node leaves it out; each element of a
    // list): in a set, not in a set, in a range; or `absent`: not set at all
    z
      .object({
        kind: z.literal("attribute"),
        name: z.string(),
        in: z.array(Value).min(1).optional(),
        notIn: z.array(Value).min(1).optional(),
        min: z.number().optional(),
        max: z.number().optional(),
        absent: z.literal(true).optional(),
      })
      .strict(),
    // input k must be given (an optional input the backend needs)
    z.object({ kind: z.literal("given-input"), ...Input }).strict(),
    // the dims of input k (or output k; without either: of every input) known before running;
    // with `axisFrom`, only the dim at the axis that attribute names; `nonEmpty`: none of them 0
    z
      .object({
        kind: z.literal("static-dims"),
        input: z.number().int().min(0).optional(),
        output: z.number().int().min(0).optional(),
        axisFrom: z.string().optional(),
        nonEmpty: z.literal(true).optional(),
      })
      .strict(),
    // input k's element type among these (ONNX names)
    z
      .object({ kind: z.literal("input-types"), ...Input, types: z.array(z.string()).min(1) })
      .strict(),
    // output k's element type among these (a quantizer's result)
    z
      .object({
        kind: z.literal("output-types"),
        output: z.number().int().min(0),
        name: z.string(),
        types: z.array(z.string()).min(1),
      })
      .strict(),
    // input k's values, known before running (a constant), each in [min, max], none of `notIn`,
    // each equal to a dim of another input (`equalsDim`); input absent: holds
    z
      .object({
        kind: z.literal("input-values"),
        ...Input,
        min: z.number().optional(),
        max: z.number().optional(),
        notIn: z.array(z.number()).min(1).optional(),
        equalsDim: z
          .object({ input: z.number().int().min(0), axis: z.number().int().min(0) })
          .strict()
          .optional(),
      })
      .strict(),
    // input k's dim `axis` equals output m's (a cache's length, say); absent either: holds
    z
      .object({
        kind: z.literal("dims-equal"),
        input: z.number().int().min(0),
        output: z.number().int().min(0),
        axis: z.number().int().min(0),
      })
      .strict(),
    // Split without sizes: the axis divides evenly into the outputs
    z.object({ kind: z.literal("even-split") }).strict(),
    // the attribute, when set, lists every axis of input 0 in order (0, 1, …, rank − 1; a
    // negative axis counted from the end): TensorRT's Resize `axes` with `scales`
    z.object({ kind: z.literal("every-axis"), attribute: z.string() }).strict(),
    // Resize: no output dim smaller than its input dim
    z.object({ kind: z.literal("not-downsampling") }).strict(),
    // the `pads` attribute: each axis's begin equal to its end
    z.object({ kind: z.literal("symmetric-pads") }).strict(),
    // a `kernel_shape` given matches the weight's (input 1's) spatial dims
    z.object({ kind: z.literal("kernel-matches-weight") }).strict(),
    // a bidirectional RNN/GRU/LSTM: the same activations forward and backward
    z.object({ kind: z.literal("same-activations") }).strict(),
    // If: the two branches' outputs of the same rank each, and of different names
    z.object({ kind: z.literal("branches-agree") }).strict(),
    z.object({ kind: z.literal("any"), of: z.array(z.array(Constraint)).min(2) }).strict(),
  ]),
);

const OpRow = z
  .object({
    /** "" for ai.onnx. */
    domain: z.string().default(""),
    /** Inclusive ranges of opset versions, the last one open-ended when `to` is absent. */
    versions: z.array(z.object({ from: z.number().int().min(1), to: z.number().int().optional() })),
    /** Element types supported (ONNX names: float, float16, int64, …); absent: any. */
    types: z.array(z.string()).optional(),
    constraints: z.array(Constraint).default([]),
    /**
     * What the source says and nothing here can check (a numeric difference, a builder's rules
     * too many to state): the node counts as supported, with this listed beside it.
     */
    caveat: z.string().optional(),
  })
  .strict();
export type OpRow = z.infer<typeof OpRow>;

const ProfileFile = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9.-]*$/),
    /** The profile's own version (a new file when the facts change). */
    version: z.number().int().min(1),
    backend: z.string(),
    backendVersion: z.string(),
    source: z.object({ url: z.string(), commit: z.string().optional(), date: z.string() }),
    /** Opset range of ai.onnx the backend takes. */
    opset: z.object({ min: z.number().int().min(1), max: z.number().int().min(1) }),
    /** Constraints on every node, beside each op's own (the judge's static shapes, say). */
    everyNode: z.array(Constraint).optional(),
    /** Keyed by op name ("Op" for ai.onnx, "domain.Op" otherwise). */
    ops: z.record(z.string(), OpRow),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.opset.min > p.opset.max)
      ctx.addIssue({
        code: "custom",
        path: ["opset"],
        message: `min ${p.opset.min} is above max ${p.opset.max}: the range is empty`,
      });
  });
export type Profile = z.infer<typeof ProfileFile>;

/** A profile from JSON text; errors name the file and the field. */
export function parseProfile(text: string, where: string): Profile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new OnnxError("E_USAGE", `not JSON: ${(e as Error).message}`, where);
  }
  // The old blanket `partial` marked every node of an op: say what takes its place.
  const ops = (json as { ops?: Record<string, unknown> } | null)?.ops;
  for (const [op, row] of Object.entries(ops && typeof ops === "object" ? ops : {}))
    if (row && typeof row === "object" && "partial" in row)
      throw new OnnxError(
        "E_USAGE",
        `ops.${op}.partial: no longer read; write the limit as constraints, or as a 'caveat' where nothing can check it (targets/README.md)`,
        where,
      );
  const r = ProfileFile.safeParse(json);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new OnnxError("E_USAGE", `${i.path.join(".") || "profile"}: ${i.message}`, where);
  }
  return r.data;
}

/** `ai.onnx-N`: every ai.onnx op at opset N that is not a function op, any element type. */
export function plainOpsetProfile(n: number, registry = SchemaRegistry.default()): Profile {
  const max = registry.maxOpset("");
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new OnnxError(
      "E_USAGE",
      `ai.onnx-${n}: opset ${n} is not one this tool knows (1 to ${max})`,
    );
  const ops: Record<string, OpRow> = Object.create(null);
  for (const name of registry.operators()) {
    if (name.includes(".")) continue;
    const v = registry.tryResolveStandard("", name, n);
    if (!v || v.function || v.deprecated) continue;
    ops[name] = { domain: "", versions: [{ from: v.since, to: v.since }], constraints: [] };
  }
  return {
    name: `ai.onnx-${n}`,
    version: 1,
    backend: `plain ONNX opset ${n} (no function ops)`,
    backendVersion: String(n),
    source: { url: "schemas/ (this tool's operator schemas)", date: "" },
    opset: { min: n, max: n },
    ops,
  };
}

/** The profile's row for an op, and whether `since` (the version in force) is supported. */
export function rowFor(p: Profile, domain: string, op: string): OpRow | undefined {
  const d = domain === "ai.onnx" ? "" : domain;
  const key = d ? `${d}.${op}` : op;
  // The key is the model's: an op named `constructor` has no row.
  return Object.hasOwn(p.ops, key) ? p.ops[key] : undefined;
}

export function versionSupported(row: OpRow, since: number): boolean {
  return row.versions.some((r) => since >= r.from && (r.to === undefined || since <= r.to));
}

/**
 * The ops and versions a profile supports, as `--target-ops` selectors (`{ domain, op, version }`
 * with version an opset at which that version is in force): what `expand --target` keeps; the
 * function ops the target lacks are expanded. Constraints are not a reason to expand (a body
 * does not lift them).
 */
export function profileOps(
  p: Profile,
  registry = SchemaRegistry.default(),
): { domain: string; op: string; version: number }[] {
  // Constant is data: every backend takes it (as an initializer).
  const out: { domain: string; op: string; version: number }[] = registry
    .versions("", "Constant")
    .map((v) => ({ domain: "", op: "Constant", version: v.since }));
  for (const [key, row] of Object.entries(p.ops)) {
    const op = row.domain ? key.slice(row.domain.length + 1) : key;
    for (const v of registry.versions(row.domain, op))
      if (versionSupported(row, v.since)) out.push({ domain: row.domain, op, version: v.since });
  }
  return out;
}
