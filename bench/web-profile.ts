// `npx tsx bench/web-profile.ts CASE`: what the inspector page's long main-thread tasks are made
// of (issue 17). Loads one bench:web model (chain-20000, wide-100, expanded, expand-5000) in headless
// Chromium with the DevTools CPU profiler on, cuts the samples into runs of non-idle time, and for
// each run over 50 ms prints the functions with the most time (self and inclusive).

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
    const cdp = await page.context().newCDPSession(page);
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
      await cdp.send("Profiler.start");
      await page.selectOption("#expand-mode", "all");
      await page.click("#expand-form button");
    } else {
      await cdp.send("Profiler.start");
      await page.setInputFiles("#file", file);
    }
    await busyThenReady();
    const { profile } = (await cdp.send("Profiler.stop")) as { profile: Profile };
    report(profile, Number(process.argv[3] ?? 50));
  } finally {
    await browser.close();
    srv.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
