// `npm run fuzz -- --command print|check|run|convert|expand --count N --seed S`: a fuzz campaign
// (scripts/fuzz/campaign.ts) with a progress bar; prints counts by exit code and outcome and one
// line per finding with the seed and case that reproduce it; exit 1 when anything was found.
// `--generator bombs` (with --command expand): function-call bombs (scripts/fuzz/bombs.ts) instead
// of mutated models; refused counts the clean exits 2 (the expander's bound, a cycle).
// `npm run fuzz -- --target inspect --count N`: generated HTTP requests against `onnx-expand
// inspect` over loopback (scripts/fuzz/requests.ts), counted as clean / refused / crashes / hangs.
//
// `--generator functions`: models with a malformed local function (scripts/fuzz/functions.ts)
// instead of mutated ones; exit 2 then counts as refused.
// `--generator tensors|profiles|names|calls|contrib`: the hostile-input families of
// scripts/fuzz/hostile.ts (malformed tensors and bool bytes, profile and op-list files, names of
// Object.prototype's members, call-count bombs for run, contrib attributes); each case picks its
// own command line, --command is only its label.
// `--generator collisions|swaps|tiny`: data-file cases (scripts/fuzz/datafiles.ts), each with the
// command it runs (any --command): outputs named after a data file, data files swapped for links,
// FIFOs or folders, thousands of tiny external tensors; a file changed besides the named outputs,
// the file outside the folder reaching an output, or a padded data file is a crash.
// Options: --case I (run case I only), --from I / --to J (cases I..J-1 of the --count, so a long
// campaign runs in parts whose counts add up; without a terminal a progress line every 100 cases
// and each finding as it comes go to stderr), --jobs K (worker processes, default 2), --timeout MS (per
// case, default 10000, of CPU time, or three times it with no CPU used at all; a wall-clock cap of ten times it,
// scaled by the load average per core; 5000 per request for inspect), --rss-mb N (memory cap of a worker, default
// 2048), --max-seconds N (inspect: stop after N s, default 600), --json, --trace (each worker under
// `strace -f`: every file opened is judged, and one outside the case's folder that is not the
// program's own is counted and named: scripts/fuzz/trace.ts).

import { Command, Option } from "commander";
import { SingleBar, Presets } from "cli-progress";
import { COMMANDS, runCampaign, type FuzzCommand } from "./fuzz/campaign.js";
import { DATA_FAMILIES, type DataFamily } from "./fuzz/datafiles.js";
import { HOSTILE_FAMILIES, type HostileFamily } from "./fuzz/hostile.js";
import { runRequestCampaign } from "./fuzz/requests.js";

const program = new Command()
  .name("fuzz")
  .addOption(
    new Option("--command <cmd>", "CLI command to fuzz").choices(COMMANDS).conflicts("target"),
  )
  .addOption(new Option("--target <server>", "server to send requests to").choices(["inspect"]))
  .addOption(
    new Option(
      "--generator <g>",
      "inputs: mutated corpus models, function-call bombs (expand), or malformed local functions",
    )
      .choices(["mutate", "bombs", "functions", ...HOSTILE_FAMILIES, ...DATA_FAMILIES])
      .default("mutate"),
  )
  .option("--count <n>", "number of mutated inputs", "1000")
  .option("--seed <s>", "seed of the campaign", "1")
  .option("--case <i>", "run only case i of the campaign")
  .option("--from <i>", "run cases from i on (a campaign in parts)")
  .option("--to <j>", "run cases before j only")
  .option("--jobs <k>", "worker processes", "2")
  .option("--timeout <ms>", "time cap per case")
  .option("--rss-mb <n>", "memory cap of a worker process", "2048")
  .option("--max-seconds <n>", "inspect: stop the campaign after this many seconds", "600")
  .option("--json", "print the summary as JSON")
  .option("--trace", "run the workers under strace: count files opened outside the case's folder")
  .parse(process.argv);
const o = program.opts();
if (o.command === undefined && o.target === undefined)
  program.error("error: one of --command <cmd> or --target inspect is required");

const bar = process.stderr.isTTY
  ? new SingleBar({ stream: process.stderr }, Presets.shades_classic)
  : undefined;
