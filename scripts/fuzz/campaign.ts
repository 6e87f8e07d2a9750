// A fuzz campaign: mutates the models of ONNX's backend tests and the shipped examples, runs one
// CLI command on each mutant in worker processes with a time and memory cap, and sorts the
// outcomes: a clean exit (0, 1 or 2 with at most one-line errors), a crash (anything else: an
// internal error, a stack trace, an exception escaping the command, a dead worker, a special
// output path replaced or a temporary file left behind: scripts/fuzz/paths.ts), a hang (over
// the time cap) or an overrun (over the memory cap). Case i of a campaign with seed S depends only
// on (S, i), so `--seed S --case i` reproduces it alone.

import { fork, type ChildProcess } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { blockersMessage, rewriteBlockers } from "../../src/check/validate.js";
import { deriveSeed, seededRandom, type Random } from "../../src/interp/random.js";
import { loadModel } from "../../src/io/files.js";
import { printModel } from "../../src/text/print.js";
import { bombOptions, bombText, randomBomb } from "./bombs.js";
import { malformedFunctionModel } from "./functions.js";
import { hostileCase, HOSTILE_FAMILIES, type HostileFamily } from "./hostile.js";
import { DATA_FAMILIES, dataFileCase, type DataCase, type DataFamily } from "./datafiles.js";
import { BINARY_MUTATIONS, mutateBinary, mutateText } from "./mutate.js";
import { judgeOutput, pickOutputKind, prepareOutput, type OutputKind } from "./paths.js";
import { straceArgs, stracePath, tracedOutsideReads } from "./trace.js";

export const COMMANDS = ["print", "check", "run", "convert", "expand"] as const;
export type FuzzCommand = (typeof COMMANDS)[number];

export interface CampaignOptions {
  command: FuzzCommand;
  count: number;
  seed: number;
  /** Only this case (reproduce one). */
  only?: number;
  /** Run cases from..to-1 only (a campaign in parts: the counts of the parts add up). */
  from?: number;
  to?: number;
  jobs?: number;
  /** Per case, milliseconds. */
  timeoutMs?: number;
  /** Resident memory a worker may reach, bytes. */
  rssLimit?: number;
  /** The budget handed to `run --max-memory` (when the command has that option), bytes. */
  runBudget?: number;
  /**
   * Where the inputs come from: mutated corpus models (default), function-call bombs for `expand`
   * (bombs.ts: local functions that multiply nodes when inlined, with random limits), or models
   * with a malformed local function (functions.ts).
   */
  generator?: "mutate" | "bombs" | "functions" | HostileFamily | DataFamily;
  /** Where failing cases are copied (default: a folder under the system temp dir). */
  keepDir?: string;
  /** Run each worker under strace and count the files opened outside the case's folder. */
  trace?: boolean;
  onCase?: (done: number, total: number, summary: CampaignSummary, finding?: Finding) => void;
}

export type Outcome = "clean" | "crash" | "hang" | "overrun";

export interface Finding {
  index: number;
  seed: number;
  outcome: Exclude<Outcome, "clean">;
  mutation: string;
  source: string;
  detail: string;
  file?: string;
}

export interface CampaignSummary {
  command: FuzzCommand;
  seed: number;
  inputs: number;
  exitCodes: Record<string, number>;
  outcomes: Record<Outcome, number>;
  findings: Finding[];
  seconds: number;
  /** With `trace`: files opened in all, and those outside the case's folder (each once). */
  traced?: { opened: number; outside: string[] };
}

