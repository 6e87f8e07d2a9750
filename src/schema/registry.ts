// The schema registry: every operator version in schemas/, validated at load, looked up by
// (domain, op, opset). Data only; function bodies are built elsewhere (builders/, body.ts).

import { OnnxError } from "../errors.js";
import type { OperatorFile, OpVersion } from "./types.js";
// zod and the rules it cannot state; the CLI's bundle loads this module only when it validates
// (scripts/build-cli.mjs), the build having validated schemas/ already.
import { validateOperatorFile } from "./validate.js";
// Where the operator files come from: read from schemas/ in Node; bundled as data in the web build
// (the bundler swaps every `*.node.js` import for its `*.web.ts` sibling).
import {
  defaultSchemaDir,
  readSchemaDir,
  readValidatedSchemas,
  type SchemaFileText,
} from "./files.node.js";

import { domainLabel, normaliseDomain } from "../ir/opsets.js";

export { defaultSchemaDir, type SchemaFileText };
// "" and "ai.onnx" name the same domain; files store "".
export { domainLabel, normaliseDomain } from "../ir/opsets.js";

/** Parses and validates one operator file's text. Throws E_SCHEMA naming the file and the field. */
export function parseOperatorFile(text: string, where: string): OperatorFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new OnnxError("E_SCHEMA", `(file): not valid JSON: ${(e as Error).message}`, where);
  }
  const r = validateOperatorFile(json);
  if (r.problem !== undefined) throw new OnnxError("E_SCHEMA", r.problem, where);
  return r.file;
}

function duplicate(name: string, where: string): OnnxError {
  return new OnnxError(
    "E_SCHEMA",
    `name: operator '${name}' is defined by another file too`,
    where,
  );
}

/** The key of a runtime's own registration in a standard domain (kept apart from the standard's). */
const RUNTIME = "\u0001";

export class SchemaRegistry {
  private static cached: SchemaRegistry | undefined;
  /** Operators by `domain\0name`; a runtime's registrations in a standard domain by
   * `\u0001domain\0name` (resolved only where the domain has no version of the op). */
  private readonly byKey = new Map<string, OpVersion[]>();
  /** Operators validated at build time and not looked up yet: their file's JSON text. */
  private readonly pending = new Map<string, { text: () => string; where: string }>();
  private readonly maxByDomain = new Map<string, number>();
  readonly dir: string;

  /**
   * Loads and validates operator files: every `*.json` file directly in the folder `dir`, or the
   * given files' texts (one operator each; how the browser build gets them).
   */
  constructor(
    source: string | readonly SchemaFileText[] = defaultSchemaDir(),
    /** The build's validated files (tests name another). */
    validatedFile?: URL | string,
  ) {
    this.dir = typeof source === "string" ? source : "(bundled schemas)";
    // The build validated this package's schemas/ already (scripts/postbuild.mjs): when the
    // folder is unchanged since, its files are taken as they were then, without zod, and each is
    // parsed on its first look-up (start-up).
    const validated =
      typeof source === "string" ? readValidatedSchemas(source, validatedFile) : undefined;
    if (validated) {
      for (const f of validated) {
        const domain = normaliseDomain(f.domain);
        const key = `${f.registeredBy ? RUNTIME : ""}${domain}\u0000${f.name}`;
        if (this.pending.has(key)) throw duplicate(f.name, f.path);
        this.pending.set(key, { text: f.text, where: f.path });
        if (!f.registeredBy)
          this.maxByDomain.set(domain, Math.max(this.maxByDomain.get(domain) ?? 0, f.newest));
      }
      return;
    }
    const files = typeof source === "string" ? readSchemaDir(source) : source;
    for (const f of files) this.add(parseOperatorFile(f.text, f.path), f.path);
  }

  /** A registry of operator files given as data (no filesystem). */
  static fromFiles(files: readonly SchemaFileText[]): SchemaRegistry {
    return new SchemaRegistry(files);
  }

  /** The registry of this package's schemas/, loaded once. */
  static default(): SchemaRegistry {
    SchemaRegistry.cached ??= new SchemaRegistry();
    return SchemaRegistry.cached;
  }

