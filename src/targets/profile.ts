// Target profiles: what a backend runs, as data (targets/<name>.json, validated here with zod).
// Per op: the opset versions supported (ranges of `since` versions, as the sources write them),
// optionally the element types, and constraints from a closed vocabulary (an input that must be
// a constant; an input's rank in a range; an attribute equal to / in a set of values; static
// dims). What a source marks partial and that this vocabulary cannot say is kept as `partial`,
// the source's words, so that such an op is never counted as fully supported.
//
// `ai.onnx-<N>` is made from the schemas (every op of ai.onnx at opset N that is not a function,
// any type). Finding profiles on disk by name is load.ts's (this module runs in the page too).

import { z } from "zod";
import { OnnxError } from "../errors.js";
import { SchemaRegistry } from "../schema/registry.js";

const Constraint = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("constant-input"), input: z.number().int().min(0), name: z.string() }),
  z.object({
    kind: z.literal("rank"),
    input: z.number().int().min(0),
    min: z.number().int().min(0),
    max: z.number().int().min(0),
  }),
  z.object({
    kind: z.literal("attribute"),
    name: z.string(),
    in: z.array(z.union([z.number(), z.string()])).min(1),
  }),
  z.object({ kind: z.literal("static-dims") }),
]);
export type Constraint = z.infer<typeof Constraint>;

const OpRow = z
  .object({
    /** "" for ai.onnx. */
    domain: z.string().default(""),
    /** Inclusive ranges of opset versions, the last one open-ended when `to` is absent. */
    versions: z.array(z.object({ from: z.number().int().min(1), to: z.number().int().optional() })),
    /** Element types supported (ONNX names: float, float16, int64, …); absent: any. */
    types: z.array(z.string()).optional(),
    constraints: z.array(Constraint).default([]),
    /** What the source says limits the op beyond the constraints (its words). */
    partial: z.string().optional(),
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
