// The Python with ONNX that the benchmarks compare against: $ONNX_PYTHON when set (taken as it
// is), else the virtual environment $ONNX_VENV (default corpus/venv-onnx in the repository, which
// git ignores), made with `pip install onnx==1.23.1` when it is missing.

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export const ONNX_VERSION = "1.23.1";

export interface OnnxPython {
  bin: string;
  /** onnx.__version__ as that Python reports it. */
  version: string;
}

function probe(bin: string): string | undefined {
  const r = spawnSync(bin, ["-c", "import onnx; print(onnx.__version__)"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The Python to compare with, or undefined (with the reason printed) when none can be had. */
export function onnxPython(): OnnxPython | undefined {
  const given = process.env.ONNX_PYTHON;
  if (given) {
    const version = probe(given);
    if (version) return { bin: given, version };
    console.log(`($ONNX_PYTHON=${given} cannot import onnx)`);
    return undefined;
  }
  const venv =
    process.env.ONNX_VENV ?? join(import.meta.dirname, "..", "corpus", `venv-onnx-${ONNX_VERSION}`);
  const bin = join(venv, "bin", "python");
  let version = existsSync(bin) ? probe(bin) : undefined;
  if (version !== ONNX_VERSION) {
    console.log(`(making ${venv}: python3 -m venv, pip install onnx==${ONNX_VERSION})`);
    const steps: [string, string[]][] = [
      ["python3", ["-m", "venv", venv]],
      [join(venv, "bin", "pip"), ["install", "--quiet", `onnx==${ONNX_VERSION}`]],
    ];
    for (const [cmd, args] of steps) {
      const r = spawnSync(cmd, args, { stdio: ["ignore", "inherit", "inherit"] });
      if (r.status !== 0) {
        console.log(`(could not make the environment: ${cmd} ${args.join(" ")} failed)`);
        return undefined;
      }
    }
    version = probe(bin);
  }
  return version ? { bin, version } : undefined;
}
