// The stamp scripts/postbuild.mjs writes beside the operator files it validated at build time
// (dist/schema/operators.json); files.node.ts reads it, files.web.ts has none.

import type { SchemaFileText } from "./files.node.js";

/** How dist/schema/operators.json (written at build time by scripts/postbuild.mjs) names a folder. */
export interface SchemaDirStamp {
  /** The `*.json` files, sorted, with their sizes and modification times. */
  files: { name: string; size: number; mtimeMs: number }[];
  /** sha256 of every file's name and text, in order. */
  sha256: string;
}

/** The operator files of a folder, validated at build time, with the stamp of the folder then. */
export interface ValidatedSchemas {
  stamp: SchemaDirStamp;
  /** Each file's parsed JSON, which passed parseOperatorFile. */
  operators: unknown[];
}
