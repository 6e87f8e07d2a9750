// `npm run corpus:deployed:report`: the deployed corpus (test/data/deployed) through every step,
// with the anchors beside: for each model, `check`, the interpreter against onnxruntime, `expand`
// to ai.onnx only, `convert` to 11/13/17/21 (each transformed model run on onnxruntime-node, or
// the interpreter where onnxruntime cannot run the original), then ONNX 1.23.1's
// version_converter and onnxscript's to the same opsets, their results run on onnxruntime-node
// and judged by the same rule (scripts/corpus/deployed-judge.ts). Prints a markdown table by
// model and step, the counts, and every reason; for float16 models, each run's error against the
// float16 reference.
//
//   npx tsx scripts/corpus/deployed-report.ts [--only SUBSTRING] [--no-anchors] [--json FILE]

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { loadModel } from "../../src/io/files.js";
import { CORPUS_DIR, findPython } from "./python.js";
import { deployedNames, loadDeployed, type DeployedModel } from "./deployed-judge.js";
import {
  checkStep,
  convertStep,
  expandStep,
  interpreterStep,
  judgeRun,
  ortRunsOriginal,
  type StepResult,
} from "./deployed-transforms.js";

const args = process.argv.slice(2);
const opt = (f: string) => {
  const i = args.indexOf(f);
  return i >= 0 ? args[i + 1] : undefined;
};
const only = opt("--only");
const jsonOut = opt("--json");
const TARGETS = [11, 13, 17, 21];

/** The anchors' converters in one Python process (anchor_convert.py). */
class Anchors {
  private answers: ((l: string) => void)[] = [];
  private proc;
  constructor(python: string) {
    this.proc = spawn(python, [join(CORPUS_DIR, "anchor_convert.py")], {
      stdio: ["pipe", "pipe", "ignore"],
    });
    createInterface({ input: this.proc.stdout! }).on("line", (l) => this.answers.shift()?.(l));
  }
  convert(
    tool: string,
    target: number,
    src: string,
    dst: string,
  ): Promise<{ ok: boolean; error?: string }> {
    return new Promise((done) => {
      this.answers.push((l) => done(JSON.parse(l)));
      this.proc.stdin!.write(`${tool} ${target} ${src} ${dst}\n`);
    });
  }
  close() {
    this.proc.stdin!.end();
  }
}

const python = args.includes("--no-anchors")
  ? undefined
  : findPython(["onnx", "onnxscript", "onnx_ir"]);
const anchors = python ? new Anchors(python) : undefined;
const scratch = mkdtempSync(join(tmpdir(), "deployed-report-"));

async function anchorStep(
  tool: string,
  m: DeployedModel,
  target: number,
  onOrt: boolean,
): Promise<StepResult> {
  const dst = join(scratch, `${tool}-${target}.onnx`);
  const r = await anchors!.convert(tool, target, join(m.dir, "model.onnx"), dst);
  if (!r.ok) return { outcome: "refused", detail: r.error ?? "" };
  return judgeRun(m, loadModel(dst), onOrt);
}

interface Row {
  name: string;
  steps: Record<string, StepResult>;
}
const rows: Row[] = [];
const started = performance.now();
for (const name of deployedNames().filter((n) => !only || n.includes(only))) {
  process.stderr.write(`\r\x1b[K${name}`);
  const m = loadDeployed(name);
  const onOrt = await ortRunsOriginal(m);
  const steps: Record<string, StepResult> = {};
  steps.check = checkStep(m);
  steps.run = await interpreterStep(m);
  steps.expand = await expandStep(m, onOrt);
  for (const t of TARGETS) steps[`convert ${t}`] = await convertStep(m, t, onOrt);
  if (anchors)
    for (const tool of ["onnx", "onnxscript"])
      for (const t of TARGETS) steps[`${tool} ${t}`] = await anchorStep(tool, m, t, onOrt);
  rows.push({ name, steps });
}
process.stderr.write("\r\x1b[K");
anchors?.close();
rmSync(scratch, { recursive: true, force: true });

const cols = Object.keys(rows[0]?.steps ?? {});
const mark: Record<string, string> = {
  pass: "ok",
  approximate: "≈",
  refused: "refused",
  wrong: "WRONG",
  error: "error",
};
const out: string[] = [];
out.push(
  `deployed corpus: ${rows.length} models, ${Math.round((performance.now() - started) / 1000)} s`,
);
out.push("", `| model | ${cols.join(" | ")} |`, `|---|${cols.map(() => "---").join("|")}|`);
for (const r of rows)
  out.push(`| ${r.name} | ${cols.map((c) => mark[r.steps[c]!.outcome]).join(" | ")} |`);
out.push(
  "",
  "| step | pass | approximate | refused | wrong | error |",
  "|---|---|---|---|---|---|",
);
for (const c of cols) {
  const n = (o: string) => rows.filter((r) => r.steps[c]!.outcome === o).length;
  out.push(
    `| ${c} | ${n("pass")} | ${n("approximate")} | ${n("refused")} | ${n("wrong")} | ${n("error")} |`,
  );
}
out.push("");
for (const r of rows)
  for (const c of cols) {
    const s = r.steps[c]!;
    if (s.outcome !== "pass" || /quantum|spread|float16/.test(s.detail))
      out.push(`${r.name} / ${c}: ${s.outcome}: ${s.detail}`);
  }
process.stdout.write(out.join("\n") + "\n");
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(rows, null, 1));
const bad = rows.some((r) =>
  Object.entries(r.steps).some(
    ([c, s]) => !/^(onnx|onnxscript) /.test(c) && (s.outcome === "wrong" || s.outcome === "error"),
  ),
);
process.exitCode = bad ? 1 : 0;
