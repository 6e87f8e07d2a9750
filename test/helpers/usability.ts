// The set-up the tests that ask onnxruntime's own usability checker share
// (scripts/targets/ort-usability.ts): its Python, the reason a suite is skipped without it, and
// a scratch folder for the files it reads, removed after the test file.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { NO_USABILITY_PYTHON, usabilityPython } from "../../scripts/targets/ort-usability.js";

export { estimateOf, usability } from "../../scripts/targets/ort-usability.js";

export interface CheckerSetUp {
  /** The Python with onnxruntime and onnx, or undefined where there is none (skip the suite). */
  python: string | undefined;
  /** For a suite's title: "" with the Python, " (why not)" without. */
  absent: string;
  /** A fresh scratch folder, removed after the test file's tests. */
  work: string;
}

/** Call at a test file's top level: `prefix` names its scratch folder. */
export function checkerSetUp(prefix: string): CheckerSetUp {
  const python = usabilityPython();
  const work = mkdtempSync(join(tmpdir(), `${prefix}-`));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  return { python, absent: python ? "" : ` (${NO_USABILITY_PYTHON})`, work };
}
