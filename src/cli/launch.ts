// How the built binary (dist/cli/bin.cjs) starts the command line: the whole program is one
// CommonJS bundle beside it, dist/cli/cli.cjs (scripts/build-cli.mjs), compiled with V8's code
// cache, which the build made by running the commands once (scripts/cli-cache.mjs). Node 20
// keeps no code cache for ES modules, and compiling a command's code was a fifth of a small
// `run`; from the cache, V8 takes the compiled code instead of parsing the source.
//
// V8 trusts cache data as it is (a damaged cache can crash the process) and checks only the
// source's length, so the cache file's first line names the Node that made it and the CRC-32 of
// the bundle and of the data; a cache that does not match is not used.

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { crc32 } from "node:zlib";

/** What cli.cjs exports. */
export interface CliBundle {
  startCli(argv: string[]): Promise<void>;
}

function stamp(source: Buffer, data: Buffer): string {
  return JSON.stringify([
    process.version,
    process.arch,
    process.platform,
    crc32(source),
    crc32(data),
  ]);
}

/** The cache file's bytes for the bundle's source and V8's cache data (scripts/cli-cache.mjs). */
export function cacheFile(source: Buffer, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${stamp(source, data)}\n`), data]);
}

/** The cache data in `<bundle>.cache` when it was made by this Node for `source`, intact. */
function readCache(bundle: string, source: Buffer): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(`${bundle}.cache`);
  } catch {
    return undefined;
  }
  const nl = bytes.indexOf(10);
  if (nl < 0) return undefined;
  const data = bytes.subarray(nl + 1);
  return bytes.toString("utf8", 0, nl) === stamp(source, data) ? data : undefined;
}

/**
 * Compiles and runs the bundle as Node runs a CommonJS module (the same wrapper each time, so
 * that a cache made from one compile fits the next), from its cache unless `cache` is false.
 * `script` makes a cache; `cached` says whether one was given.
 */
export function loadBundle(
  bundle: string,
  cache = true,
): { cli: CliBundle; script: Script; cached: boolean } {
  const source = readFileSync(bundle);
  const cachedData = cache ? readCache(bundle, source) : undefined;
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${source.toString("utf8")}\n})`,
    { filename: bundle, cachedData },
  );
  const module = { exports: {} as CliBundle };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return { cli: module.exports, script, cached: cachedData !== undefined };
}

/**
 * Runs the command line: built, from the bundle beside this file with its cache; from the
 * sources (tests, development), program.ts directly.
 */
export async function launch(argv: string[]): Promise<void> {
  const bundle = fileURLToPath(new URL("./cli.cjs", import.meta.url));
  const cli = existsSync(bundle) ? loadBundle(bundle).cli : await import("./program.js");
  await cli.startCli(argv);
}