const count = Number(o.count);
const from = o.from !== undefined ? Number(o.from) : 0;
const to = o.to !== undefined ? Math.min(count, Number(o.to)) : count;
bar?.start(o.case !== undefined ? 1 : to - from, 0);
if (o.target === "inspect") await fuzzInspect();
else await fuzzCommand();

async function fuzzInspect(): Promise<void> {
  const summary = await runRequestCampaign({
    count,
    seed: Number(o.seed),
    ...(o.case !== undefined ? { only: Number(o.case) } : {}),
    ...(o.timeout !== undefined ? { timeoutMs: Number(o.timeout) } : {}),
    maxSeconds: Number(o.maxSeconds),
    onCase: (done) => bar?.update(done),
  });
  bar?.stop();
  if (o.json) console.log(JSON.stringify(summary, null, 2));
  else {
    const statuses = Object.entries(summary.statuses)
      .map(([c, n]) => `${c === "0" ? "closed" : c}: ${n}`)
      .join(", ");
    console.log(
      `inspect: ${summary.requests} requests in ${summary.seconds.toFixed(0)} s (seed ${summary.seed}); ${statuses}`,
    );
    const { clean, refused, crash, hang, unsafe } = summary.outcomes;
    console.log(
      `clean ${clean}, refused ${refused}, crashes ${crash}, hangs ${hang}, unsafe ${unsafe}, restarts ${summary.restarts}`,
    );
    for (const f of summary.findings)
      console.log(
        `${f.outcome}: --seed ${f.seed} --case ${f.index} (${f.kind}): ${f.detail} ${f.request}`,
      );
  }
  process.exitCode = summary.findings.length ? 1 : 0;
}

async function fuzzCommand(): Promise<void> {
  const t0 = Date.now();
  const summary = await runCampaign({
    command: o.command as FuzzCommand,
    count,
    seed: Number(o.seed),
    ...(o.case !== undefined ? { only: Number(o.case) } : {}),
    from,
    to,
    jobs: Number(o.jobs),
    generator: o.generator as "mutate" | "bombs" | "functions" | HostileFamily | DataFamily,
    timeoutMs: Number(o.timeout ?? 10000),
    rssLimit: Number(o.rssMb) * 2 ** 20,
    ...(o.trace ? { trace: true } : {}),
    onCase: (done, total, s, finding) => {
      if (bar) return bar.update(done);
      if (finding)
        console.error(
          `${finding.outcome}: --case ${finding.index}: ${finding.detail.slice(0, 200)}`,
        );
      if (done % 100 === 0 || done === total) {
        const { clean, crash, hang, overrun } = s.outcomes;
        const secs = ((Date.now() - t0) / 1000).toFixed(0);
        console.error(
          `${done}/${total} in ${secs} s: clean ${clean}, crashes ${crash}, hangs ${hang}, over budget ${overrun}`,
        );
      }
    },
  });
  bar?.stop();
  if (o.json) console.log(JSON.stringify(summary, null, 2));
  else {
    const codes = Object.entries(summary.exitCodes)
      .map(([c, n]) => `exit ${c}: ${n}`)
      .join(", ");
    console.log(
      `${summary.command}: ${summary.inputs} inputs${o.from !== undefined || o.to !== undefined ? ` (cases ${from}..${to - 1})` : ""} in ${summary.seconds.toFixed(0)} s (seed ${summary.seed}); ${codes}`,
    );
    const { clean, crash, hang, overrun } = summary.outcomes;
    const refused = summary.exitCodes["2"] ?? 0;
    console.log(
      `clean ${clean} (of which refused, exit 2: ${refused}), crashes ${crash}, hangs ${hang}, over budget ${overrun}`,
    );
    for (const f of summary.findings)
      console.log(
        `${f.outcome}: --seed ${f.seed} --case ${f.index} (${f.mutation} of ${f.source}): ${f.detail}${f.file ? ` [${f.file}]` : ""}`,
      );
    if (summary.traced) {
      const { opened, outside } = summary.traced;
      console.log(
        `traced: ${opened} files opened, ${outside.length} outside the case's folder${outside.length ? `: ${outside.slice(0, 20).join(", ")}` : ""}`,
      );
    }
  }
  process.exitCode = summary.findings.length || summary.traced?.outside.length ? 1 : 0;
}
