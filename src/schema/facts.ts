// Version facts: what an operator version takes and gives, read from its schema rather than
// written as version numbers where it is used. "Are the axes an input here?" is
// `hasInput(v, "axes")`, not `version >= 13`; the checker's rules, the interpreter's kernels and
// the converter's adapters all ask here, so a schema is the one place such a fact lives.

import {
  FACT_NAMES,
  type AttributeSchema,
  type FactName,
  type FormalSchema,
  type MeaningChange,
  type OpVersion,
} from "./types.js";
import { SchemaRegistry, normaliseDomain } from "./registry.js";

export { defaultAttribute } from "./defaults.js";

// ---- one version: its formals and attributes ----

/** The position of the formal input `name` (-1 when the version has no such input). */
export function inputIndex(v: OpVersion, name: string): number {
  return v.inputs.findIndex((f) => f.name === name);
}

/** Whether the version has a formal input called `name`. */
export function hasInput(v: OpVersion, name: string): boolean {
  return inputIndex(v, name) >= 0;
}

/** The position of the formal output `name` (-1 when the version has no such output). */
export function outputIndex(v: OpVersion, name: string): number {
  return v.outputs.findIndex((f) => f.name === name);
}

/** Whether the version has a formal output called `name`. */
export function hasOutput(v: OpVersion, name: string): boolean {
  return outputIndex(v, name) >= 0;
}

/** The version's attribute `name`, if it has one. */
export function attributeOf(v: OpVersion, name: string): AttributeSchema | undefined {
  return v.attributes.find((a) => a.name === name);
}

/** Whether the version has an attribute called `name`. */
export function hasAttribute(v: OpVersion, name: string): boolean {
  return attributeOf(v, name) !== undefined;
}

/** The default of attribute `name` (undefined when the version has no such attribute or it has no default). */
export function attributeDefault(v: OpVersion, name: string): AttributeSchema["default"] {
  return attributeOf(v, name)?.default;
}

/** The default of INT attribute `name` (undefined when there is none). */
export function intAttributeDefault(v: OpVersion, name: string): number | undefined {
  const d = attributeDefault(v, name);
  return typeof d === "number" ? d : undefined;
}

/** The default of STRING attribute `name` (undefined when there is none). */
export function stringAttributeDefault(v: OpVersion, name: string): string | undefined {
  const d = attributeDefault(v, name);
  return typeof d === "string" ? d : undefined;
}

/** Whether the version requires attribute `name` (false when it has no such attribute). */
export function isAttributeRequired(v: OpVersion, name: string): boolean {
  return attributeOf(v, name)?.required ?? false;
}

/** The type strings a formal accepts: its constraint's allowed types, or its one concrete type. */
export function formalTypes(v: OpVersion, formal: FormalSchema): readonly string[] {
  return v.type_constraints.find((c) => c.name === formal.type)?.allowed ?? [formal.type];
}

/** The type strings the formal output `name` may have ([] when the version has no such output). */
export function outputTypes(v: OpVersion, name: string): readonly string[] {
  const f = v.outputs[outputIndex(v, name)];
  return f ? formalTypes(v, f) : [];
}

// ---- an operator's versions ----

/** What the version lookups need of a registry (SchemaRegistry, or anything with its lookups). */
export type VersionSource = Pick<SchemaRegistry, "tryResolve" | "versions">;

/** The first version of an op (undefined for an unknown op). */
export function firstVersion(
  domain: string,
  op: string,
  registry: VersionSource = SchemaRegistry.default(),
): OpVersion | undefined {
  return registry.versions(domain, op)[0];
}

/**
 * The first version of an op for which `test` holds, e.g. the version from which the axes are an
 * input: `firstVersionWhere("", "ReduceMean", (v) => hasInput(v, "axes"))?.since` is 18.
 */
export function firstVersionWhere(
  domain: string,
  op: string,
  test: (v: OpVersion) => boolean,
  registry: VersionSource = SchemaRegistry.default(),
): OpVersion | undefined {
  return registry.versions(domain, op).find(test);
}

