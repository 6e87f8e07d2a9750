// Node-only: the operator files of schemas/ read from disk. The web build replaces this module by
// files.web.ts, which has them as bundled data.

import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { OnnxError } from "../errors.js";
import type { OperatorFile } from "./types.js";

/** One operator file: where it came from (for messages) and its JSON text. */
export interface SchemaFileText {
  path: string;
  text: string;
}

/** The schemas/ folder of this package, found from this module (works from src/ and dist/). */
export function defaultSchemaDir(): string {
  return fileURLToPath(new URL("../../schemas/", import.meta.url));
}

/** Every `*.json` file directly in `dir`, sorted by name. Throws E_SCHEMA when unreadable. */
export function readSchemaDir(dir: string): SchemaFileText[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith(".json"));
  } catch (e) {
    throw new OnnxError(
      "E_SCHEMA",
      `cannot read the schema folder: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      dir,
    );
  }
  names.sort();
  return names.map((f) => {
    const path = join(dir, f);
    try {
      return { path, text: readFileSync(path, "utf8") };
    } catch (e) {
      throw new OnnxError(
        "E_SCHEMA",
        `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        path,
      );
    }
  });
}

import type {
  SchemaDirStamp,
  ValidatedFile,
  ValidatedOperator,
  ValidatedSchemas,
} from "./stamp.js";

/** Where the build puts the validated operator files of schemas/. */
export const VALIDATED_SCHEMAS = new URL("./operators.validated", import.meta.url);

function hashTexts(files: readonly SchemaFileText[]): string {
  const h = createHash("sha256");
  for (const f of files) h.update(`${basename(f.path)}\u0000${f.text}\u0000`);
  return h.digest("hex");
}

/** The stamp of `dir` and its files' texts (scripts/postbuild.mjs). */
export function stampSchemaDir(dir: string): { stamp: SchemaDirStamp; texts: SchemaFileText[] } {
  const texts = readSchemaDir(dir);
  const files = texts.map((f) => {
    const s = statSync(f.path);
    return { name: basename(f.path), size: s.size, mtimeMs: s.mtimeMs };
  });
  return { stamp: { files, sha256: hashTexts(texts) }, texts };
}

/** Writes `operators` (each passed parseOperatorFile) with the stamp of their folder (the build). */
export function writeValidatedSchemas(
  file: URL | string,
  stamp: SchemaDirStamp,
  operators: readonly OperatorFile[],
): void {
  const texts = operators.map((o) => Buffer.from(JSON.stringify(o)));
  let at = 0;
  const index = operators.map((o, i): ValidatedOperator => {
    const start = at;
    at += texts[i]!.length;
    const newest = o.versions[o.versions.length - 1]!.since;
    const registeredBy = o.registered_by ? { registeredBy: o.registered_by } : {};
    return { domain: o.domain, name: o.name, ...registeredBy, newest, start, end: at };
  });
  const head: ValidatedSchemas = { stamp, operators: index };
  writeFileSync(file, Buffer.concat([Buffer.from(`${JSON.stringify(head)}\n`), ...texts]));
}

/**
 * The operator files of `dir` as validated at build time, when the folder still holds what it did
 * then: the same file names and sizes, and the same modification times or else the same texts
 * (an installed package's files get new times). Otherwise, or with no build (or a build's file of
 * another format), undefined: the caller reads and validates the folder itself.
 */
export function readValidatedSchemas(
  dir: string,
  from: URL | string | undefined = VALIDATED_SCHEMAS,
): ValidatedFile[] | undefined {
  let saved: ValidatedSchemas;
  let body: Buffer;
  let names: string[];
  try {
    const bytes = readFileSync(from ?? VALIDATED_SCHEMAS);
    const nl = bytes.indexOf(10);
    saved = JSON.parse(bytes.toString("utf8", 0, nl)) as ValidatedSchemas;
    body = bytes.subarray(nl + 1);
    names = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort();
  } catch {
    return undefined;
  }
  const want = saved.stamp?.files;
  const ops = saved.operators;
  if (!Array.isArray(want) || !Array.isArray(ops)) return undefined;
  if (!ops.every((o) => Number.isInteger(o?.start) && o.end <= body.length)) return undefined;
  if (names.length !== want.length || names.some((n, i) => n !== want[i]!.name)) return undefined;
  if (ops.length !== names.length) return undefined;
  let sameTimes = true;
  for (let i = 0; i < names.length; i++) {
    let s;
    try {
      s = statSync(join(dir, names[i]!));
    } catch {
      return undefined;
    }
    if (s.size !== want[i]!.size) return undefined;
    if (s.mtimeMs !== want[i]!.mtimeMs) sameTimes = false;
  }
  if (!sameTimes && hashTexts(readSchemaDir(dir)) !== saved.stamp.sha256) return undefined;
  return ops.map(({ domain, name, registeredBy, newest, start, end }, i) => ({
    path: join(dir, names[i]!),
    domain,
    name,
    ...(registeredBy ? { registeredBy } : {}),
    newest,
    text: () => body.toString("utf8", start, end),
  }));
}