  private add(file: OperatorFile, where: string): void {
    const domain = normaliseDomain(file.domain);
    const runtime = file.registered_by;
    const key = `${runtime ? RUNTIME : ""}${domain}\u0000${file.name}`;
    if (this.byKey.has(key) || this.pending.has(key)) throw duplicate(file.name, where);
    const versions = file.versions.map((v): OpVersion =>
      Object.freeze({
        ...v,
        domain,
        name: file.name,
        ...(runtime ? { registeredBy: runtime } : {}),
      }),
    );
    this.byKey.set(key, versions);
    if (runtime) return;
    const last = versions[versions.length - 1]!.since;
    this.maxByDomain.set(domain, Math.max(this.maxByDomain.get(domain) ?? 0, last));
  }

  /** The versions of the operator under `key`, its file parsed on the first look-up. */
  private list(key: string): OpVersion[] | undefined {
    const found = this.byKey.get(key);
    if (found) return found;
    const p = this.pending.get(key);
    if (!p) return undefined;
    this.pending.delete(key);
    this.add(JSON.parse(p.text()) as OperatorFile, p.where);
    return this.byKey.get(key);
  }

  /** Every version of an operator, oldest first ([] when unknown). */
  versions(domain: string, op: string): OpVersion[] {
    return [...(this.list(`${normaliseDomain(domain)}\u0000${op}`) ?? [])];
  }

  /** Whether the domain has the operator (in its standard, or as a runtime's registration). */
  has(domain: string, op: string): boolean {
    const key = `${normaliseDomain(domain)}\u0000${op}`;
    return (
      this.byKey.has(key) ||
      this.pending.has(key) ||
      this.byKey.has(RUNTIME + key) ||
      this.pending.has(RUNTIME + key)
    );
  }

  /**
   * The version in force at `opset`: the greatest `since` <= opset, or undefined. Where the
   * domain itself has no version of the op at the opset, a runtime's own registration of it there
   * (onnxruntime's LayerNormalization-1 at ai.onnx opset 14; its `registeredBy` says whose).
   */
  tryResolve(domain: string, op: string, opset: number): OpVersion | undefined {
    const key = `${normaliseDomain(domain)}\u0000${op}`;
    return inForce(this.list(key), opset) ?? inForce(this.list(RUNTIME + key), opset);
  }

  /** Like tryResolve, without runtimes' registrations: the version the standard itself has. */
  tryResolveStandard(domain: string, op: string, opset: number): OpVersion | undefined {
    return inForce(this.list(`${normaliseDomain(domain)}\u0000${op}`), opset);
  }

  /** Like tryResolve, but an unknown operator or an opset before its first version is an E_SCHEMA error. */
  resolve(domain: string, op: string, opset: number): OpVersion {
    const key = `${normaliseDomain(domain)}\u0000${op}`;
    const list = this.list(key) ?? this.list(RUNTIME + key);
    if (!list)
      throw new OnnxError(
        "E_SCHEMA",
        `unknown operator '${op}' in domain '${domainLabel(normaliseDomain(domain))}'`,
      );
    const v = this.tryResolve(domain, op, opset);
    if (!v)
      throw new OnnxError(
        "E_SCHEMA",
        `operator '${op}' is not defined at opset ${opset} (first version: ${list[0]!.since})`,
      );
    return v;
  }

  /** Operator names, sorted; ai.onnx ones bare, others as "domain.Op" (runtimes' own
   * registrations in a standard domain are not listed: see runtimeRegistrations). */
  operators(): string[] {
    return [...this.byKey.keys(), ...this.pending.keys()]
      .filter((k) => !k.startsWith(RUNTIME))
      .map((k) => {
        const [d, n] = k.split("\u0000") as [string, string];
        return d === "" ? n : `${d}.${n}`;
      })
      .sort();
  }

  /** A runtime's own registrations in standard domains: [domain, op] pairs, sorted. */
  runtimeRegistrations(): [string, string][] {
    return [...this.byKey.keys(), ...this.pending.keys()]
      .filter((k) => k.startsWith(RUNTIME))
      .map((k) => k.slice(1).split("\u0000") as [string, string])
      .sort((a, b) => (a.join() < b.join() ? -1 : 1));
  }

  /** The newest opset any operator of the domain is defined at (0 when the domain is unknown). */
  maxOpset(domain: string): number {
    return this.maxByDomain.get(normaliseDomain(domain)) ?? 0;
  }
}

/** The version of `list` in force at `opset`. */
function inForce(list: OpVersion[] | undefined, opset: number): OpVersion | undefined {
  if (!list) return undefined;
  let found: OpVersion | undefined;
  for (const v of list) {
    if (v.since > opset) break;
    found = v;
  }
  return found;
}
