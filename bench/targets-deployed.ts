// `npm run bench:targets:deployed`: every model of the deployed corpus (test/data/deployed:
// quantized, float16, onnxruntime-fused) lowered for every shipped profile and the made-up
// no-int64 backend (symbolic dims: 1 for a batch, 8 otherwise), then run before and after, on
// onnxruntime-node and in the interpreter, on the same seeded random inputs. A cell gives the
// norm-wise difference on onnxruntime, and in the interpreter where that one is over 1e-4 (the
// interpreter keeps ONNX's semantics; onnxruntime applies other int8/int4/float16 fusions to a
// rewritten graph); "refused" with the reason, or "not on onnxruntime" where the original does
// not run there. Prints a Markdown table.

import { lower, randomInputs } from "../src/app/index.js";
import { run } from "../src/interp/executor.js";
import { toFloat64 } from "../src/interp/tensor.js";
import type { RTensor } from "../src/interp/types.js";
import { listProfiles } from "../src/targets/load.js";
import { runOrt } from "../test/helpers/ort.js";
import { deployedModels } from "./deployed.js";
import { noInt64Profile } from "./no-int64.js";

const profiles = [...listProfiles(), noInt64Profile()];
const only = process.argv[2];

/** The largest norm-wise difference over the outputs (NaN and ±Inf equal where both are). */
function normwise(a: Record<string, RTensor>, b: Record<string, RTensor>): number {
  let worst = 0;
  for (const k of Object.keys(a)) {
    const [x, y] = [toFloat64(a[k]!), toFloat64(b[k]!)];
    let num = 0;
    let den = 0;
    for (let i = 0; i < x.length; i++) {
      const d = x[i]! - y[i]!;
      num += Number.isFinite(d) ? d * d : Object.is(x[i], y[i]) ? 0 : 1;
      den += Number.isFinite(x[i]!) ? x[i]! ** 2 : 0;
    }
    worst = Math.max(worst, Math.sqrt(num / (den || 1)));
  }
  return worst;
}

const rows = [
  `| model | ${profiles.map((p) => p.name).join(" | ")} |`,
  `|---|${profiles.map(() => "---").join("|")}|`,
];
let cells = 0;
let same = 0;
let interpSame = 0;
for (const { name, model: m, dims } of deployedModels(only)) {
  const inputs = randomInputs(m, 3, dims) as Record<string, RTensor>;
  const before = await runOrt(m, inputs).catch(() => undefined);
  const out: string[] = [];
  for (const p of profiles) {
    const r = lower(m, { profile: p, dims });
    cells++;
    if (!r.ok) {
      out.push(`refused: ${r.notes.find((n) => n.level === "error")?.message.slice(0, 60)}`);
      continue;
    }
    let cell: string;
    let d = 0;
    if (before) {
      d = normwise(before, await runOrt(r.model, inputs));
      cell = d.toExponential(0);
    } else cell = "not on onnxruntime";
    if (!before || d > 1e-4) {
      const i = normwise(
        run(m, inputs) as Record<string, RTensor>,
        run(r.model, inputs) as Record<string, RTensor>,
      );
      cell += `${before ? "" : ";"} interp. ${i.toExponential(0)}`;
      if (i <= 1e-4) interpSame++;
    } else {
      same++;
      interpSame++;
    }
    out.push(cell);
  }
  rows.push(`| ${name} | ${out.join(" | ")} |`);
  console.error(rows[rows.length - 1]);
}
console.log(rows.join("\n"));
console.log(
  `\n${cells} lowered models: ${same} with onnxruntime's numbers (≤ 1e-4 norm-wise), ${interpSame} with the interpreter's`,
);
