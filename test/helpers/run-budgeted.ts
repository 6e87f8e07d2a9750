// Runs models in this process under a memory budget and prints one JSON line per model:
// {"file", "ok", "message"}. Tests start it as a child process with a small V8 heap, so that a
// budget that fails to hold ends that process (or its time limit), not the test runner.
//   node --max-old-space-size=256 --import tsx test/helpers/run-budgeted.ts BYTES|none MODEL...
import { loadModel } from "../../src/io/files.js";
import { runValues } from "../../src/interp/executor.js";

const [budget, ...files] = process.argv.slice(2);
const maxMemory = budget === "none" ? undefined : Number(budget);
for (const file of files) {
  let line: { file: string; ok: boolean; message: string };
  try {
    runValues(loadModel(file), {}, maxMemory === undefined ? {} : { maxMemory });
    line = { file, ok: true, message: "" };
  } catch (e) {
    line = { file, ok: false, message: (e as Error).message };
  }
  process.stdout.write(JSON.stringify(line) + "\n");
}
