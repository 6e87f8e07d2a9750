// Node-only: the operator files of schemas/ read from disk. The web build replaces this module by
// files.web.ts, which has them as bundled data.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { OnnxError } from "../errors.js";

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
