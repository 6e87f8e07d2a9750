// Runs the CLI as a user would: a separate process, from the TypeScript sources.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const bin = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url));
const tsx = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `timeout` (ms) ends a run that hangs: it then reports code -1. */
export function runCli(
  args: string[],
  opts: { cwd?: string; input?: string; timeout?: number } = {},
): CliResult {
  const r = spawnSync(process.execPath, ["--import", tsx, bin, ...args], {
    cwd: opts.cwd ?? root,
    encoding: "utf8",
    input: opts.input,
    maxBuffer: 64 << 20,
    ...(opts.timeout !== undefined ? { timeout: opts.timeout } : {}),
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A failed run's stderr: exit 2 and exactly one "onnx-expand: error:" line matching `pattern`. */
export function expectOneLineError(r: CliResult, pattern: RegExp): void {
  expect(r.code).toBe(2);
  const lines = r.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^onnx-expand: error: /);
  expect(lines[0]).toMatch(pattern);
}