// Per registry: domain → op → opset → the version in force (null: none).
const inForce = new WeakMap<VersionSource, Map<string, Map<string, (OpVersion | null)[]>>>();

/**
 * The version of an op in force at `opset` (undefined when the op is unknown or the opset
 * precedes its first version). Cached per (registry, domain, op, opset): after the first call for
 * a triple, a lookup is three map reads, cheap enough for code that runs per node.
 */
export function versionInForce(
  domain: string,
  op: string,
  opset: number,
  registry: VersionSource = SchemaRegistry.default(),
): OpVersion | undefined {
  let byDomain = inForce.get(registry);
  if (!byDomain) inForce.set(registry, (byDomain = new Map()));
  let byOp = byDomain.get(domain);
  if (!byOp) byDomain.set(domain, (byOp = new Map()));
  let byOpset = byOp.get(op);
  if (!byOpset) byOp.set(op, (byOpset = []));
  let v = byOpset[opset];
  if (v === undefined) {
    v = registry.tryResolve(normaliseDomain(domain), op, opset) ?? null;
    if (Number.isSafeInteger(opset) && opset >= 0 && opset < 1 << 16) byOpset[opset] = v;
  }
  return v ?? undefined;
}

// ---- changes of meaning, recorded on the version that made them (`changes` in schemas/) ----

/** The changes of meaning a version records (what it does differently from the version before). */
export function meaningChanges(v: OpVersion): readonly MeaningChange[] {
  return v.changes ?? [];
}

const KNOWN_FACTS: ReadonlySet<string> = new Set(FACT_NAMES);

// Per registry: "domain op fact" → the version that records it (null: none).
const recorded = new WeakMap<VersionSource, Map<string, OpVersion | null>>();

/**
 * The version of `v`'s op that records the change of meaning `fact` (undefined when none does).
 * Cached per (registry, domain, op, fact).
 */
export function versionRecording(
  v: OpVersion,
  fact: FactName,
  registry: VersionSource = SchemaRegistry.default(),
): OpVersion | undefined {
  // A name no schema can record would hold everywhere (no version records it): refused.
  if (!KNOWN_FACTS.has(fact)) throw new Error(`unknown fact '${String(fact)}' (see FACT_NAMES)`);
  let cache = recorded.get(registry);
  if (!cache) recorded.set(registry, (cache = new Map()));
  const key = `${normaliseDomain(v.domain)}\u0000${v.name}\u0000${fact}`;
  let at = cache.get(key);
  if (at === undefined) {
    const all = registry.versions(v.domain, v.name);
    at = all.find((x) => meaningChanges(x).some((c) => c.fact === fact)) ?? null;
    cache.set(key, at);
  }
  return at ?? undefined;
}

/**
 * Whether `v` means what the change `fact` says: true from the version that records the change
 * on, and for every version of an op that records no such change (it has meant it throughout).
 */
export function hasMeaning(
  v: OpVersion,
  fact: FactName,
  registry: VersionSource = SchemaRegistry.default(),
): boolean {
  const at = versionRecording(v, fact, registry);
  return at === undefined || v.since >= at.since;
}

/**
 * Whether an elementwise op version broadcasts numpy-style. Versions from before (Add-6 and its
 * kind with `broadcast`/`axis` attributes, Max/Min/Sum/Mean-6 with equal shapes, PRelu-6 with a
 * per-channel slope) broadcast the other inputs to the first, whose shape the result has.
 */
export function broadcastsMultidirectionally(v: OpVersion, registry?: VersionSource): boolean {
  return hasMeaning(v, "multidirectional-broadcast", registry);
}

/**
 * Whether a Softmax/LogSoftmax/Hardmax version works along one axis; earlier versions flatten the
 * input to 2-D at `axis` and work along the second dimension.
 */
export function softmaxAlongAxis(v: OpVersion, registry?: VersionSource): boolean {
  return hasMeaning(v, "softmax-along-axis", registry);
}

/** Whether GroupNormalization's scale and bias hold one value per channel (per group before). */
export function scaleIsPerChannel(v: OpVersion, registry?: VersionSource): boolean {
  return hasMeaning(v, "scale-per-channel", registry);
}
