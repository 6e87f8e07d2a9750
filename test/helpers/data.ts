// The optional corpus-scale test data. The core sets are in the repository, so a bare clone tests
// them: ONNX's backend node tests in scope (test/data/onnx-node-tests, see its README) and the
// operator facts the schema registry is checked against (scripts/spec/operators.json, beside the
// generator that reads it). Debian's libonnx-testdata (~1,070 models) is optional: found where its
// package puts it, or at $LIBONNX_TESTDATA; a test that needs it is skipped where it is absent, and
// says so in one line naming what to install.

import { existsSync } from "node:fs";

/** Where `apt-get install libonnx-testdata` puts Debian's ONNX test models. */
export const LIBONNX_TESTDATA = process.env.LIBONNX_TESTDATA ?? "/usr/share/libonnx-testdata/data";

const said = new Set<string>();

/** Whether libonnx-testdata is installed; when not, says once what skips and how to get it. */
export function libonnxPresent(what: string): boolean {
  const present = existsSync(LIBONNX_TESTDATA);
  if (!present && !said.has(what)) {
    said.add(what);
    console.warn(
      `skipped: ${what} (needs ${LIBONNX_TESTDATA}: apt-get install libonnx-testdata, or set LIBONNX_TESTDATA)`,
    );
  }
  return present;
}
