// Golden files: text a test produces, compared with a file under test/golden/. Tests never create
// or rewrite these files on their own: `npm run golden:update` (UPDATE_GOLDEN=1 for the golden
// tests) writes them, and `git diff test/golden` shows what changed.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

/** The one command that rewrites every golden file. */
export const GOLDEN_UPDATE = "npm run golden:update";

/** Whether this run writes golden files instead of comparing with them. */
export const updatingGolden = (): boolean => process.env.UPDATE_GOLDEN === "1";

/**
 * Expects `actual` to equal the golden file at `path`. When updating, writes it instead. A missing
 * file fails, naming the command that makes it.
 */
export function expectGolden(path: string | URL, actual: string): void {
  const file = typeof path === "string" ? path : fileURLToPath(path);
  if (updatingGolden()) {
    writeFileSync(file, actual);
    return;
  }
  if (!existsSync(file))
    throw new Error(`golden file ${file} is missing: run \`${GOLDEN_UPDATE}\` and review it`);
  expect(actual, `${file} differs (after an intended change: ${GOLDEN_UPDATE})`).toBe(
    readFileSync(file, "utf8"),
  );
}
