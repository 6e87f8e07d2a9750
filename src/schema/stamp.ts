// The stamp scripts/postbuild.mjs writes beside the operator files it validated at build time
// (dist/schema/operators.validated); files.node.ts reads it, files.web.ts has none.

import type { SchemaFileText } from "./files.node.js";

/** How dist/schema/operators.validated (written at build time by scripts/postbuild.mjs) names a folder. */
export interface SchemaDirStamp {
  /** The `*.json` files, sorted, with their sizes and modification times. */
  files: { name: string; size: number; mtimeMs: number }[];
  /** sha256 of every file's name and text, in order. */
  sha256: string;
}

/**
 * The head of dist/schema/operators.validated: the folder's stamp and, for each operator file
 * that passed parseOperatorFile, what the registry needs before parsing it. The validated files
 * follow the head's line as JSON texts, back to back; `start`/`end` are byte offsets after that
 * line. A command parses only the operators it looks up (one JSON value of all ~200 files took
 * ~11 ms of every start to parse, and as escaped strings no less).
 */
export interface ValidatedSchemas {
  stamp: SchemaDirStamp;
  operators: ValidatedOperator[];
}

/** One validated operator file in dist/schema/operators.validated. */
export interface ValidatedOperator {
  domain: string;
  name: string;
  /** A runtime's own registration in a standard domain (OperatorFile.registered_by). */
  registeredBy?: string;
  /** The `since` of its newest version. */
  newest: number;
  start: number;
  end: number;
}

/** A validated operator file from the build: its key, newest version and JSON text. */
export interface ValidatedFile {
  path: string;
  domain: string;
  name: string;
  registeredBy?: string;
  newest: number;
  /** The validated OperatorFile as JSON text (decoded on call). */
  text(): string;
}
