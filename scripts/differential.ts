// `npm run differential -- --mode ort --count N --seed S`: generated models (scripts/generate/)
// run in the interpreter and on the other side of the mode, with counts by outcome and, for each
// disagreement, the shrunk reproducer as ONNX text. Modes: ort (the interpreter against
// onnxruntime-node on the same model, opsets 7-26); convert-up, convert-down, convert-roundtrip
// (the interpreter before and after `convert` to a newer opset, an older one, and up then back;
// the converted model must pass check; a refusal with a reason is counted as such); expand (before
// and after `expand`, with no function op left).
//
// Options: --max-opset N, --min-opset N, --show N (how many non-agreeing cases to print, default 20).

import { Command, Option } from "commander";
import { SingleBar, Presets } from "cli-progress";
import { deriveSeed } from "../src/interp/random.js";
import {
  convertDownSide,
  convertRoundTripSide,
  convertUpSide,
  differentialCase,
  expandSide,
  ortSide,
  type CaseResult,
  type Other,
} from "./generate/differential.js";

const MODES: Record<string, { other: Other; maxOpset: number }> = {
  ort: { other: ortSide, maxOpset: 26 },
  "convert-up": { other: convertUpSide, maxOpset: 28 },
  "convert-down": { other: convertDownSide, maxOpset: 29 },
  "convert-roundtrip": { other: convertRoundTripSide, maxOpset: 28 },
  expand: { other: expandSide, maxOpset: 29 },
};

const o = new Command()
  .name("differential")
  .addOption(
    new Option("--mode <mode>", "what the interpreter is compared with")
      .choices(Object.keys(MODES))
      .default("ort"),
  )
  .option("--count <n>", "models", "1000")
  .option("--seed <s>", "seed of the run", "1")
  .option("--min-opset <n>", "lowest opset", "7")
  .option("--max-opset <n>", "highest opset")
  .option("--show <n>", "cases to print that did not agree", "20")
  .parse(process.argv)
  .opts();

const mode = MODES[o.mode as string]!;
const count = Number(o.count);
const bar = process.stderr.isTTY
  ? new SingleBar({ stream: process.stderr }, Presets.shades_classic)
  : undefined;
bar?.start(count, 0);
const counts: Record<string, number> = {};
const notable: CaseResult[] = [];
for (let i = 0; i < count; i++) {
  const r = await differentialCase(deriveSeed(Number(o.seed), i), mode.other, {
    minOpset: Number(o.minOpset),
    maxOpset: o.maxOpset !== undefined ? Number(o.maxOpset) : mode.maxOpset,
  });
  counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
  if (r.outcome !== "agree" && r.outcome !== "skipped") notable.push(r);
  bar?.update(i + 1);
}
bar?.stop();
console.log(
  `${o.mode}: ${count} models (seed ${o.seed}): ` +
    Object.entries(counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(", "),
);
for (const r of notable.slice(0, Number(o.show))) {
  console.log(`- model seed ${r.seed}: ${r.outcome}: ${r.detail ?? ""}`);
  if (r.steps) console.log(`  steps: ${r.steps.join("; ")}`);
  if (r.reproducer) console.log(r.reproducer.replace(/^/gm, "    "));
}
process.exitCode =
  (counts.disagree ?? 0) + (counts.invalid ?? 0) + (counts["interp-error"] ?? 0) > 0 ? 1 : 0;
