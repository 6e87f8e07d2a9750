// Browser build: the operator files of schemas/, bundled as data (the web build's esbuild plugin
// provides the virtual module "onnx-expand:schemas"). Stands in for files.node.ts.

import { config } from "zod";
import { OnnxError } from "../errors.js";
// @ts-expect-error: a virtual module of the web build (scripts/build-web.mjs)
import bundled from "onnx-expand:schemas";

// zod compiles object schemas with Function() when it may; in the page (whose Content-Security-Policy
// forbids eval) it is told not to, so it does not even try (a refused try is logged as a violation).
config({ jitless: true });

export interface SchemaFileText {
  path: string;
  text: string;
}

const DEFAULT = "schemas/";

export function defaultSchemaDir(): string {
  return DEFAULT;
}

export function readSchemaDir(dir: string): SchemaFileText[] {
  if (dir !== DEFAULT)
    throw new OnnxError("E_SCHEMA", "the browser build has only its bundled schemas", dir);
  return bundled as SchemaFileText[];
}

/** The browser build validates its bundled files when it loads them (files.node.ts trusts a build's). */
export function readValidatedSchemas(_dir: string, _from?: URL | string): undefined {
  return undefined;
}

import type { SchemaDirStamp } from "./stamp.js";

/** No build-time file in the page: its bundled schemas are validated when loaded. */
export const VALIDATED_SCHEMAS: URL | undefined = undefined;

export function stampSchemaDir(_dir: string): { stamp: SchemaDirStamp; texts: SchemaFileText[] } {
  throw new OnnxError("E_SCHEMA", "the browser build does not stamp schema folders", _dir);
}

/** The page has no build-time file to write. */
export function writeValidatedSchemas(file: URL | string): never {
  throw new OnnxError("E_SCHEMA", "the browser build writes no validated schemas", String(file));
}
