// The schema registry: every operator version in schemas/, validated at load, looked up by
// (domain, op, opset). Data only; function bodies are built elsewhere (builders/, body.ts).

import type { z } from "zod";
import { OnnxError } from "../errors.js";
import { OperatorFileSchema, type OperatorFile, type OpVersion } from "./types.js";
// Where the operator files come from: read from schemas/ in Node; bundled as data in the web build
// (the bundler swaps every `*.node.js` import for its `*.web.ts` sibling).
import { defaultSchemaDir, readSchemaDir, type SchemaFileText } from "./files.node.js";

import { domainLabel, normaliseDomain } from "../ir/opsets.js";

export { defaultSchemaDir, type SchemaFileText };
// "" and "ai.onnx" name the same domain; files store "".
export { domainLabel, normaliseDomain } from "../ir/opsets.js";

/** Renders a zod issue path as `versions[3].attributes[0].type`. */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out === "" ? String(p) : `.${String(p)}`;
  }
  return out === "" ? "(file)" : out;
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${fieldPath(issue.path)}: ${issue.message}`;
}

/** Parses and validates one operator file's text. Throws E_SCHEMA naming the file and the field. */
export function parseOperatorFile(text: string, where: string): OperatorFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new OnnxError("E_SCHEMA", `(file): not valid JSON: ${(e as Error).message}`, where);
  }
  const r = OperatorFileSchema.safeParse(json);
  if (!r.success) throw new OnnxError("E_SCHEMA", firstIssue(r.error), where);
  const file = r.data;
  checkConsistency(file, where);
  return file;
}

/** What zod cannot say: ordering, uniqueness, counts and type variables that agree. */
function checkConsistency(file: OperatorFile, where: string): void {
  const fail = (field: string, problem: string): never => {
    throw new OnnxError("E_SCHEMA", `${field}: ${problem}`, where);
  };
  file.versions.forEach((v, i) => {
    const at = `versions[${i}]`;
    if (i > 0 && v.since <= file.versions[i - 1]!.since)
      fail(`${at}.since`, "versions must be in increasing order of 'since'");
    const dup = (list: { name: string }[], what: string) => {
      const seen = new Set<string>();
      list.forEach((x, j) => {
        if (seen.has(x.name)) fail(`${at}.${what}[${j}].name`, `duplicate name '${x.name}'`);
        seen.add(x.name);
      });
    };
    dup(v.attributes, "attributes");
    dup(v.inputs, "inputs");
    dup(v.outputs, "outputs");
    dup(v.type_constraints, "type_constraints");
    if (v.min_inputs > v.max_inputs) fail(`${at}.min_inputs`, "greater than max_inputs");
    if (v.min_outputs > v.max_outputs) fail(`${at}.min_outputs`, "greater than max_outputs");
    const vars = new Set(v.type_constraints.map((t) => t.name));
    const formals: [string, { type: string }[]][] = [
      ["inputs", v.inputs],
      ["outputs", v.outputs],
    ];
    for (const [what, list] of formals)
      list.forEach((f, j) => {
        if (!vars.has(f.type) && !/^(tensor|seq|optional|map|sparse_tensor)\(/.test(f.type))
          fail(
            `${at}.${what}[${j}].type`,
            `'${f.type}' is neither a type constraint of this version nor a concrete type`,
          );
      });
    if (v.body && !v.function) fail(`${at}.body`, "a body is given but 'function' is false");
  });
}

export class SchemaRegistry {
  private static cached: SchemaRegistry | undefined;
  private readonly byKey = new Map<string, OpVersion[]>();
  private readonly maxByDomain = new Map<string, number>();
  readonly dir: string;

  /**
   * Loads and validates operator files: every `*.json` file directly in the folder `dir`, or the
   * given files' texts (one operator each; how the browser build gets them).
   */
  constructor(source: string | readonly SchemaFileText[] = defaultSchemaDir()) {
    this.dir = typeof source === "string" ? source : "(bundled schemas)";
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
    const key = `${domain}\u0000${file.name}`;
    if (this.byKey.has(key))
      throw new OnnxError(
        "E_SCHEMA",
        `name: operator '${file.name}' is defined by another file too`,
        where,
      );
    const versions = file.versions.map((v): OpVersion =>
      Object.freeze({ ...v, domain, name: file.name }),
    );
    this.byKey.set(key, versions);
    const last = versions[versions.length - 1]!.since;
    this.maxByDomain.set(domain, Math.max(this.maxByDomain.get(domain) ?? 0, last));
  }

  /** Every version of an operator, oldest first ([] when unknown). */
  versions(domain: string, op: string): OpVersion[] {
    return [...(this.byKey.get(`${normaliseDomain(domain)}\u0000${op}`) ?? [])];
  }

  has(domain: string, op: string): boolean {
    return this.byKey.has(`${normaliseDomain(domain)}\u0000${op}`);
  }

  /** The version in force at `opset`: the greatest `since` <= opset, or undefined. */
  tryResolve(domain: string, op: string, opset: number): OpVersion | undefined {
    const list = this.byKey.get(`${normaliseDomain(domain)}\u0000${op}`);
    if (!list) return undefined;
    let found: OpVersion | undefined;
    for (const v of list) {
      if (v.since > opset) break;
      found = v;
    }
    return found;
  }

  /** Like tryResolve, but an unknown operator or an opset before its first version is an E_SCHEMA error. */
  resolve(domain: string, op: string, opset: number): OpVersion {
    const list = this.byKey.get(`${normaliseDomain(domain)}\u0000${op}`);
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

  /** Operator names, sorted; ai.onnx ones bare, others as "domain.Op". */
  operators(): string[] {
    return [...this.byKey.keys()]
      .map((k) => {
        const [d, n] = k.split("\u0000") as [string, string];
        return d === "" ? n : `${d}.${n}`;
      })
      .sort();
  }

  /** The newest opset any operator of the domain is defined at (0 when the domain is unknown). */
  maxOpset(domain: string): number {
    return this.maxByDomain.get(normaliseDomain(domain)) ?? 0;
  }
}
