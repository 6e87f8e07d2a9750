// The Python environment of the corpus scripts: torch, torchvision, transformers, onnx 1.23.1 and
// onnxruntime, for exporting models (export.py) and for ONNX's own checker (check.py). Taken from
// $CORPUS_PYTHON when set, else a virtual environment ($CORPUS_VENV, default corpus/venv in the
// repository, which git ignores) that is made on first use.

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const CORPUS_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = join(CORPUS_DIR, "..", "..");

/** What the corpus needs; onnx is pinned so that its checker's verdicts are comparable. */
const PACKAGES = [
  "torch",
  "torchvision",
  "transformers",
  "onnx==1.23.1",
  "onnxruntime",
  "onnxscript",
];

function venvDir(): string {
  if (process.env.CORPUS_VENV) return process.env.CORPUS_VENV;
  return join(REPO_ROOT, "corpus", "venv");
}

/** The interpreter when it can import `modules`, else undefined (nothing is installed). */
export function findPython(modules = ["onnx"]): string | undefined {
  const candidates = process.env.CORPUS_PYTHON
    ? [process.env.CORPUS_PYTHON]
    : [join(venvDir(), "bin", "python")];
  for (const py of candidates) {
    if (!existsSync(py) && !process.env.CORPUS_PYTHON) continue;
    // Found, not imported: importing torchvision can fail where its detection operators do not
    // match torch, which export.py works around.
    const code = `import importlib.util, sys; sys.exit(any(importlib.util.find_spec(m) is None for m in ${JSON.stringify(modules)}))`;
    const r = spawnSync(py, ["-c", code], { stdio: "ignore" });
    if (r.status === 0) return py;
  }
  return undefined;
}

/** The interpreter, making the virtual environment and installing the packages when needed. */
export function ensurePython(modules: string[]): string {
  const found = findPython(modules);
  if (found) return found;
  if (process.env.CORPUS_PYTHON)
    throw new Error(
      `CORPUS_PYTHON=${process.env.CORPUS_PYTHON} lacks one of ${modules.join(", ")}`,
    );
  const dir = venvDir();
  const run = (cmd: string, args: string[]) => {
    process.stderr.write(`$ ${cmd} ${args.join(" ")}\n`);
    const r = spawnSync(cmd, args, { stdio: "inherit" });
    if (r.status !== 0) throw new Error(`${cmd} ${args[0]} failed (exit ${r.status})`);
  };
  if (!existsSync(join(dir, "bin", "python"))) run("python3", ["-m", "venv", dir]);
  // pip reads its index from the user's own settings (PIP_INDEX_URL, pip.conf): a package mirror
  // is named there, not here.
  run(join(dir, "bin", "pip"), ["install", ...PACKAGES]);
  const py = findPython(modules);
  if (!py)
    throw new Error(`${dir}: the packages installed but ${modules.join(", ")} cannot be found`);
  return py;
}
