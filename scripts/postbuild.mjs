// Marks the CLI entry point executable after tsc has written it.
import { chmodSync, existsSync } from "node:fs";
const bin = new URL("../dist/cli/bin.js", import.meta.url);
if (existsSync(bin)) chmodSync(bin, 0o755);
