// `npx tsx bench/web-profile.ts CASE`: what the inspector page's long main-thread tasks are made
// of (issue 17). Loads one bench:web model (chain-20000, wide-100, expanded, expand-5000) in headless
// Chromium with the DevTools CPU profiler on, cuts the samples into runs of non-idle time, and for
// each run over 50 ms prints the functions with the most time (self and inclusive). With TRACE=1,
// a Chromium trace instead: each main-thread task over the threshold, with the events inside it
// that took longest (script, style, layout, paint, GC, message deserialisation).

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveInspector } from "../src/cli/server.js";
import { saveModel } from "../src/io/files.js";
import { findChromium, launchChromium } from "../test/helpers/browser.js";
import { webChain, webWide } from "./web-models.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  /** Thread (CPU) time. */
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { functionName?: string; url?: string; type?: string } };
}

function traceReport(events: TraceEvent[], minMs: number): void {
  const main = events.find((e) => e.name === "thread_name" && e.args?.name === "CrRendererMain");
  if (!main) return console.log("no renderer main thread in the trace");
  const on = events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === "X" && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts);
  const tasks = on.filter(
    (e) => e.name === "ThreadControllerImpl::RunTask" || e.name === "RunTask",
  );
  for (const t of tasks) {
    if (t.dur! / 1000 < minMs) continue;
    const inside = on.filter(
      (e) => e !== t && e.ts >= t.ts && e.ts + e.dur! <= t.ts + t.dur! && e.dur! > 2000,
    );
    const cpu = t.tdur === undefined ? "?" : (t.tdur / 1000).toFixed(0);
    console.log(`task of ${(t.dur! / 1000).toFixed(0)} ms (${cpu} ms on the CPU)`);
    for (const e of inside.slice(0, 40)) {
      const d = e.args?.data;
      const what = d?.functionName || d?.url?.split("/").pop() || d?.type || "";
      console.log(
        `  +${((e.ts - t.ts) / 1000).toFixed(0).padStart(4)} ${(e.dur! / 1000).toFixed(1).padStart(6)} ms  ${e.name} ${what}`,
      );
    }
  }
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function report(p: Profile, minMs: number): void {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n: ProfileNode) =>
    `${n.callFrame.functionName || "(anon)"}@${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber}`;
  const idle = (id: number) => {
    const f = byId.get(id)!.callFrame.functionName;
    return f === "(idle)" || f === "(program)" || f === "(garbage collector)" ? f : "";
  };
  let run: { ms: number; samples: [number, number][] } = { ms: 0, samples: [] };
  const runs: (typeof run)[] = [];
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000;
    if (idle(p.samples[i]!) === "(idle)") {
      if (run.ms) runs.push(run);
      run = { ms: 0, samples: [] };
      continue;
    }
    run.ms += dt;
    run.samples.push([p.samples[i]!, dt]);
  }
  if (run.ms) runs.push(run);
  for (const r of runs) {
    if (r.ms < minMs) continue;
    const self = new Map<string, number>();
    const total = new Map<string, number>();
    for (const [id, dt] of r.samples) {
      const n = byId.get(id)!;
      self.set(name(n), (self.get(name(n)) ?? 0) + dt);
      const seen = new Set<string>();
      for (let k: number | undefined = id; k !== undefined; k = parent.get(k)) {
        const s = name(byId.get(k)!);
        if (seen.has(s)) continue;
        seen.add(s);
        total.set(s, (total.get(s) ?? 0) + dt);
      }
    }
    const top = (m: Map<string, number>, k: number) =>
      [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, k)
        .map(([s, ms]) => `    ${ms.toFixed(0).padStart(5)} ms  ${s}`)
        .join("\n");
    console.log(
      `run of ${r.ms.toFixed(0)} ms\n  self:\n${top(self, 12)}\n  inclusive:\n${top(total, 25)}`,
    );
  }
}

async function main(): Promise<void> {
  const which = process.argv[2] ?? "chain-20000";
  const root = join(import.meta.dirname, "..");
  execFileSync(process.execPath, [join(root, "scripts", "build-web.mjs")], { stdio: "ignore" });
  const dir = mkdtempSync(join(tmpdir(), "bench-web-profile-"));
  let file = join(dir, `${which}.onnx`);
  if (which === "wide-100") saveModel(webWide(100, 199), file);
  else if (which === "expanded") {
    const src = join(dir, "chain-1000.onnx");
    saveModel(webChain(1000), src);
    const bin = join(root, "src", "cli", "bin.ts");
    execFileSync(process.execPath, ["--import", "tsx", bin, "expand", src, "-o", file], {
      cwd: root,
    });
  } else if (which === "expand-5000") {
    file = join(dir, "chain-5000.onnx");
    saveModel(webChain(5000), file);
  } else saveModel(webChain(Number(which.split("-")[1] ?? 20000)), file);
  const srv = await serveInspector();
  const browser = await launchChromium(findChromium()!);
  try {
    const page = await (
      await browser.newContext({ viewport: { width: 1400, height: 900 } })
    ).newPage();
    await page.goto(srv.url);
    await page.locator("body[data-state=ready]").waitFor();
    const trace = process.env.TRACE === "1";
    const cdp = await page.context().newCDPSession(page);
    const categories = [
      "devtools.timeline",
      "disabled-by-default-devtools.timeline",
      "toplevel",
      "v8",
      "blink",
      "cc",
      "gpu",
    ];
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 500 });
    const busyThenReady = async () => {
      await page
        .locator("body[data-state=busy]")
        .waitFor({ timeout: 60_000 })
        .catch(() => {});
      await page.locator("body[data-state=ready]").waitFor({ timeout: 300_000 });
      await page.waitForTimeout(1500);
    };
    if (which === "expand-5000") {
      await page.setInputFiles("#file", file);
      await busyThenReady();
      if (trace) await browser.startTracing(page, { categories });
      else await cdp.send("Profiler.start");
      await page.selectOption("#expand-mode", "all");
      await page.click("#expand-form button");
    } else {
      if (trace) await browser.startTracing(page, { categories });
      else await cdp.send("Profiler.start");
      await page.setInputFiles("#file", file);
    }
    await busyThenReady();
    const min = Number(process.argv[3] ?? 50);
    if (trace) {
      const buf = await browser.stopTracing();
      traceReport((JSON.parse(buf.toString()) as { traceEvents: TraceEvent[] }).traceEvents, min);
    } else {
      const { profile } = (await cdp.send("Profiler.stop")) as { profile: Profile };
      report(profile, min);
    }
  } finally {
    await browser.close();
    srv.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