interface Source {
  name: string;
  binary: Uint8Array;
  text: string;
  /** Input .pb files of the model's first test data set (for `run`). */
  inputs: string[];
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NODE_TESTS = join(ROOT, "test", "data", "onnx-node-tests");

function loadCorpus(): Source[] {
  const out: Source[] = [];
  const add = (name: string, path: string, inputs: string[]) => {
    const binary = readFileSync(path);
    let text: string;
    try {
      text = printModel(loadModel(path));
    } catch {
      return;
    }
    out.push({ name, binary: new Uint8Array(binary), text, inputs });
  };
  if (existsSync(NODE_TESTS))
    for (const d of readdirSync(NODE_TESTS).sort()) {
      const model = join(NODE_TESTS, d, "model.onnx");
      if (!existsSync(model)) continue;
      const data = join(NODE_TESTS, d, "test_data_set_0");
      const inputs = existsSync(data)
        ? readdirSync(data)
            .filter((f) => /^input_\d+\.pb$/.test(f))
            .sort((a, b) => parseInt(a.slice(6)) - parseInt(b.slice(6)))
            .map((f) => join(data, f))
        : [];
      add(d, model, inputs);
    }
  const examples = join(ROOT, "examples");
  for (const f of readdirSync(examples).sort())
    if (f.endsWith(".onnx")) add(`examples/${f}`, join(examples, f), []);
  return out;
}

interface Reply {
  id: number;
  code: number;
  stdout: string;
  stderr: string;
  outBytes: number;
  errBytes: number;
  thrown?: string;
}

/** Whether what a command printed on stderr is a clean outcome: one-line errors, no stack, no internal error. */
export function judge(r: Reply): string | undefined {
  if (r.thrown) return `exception escaped the command: ${r.thrown.split("\n")[0]}`;
  if (![0, 1, 2].includes(r.code)) return `exit code ${r.code}`;
  if (/internal error/.test(r.stderr))
    return r.stderr.split("\n").find((l) => /internal error/.test(l));
  if (/\n\s+at .+:\d+:\d+/.test(r.stderr)) return "stack trace on stderr";
  const long = r.stderr.split("\n").find((l) => l.length > 2000);
  if (long !== undefined) return `error line of ${long.length} characters`;
  if (r.errBytes > 1 << 20) return `${r.errBytes} bytes on stderr`;
  return undefined;
}

/** With generated valid inputs, a written output must check too: what is wrong with it, if anything. */
function invalidOutput(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const blockers = rewriteBlockers(loadModel(path));
  rmSync(path, { force: true });
  return blockers.length ? `output invalid: ${blockersMessage(blockers)}` : undefined;
}

class Worker {
  child!: ChildProcess;
  ready!: Promise<void>;
  served = 0;
  stderrTail = "";
  private starts = 0;
  /** `trace`: strace's path and the log's stem (`<log>.<n>`, one per start), to trace reads. */
  constructor(
    private readonly dir: string,
    private readonly trace?: { strace: string; log: string },
  ) {
    this.start();
  }
  start(): void {
    const tsx = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
    const node = ["--import", tsx, "--max-old-space-size=3072"];
    const t = this.trace;
    this.child = fork(fileURLToPath(new URL("./worker.ts", import.meta.url)), [], {
      ...(t
        ? {
            execPath: t.strace,
            execArgv: [...straceArgs(`${t.log}.${this.starts++}`), process.execPath, ...node],
          }
        : { execArgv: node }),
      cwd: this.dir,
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    this.stderrTail = "";
    this.child.stderr!.on("data", (d: Buffer) => {
      this.stderrTail = (this.stderrTail + d.toString()).slice(-4000);
    });
    this.served = 0;
    this.ready = new Promise((resolve) => {
      const onMsg = (m: { ready?: boolean }) => {
        if (m.ready) {
          this.child.off("message", onMsg);
          resolve();
        }
      };
      this.child.on("message", onMsg);
    });
  }
  kill(): void {
    if (this.trace) {
      const pid = this.pid();
      if (pid !== this.child.pid)
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
    }
    this.child.kill("SIGKILL");
  }
  /** The worker's Node process: strace's child when traced. */
  pid(): number {
    const own = this.child.pid!;
    if (!this.trace) return own;
    try {
      const kids = readFileSync(`/proc/${own}/task/${own}/children`, "utf8").trim().split(/\s+/);
      return kids[0] ? Number(kids[0]) : own;
    } catch {
      return own;
    }
  }
  /** CPU time the worker has used, ms (Linux /proc; 0 elsewhere). */
  cpuMs(): number {
    try {
      const stat = readFileSync(`/proc/${this.pid()}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    } catch {
      return 0;
    }
  }
  rss(): number {
    try {
      const status = readFileSync(`/proc/${this.pid()}/status`, "utf8");
      const m = /VmRSS:\s+(\d+) kB/.exec(status);
      return m ? Number(m[1]) * 1024 : 0;
    } catch {
      return 0;
    }
  }
}

type Result = { reply: Reply } | { outcome: "hang" | "overrun" | "crash"; detail: string };

function runOne(w: Worker, args: string[], timeoutMs: number, rssLimit: number): Promise<Result> {
  return new Promise((resolve) => {
    const id = Math.floor(Math.random() * 2 ** 31);
    let done = false;
    const finish = (r: Result) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(poll);
      w.child.off("message", onMsg);
      w.child.off("exit", onExit);
      resolve(r);
    };
    const onMsg = (m: Reply) => {
      if (m.id === id) finish({ reply: m });
    };
    const onExit = (code: number | null, signal: string | null) => {
      const heap = /heap out of memory|Allocation failed/i.test(w.stderrTail);
      finish(
        heap
          ? { outcome: "overrun", detail: "JavaScript heap exhausted" }
          : {
              outcome: "crash",
              detail: `worker died (exit ${code}, signal ${signal}): ${w.stderrTail.trim().split("\n").slice(-1)[0] ?? ""}`,
            },
      );
    };
    // A case hangs when it has used `timeoutMs` of CPU time (so a loaded machine does not turn
    // slow cases into hangs), or used no CPU at all for three times `timeoutMs` (a blocked read;
    // a write stalled behind a busy disk uses none for seconds), or has not
    // answered in ten times `timeoutMs` of wall-clock time scaled by the load average per core (a
    // loaded machine gives a worker a small share of a core: at a load of 20 on 2 cores, a tenth).
    const cpu0 = w.cpuMs();
    let lastCpu = cpu0;
    let lastAdvance = Date.now();
    const wallMs = 10 * timeoutMs * Math.max(1, loadavg()[0]! / availableParallelism());
    const timer = setTimeout(
      () => finish({ outcome: "hang", detail: `no answer in ${(wallMs / 1000).toFixed(0)} s` }),
      wallMs,
    );
    const poll = setInterval(() => {
      const rss = w.rss();
      const cpu = w.cpuMs();
      const now = Date.now();
      if (cpu > lastCpu) {
        lastCpu = cpu;
        lastAdvance = now;
      }
      if (rss > rssLimit)
        finish({ outcome: "overrun", detail: `resident memory ${(rss / 2 ** 20).toFixed(0)} MiB` });
      else if (cpu - cpu0 > timeoutMs)
        finish({ outcome: "hang", detail: `over ${timeoutMs / 1000} s of CPU time` });
      else if (now - lastAdvance > 3 * timeoutMs)
        finish({
          outcome: "hang",
          detail: `blocked: no CPU time used for ${(3 * timeoutMs) / 1000} s`,
        });
    }, 50);
    w.child.on("message", onMsg);
    w.child.on("exit", onExit);
    w.child.send({ id, args });
  });
}

function commandArgs(
  command: FuzzCommand,
  file: string,
  src: Source,
  rng: Random,
  hasMaxMemory: boolean,
  runBudget: number,
): string[] {
  switch (command) {
    case "print":
    case "check":
      return [command, file];
    case "run":
      return [
        "run",
        file,
        ...src.inputs,
        "--max-elements",
        "20000000",
        ...(hasMaxMemory ? ["--max-memory", String(runBudget)] : []),
      ];
    case "convert":
      return ["convert", file, "--opset", String(rng.range(1, 29)), "-o", "out.onnx", "--force"];
    case "expand":
      return ["expand", file, "-o", "out.onnx", "--force"];
  }
}

/** The options a command of the CLI has (so the campaign uses --max-memory only where it exists). */
async function commandOptions(command: string): Promise<string[] | undefined> {
  const { buildProgram } = await import("../../src/cli/main.js");
  const cmd = buildProgram().commands.find((c) => c.name() === command);
  return cmd?.options.map((o) => o.long ?? "");
}

export async function runCampaign(opts: CampaignOptions): Promise<CampaignSummary> {
  const options = await commandOptions(opts.command);
  if (!options) throw new Error(`the CLI has no command '${opts.command}'`);
  const hasMaxMemory = options.includes("--max-memory");
  const corpus = loadCorpus().filter((s) => opts.command !== "run" || s.inputs.length > 0);
  if (opts.generator === "bombs" && opts.command !== "expand")
    throw new Error("the bombs generator is for --command expand");
  if (corpus.length === 0)
    throw new Error("no models to mutate (test/data/onnx-node-tests missing?)");
  const jobs = Math.max(1, opts.jobs ?? 2);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const rssLimit = opts.rssLimit ?? 2 * 2 ** 30;
  const runBudget = opts.runBudget ?? 512 * 2 ** 20;
  const keepDir = opts.keepDir ?? join(tmpdir(), "onnx-expand-fuzz");
  const started = Date.now();
  const summary: CampaignSummary = {
    command: opts.command,
    seed: opts.seed,
    inputs: 0,
    exitCodes: {},
    outcomes: { clean: 0, crash: 0, hang: 0, overrun: 0 },
    findings: [],
    seconds: 0,
  };
  const from = Math.max(0, opts.from ?? 0);
  const to = Math.min(opts.count, opts.to ?? opts.count);
  const indices =
    opts.only !== undefined
      ? [opts.only]
      : Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
  let next = 0;
  const workers: Worker[] = [];
  const dirs: string[] = [];
  const lane = async (w: Worker, dir: string) => {
    await w.ready;
    while (next < indices.length) {
      const index = indices[next++]!;
      const seed = deriveSeed(opts.seed, index);
      const rng = seededRandom(seed);
      const src = rng.pick(corpus);
      const other = rng.pick(corpus);
      const asText = rng.chance(0.35);
      let mutation: string;
      let file: string;
      let extra: string[] = [];
      let own: string[] | undefined;
      let dataCase: DataCase | undefined;
      if (HOSTILE_FAMILIES.includes(opts.generator as HostileFamily)) {
        // The family chooses the command line too (run, check, lower, ... as the case needs).
        const c = hostileCase(opts.generator as HostileFamily, rng, dir);
        mutation = c.kind;
        file = c.file;
        own = c.args;
      } else if (DATA_FAMILIES.includes(opts.generator as DataFamily)) {
        dataCase = await dataFileCase(
          opts.generator as DataFamily,
          rng,
          join(dir, "case"),
          join(dir, "outside"),
        );
        mutation = dataCase.mutation;
        file = dataCase.file;
      } else if (opts.generator === "bombs") {
        const shape = randomBomb(rng);
        extra = bombOptions(rng, shape);
        mutation = `bomb ${JSON.stringify(shape)}${extra.length ? ` ${extra.join(" ")}` : ""}`;
        file = join(dir, "case.onnxtxt");
        writeFileSync(file, bombText(shape));
      } else if (opts.generator === "functions") {
        const g = malformedFunctionModel(rng);
        mutation = `function ${g.kind}`;
        file = join(dir, "case.onnxtxt");
        writeFileSync(file, g.text);
      } else if (asText) {
        let text = src.text;
        const rounds = 1 + rng.int(3);
        for (let k = 0; k < rounds; k++) text = mutateText(text, other.text, rng);
        mutation = `text x${rounds}`;
        file = join(dir, "case.onnxtxt");
        writeFileSync(file, text);
      } else {
        const kind = rng.pick(BINARY_MUTATIONS);
        mutation = kind;
        file = join(dir, "case.onnx");
        writeFileSync(file, mutateBinary(src.binary, other.binary, kind, rng));
      }
      const args =
        own ??
        (dataCase
          ? dataCase.args
          : [...commandArgs(opts.command, file, src, rng, hasMaxMemory, runBudget), ...extra]);
      // Commands that write a model meet, one time in three, something special at the output.
      const outPath = join(dir, "out.onnx");
      const writes = args.includes("-o") && !dataCase;
      let outKind: OutputKind = "none";
      if (writes) {
        outKind = prepareOutput(dir, outPath, pickOutputKind(rng));
        if (outKind !== "none") mutation += ` -o ${outKind}`;
      }
      const r = await runOne(w, args, timeoutMs, rssLimit);
      summary.inputs++;
      w.served++;
      let outcome: Outcome = "clean";
      let detail = "";
      if ("reply" in r) {
        summary.exitCodes[r.reply.code] = (summary.exitCodes[r.reply.code] ?? 0) + 1;
        const bad =
          judge(r.reply) ??
          dataCase?.judge(r.reply.code) ??
          (writes ? judgeOutput(dir, outPath, outKind, r.reply.code) : undefined) ??
          (opts.generator === "functions" && r.reply.code === 0 && outKind === "none"
            ? invalidOutput(outPath)
            : undefined);
        if (bad) {
          outcome = "crash";
          detail = bad;
        }
      } else {
        outcome = r.outcome;
        detail = r.detail;
        w.kill();
        w.start();
        await w.ready;
      }
      summary.outcomes[outcome]++;
      let finding: Finding | undefined;
      if (outcome !== "clean") {
        mkdirSync(keepDir, { recursive: true });
        const kept = join(keepDir, `${opts.command}-${opts.seed}-${index}-${basename(file)}`);
        writeFileSync(kept, readFileSync(file));
        finding = {
          index,
          seed: opts.seed,
          outcome,
          mutation,
          source: src.name,
          detail,
          file: kept,
        };
        summary.findings.push(finding);
      } else if (w.served >= 300) {
        // A fresh process now and then, so state one case leaves behind cannot hide another's bug.
        w.kill();
        w.start();
        await w.ready;
      }
      opts.onCase?.(summary.inputs, indices.length, summary, finding);
    }
  };
  const strace = opts.trace ? stracePath() : undefined;
  if (opts.trace && !strace) throw new Error("--trace needs strace, which is not installed");
  const logs = opts.trace ? mkdtempSync(join(tmpdir(), "onnx-expand-trace-")) : "";
  try {
    for (let j = 0; j < jobs; j++) {
      const dir = mkdtempSync(join(tmpdir(), "onnx-expand-fuzz-"));
      dirs.push(dir);
      workers.push(new Worker(dir, strace ? { strace, log: join(logs, `lane${j}`) } : undefined));
    }
    await Promise.all(workers.map((w, j) => lane(w, dirs[j]!)));
  } finally {
    for (const w of workers) w.kill();
    if (strace) {
      // The logs are complete once strace has exited.
      await Promise.all(
        workers.map(
          (w) =>
            new Promise<void>((done) => {
              if (w.child.exitCode !== null || w.child.signalCode !== null) done();
              else w.child.once("exit", () => done());
            }),
        ),
      );
      summary.traced = tracedOutsideReads(
        dirs.map((dir, j) => ({ dir, log: join(logs, `lane${j}`) })),
      );
      rmSync(logs, { recursive: true, force: true });
    }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
  summary.seconds = (Date.now() - started) / 1000;
  return summary;
}
