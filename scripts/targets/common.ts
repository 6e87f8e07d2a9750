// Shared by the profile writers that read a backend's operator table from a file (from-coreml,
// from-nnapi, from-openvino, from-onnx-mlir): the schemas' view of an op (the version in force at
// an opset, input positions, the element types its type constraints allow), a short digest of a
// source's note (so that a rerun notices a note that changed without the note being copied
// here), and writing targets/<name>.json through prettier.

import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { format, resolveConfig } from "prettier";
import { SchemaRegistry } from "../../src/schema/registry.js";
import type { Constraint, OpRow, Profile } from "../../src/targets/profile.js";

export const registry = SchemaRegistry.default();
const root = join(import.meta.dirname, "..", "..");

/** The first 8 hex digits of the note's sha-1 (whitespace collapsed). */
export function digest(note: string): string {
  return createHash("sha1").update(note.replace(/\s+/g, " ").trim()).digest("hex").slice(0, 8);
}

/** The `since` of the version in force at `opset` (undefined: none yet). */
export function sinceAt(domain: string, op: string, opset: number): number | undefined {
  return registry.tryResolveStandard(domain, op, opset)?.since;
}

/** The op's name as the schemas spell it, matched without case ("Argmax" → "ArgMax"). */
export function schemaName(domain: string, op: string): string | undefined {
  if (registry.has(domain, op)) return op;
  const prefix = domain ? `${domain}.` : "";
  const lower = `${prefix}${op}`.toLowerCase();
  const hit = registry
    .operators()
    .find((k) => k.toLowerCase() === lower && (domain ? true : !k.includes(".")));
  return hit?.slice(prefix.length);
}

/** The position of an input (or output) as the op's newest version names it. */
export function position(domain: string, op: string, name: string, output = false): number {
  const v = registry.versions(domain, op).at(-1);
  const k = (output ? v?.outputs : v?.inputs)?.findIndex((i) => i.name === name) ?? -1;
  if (k < 0)
    throw new Error(`${domain || "ai.onnx"}.${op} has no ${output ? "output" : "input"} '${name}'`);
  return k;
}

/** Constant-input constraints for inputs named as the op's newest version names them. */
export function constantInputs(domain: string, op: string, names: string[]): Constraint[] {
  return names.map((name) => ({ kind: "constant-input", input: position(domain, op, name), name }));
}

/** Absent-input constraints (optional inputs the backend does not take), by name. */
export function absentInputs(domain: string, op: string, names: string[]): Constraint[] {
  return names.map((name) => ({ kind: "absent-input", input: position(domain, op, name), name }));
}

/** Absent-output constraints (optional outputs the backend does not produce), by name. */
export function absentOutputs(domain: string, op: string, names: string[]): Constraint[] {
  return names.map((name) => ({
    kind: "absent-output",
    output: position(domain, op, name, true),
    name,
  }));
}

/** The element types of inputs, by name. */
export function inputTypes(
  domain: string,
  op: string,
  names: string[],
  types: string[],
): Constraint[] {
  return names.map((name) => ({
    kind: "input-types",
    input: position(domain, op, name),
    name,
    types,
  }));
}

/** The tensor element types the op's type constraints allow at an opset (every constraint). */
export function tensorTypes(domain: string, op: string, opset: number): string[] {
  const v = registry.tryResolveStandard(domain, op, opset);
  if (!v) throw new Error(`${op} is not defined at opset ${opset}`);
  const out = new Set<string>();
  for (const c of v.type_constraints ?? [])
    for (const t of c.allowed) {
      const m = /^tensor\((\w+)\)$/.exec(t);
      if (m) out.add(m[1]!);
    }
  return [...out].sort();
}

/** One row with the fields in the order the shipped profiles use. */
export function row(
  domain: string,
  versions: OpRow["versions"],
  limits: { types?: string[]; constraints?: Constraint[]; caveat?: string } = {},
): OpRow {
  return {
    domain,
    versions,
    ...(limits.types ? { types: limits.types } : {}),
    constraints: limits.constraints ?? [],
    ...(limits.caveat ? { caveat: limits.caveat } : {}),
  };
}

/** Writes targets/<name>.json (prettier-formatted) and prints its counts. */
/** Where the scripts write profiles: targets/, or TARGETS_OUT (a test's folder, say). */
export const targetsDir = (): string => process.env.TARGETS_OUT ?? join(root, "targets");

export async function writeProfile(profile: Profile): Promise<void> {
  const out = join(targetsDir(), `${profile.name}.json`);
  const config = (await resolveConfig(out)) ?? {};
  writeFileSync(out, await format(JSON.stringify(profile), { ...config, filepath: out }));
  const rows = Object.values(profile.ops);
  console.log(
    `${profile.name}: opset ${profile.opset.min}-${profile.opset.max}, ${rows.length} ops, ` +
      `${rows.filter((r) => r.types).length} with types, ` +
      `${rows.reduce((n, r) => n + r.constraints.length, 0)} constraints, ` +
      `${rows.filter((r) => r.caveat).length} with a caveat`,
  );
}

/** The rows of onnxruntime's EP tables ("|ai.onnx:Op|note|"): domain ("" for ai.onnx), op, note. */
export function ortTableRows(text: string): { domain: string; op: string; note: string }[] {
  const rows: { domain: string; op: string; note: string }[] = [];
  for (const line of text.split("\n")) {
    const m = /^\|(ai\.onnx|com\.microsoft):(\w+)\|(.*)\|\s*$/.exec(line.trim());
    if (!m) continue;
    rows.push({ domain: m[1] === "ai.onnx" ? "" : m[1]!, op: m[2]!, note: m[3]!.trim() });
  }
  return rows;
}

/** How a note of a source reads in this tool's terms. */
export interface Limits {
  /** The digest of the note this reading is of. */
  note: string;
  types?: string[];
  constraints?: Constraint[];
  /**
   * What nothing can check (a numeric difference, rules too many to state), in short words of
   * our own: the node counts as supported, with this caveat beside it.
   */
  caveat?: string;
  /** The note describes, it does not limit (how onnxruntime produces the op, say). */
  informative?: true;
}

/**
 * The rows of an onnxruntime EP table as profile ops: each op's versions in force up to
 * `opsetMax` (its first version when it has none by then: the table says it runs), a
 * com.microsoft op's versions from the schemas; each note through its reading in `notes`,
 * stopping on a note that is new, changed or gone.
 */
export function ortOps(
  text: string,
  notes: Record<string, Limits>,
  opsetMax: number,
): Record<string, OpRow> {
  const ops: Record<string, OpRow> = {};
  for (const r of ortTableRows(text)) {
    const op = schemaName(r.domain, r.op);
    if (!op) throw new Error(`${r.op}: not an op the schemas know`);
    const key = r.domain ? `${r.domain}.${op}` : op;
    const limits = notes[key];
    if (r.note && (!limits || limits.note !== digest(r.note)))
      throw new Error(`${key}: the note is new or changed (digest ${digest(r.note)}): read it`);
    if (!r.note && limits) throw new Error(`${key}: the note is gone: drop its reading`);
    const all = registry.versions(r.domain, op).map((v) => v.since);
    const to = r.domain ? all.at(-1)! : (sinceAt("", op, opsetMax) ?? all[0]!);
    ops[key] = row(r.domain, [{ from: all[0]!, to }], limits?.informative ? {} : limits);
  }
  for (const key of Object.keys(notes))
    if (!ops[key]) throw new Error(`${key}: read in the notes, not in the table`);
  return ops;
}
