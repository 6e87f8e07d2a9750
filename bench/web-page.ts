// What the page benchmarks share (bench/web.ts, web-zoom.ts, web-llm.ts): the instrumentation put
// in the page before its scripts, the renderer processes' memory, and waiting for an action to end.

import type { Browser, Page } from "playwright-core";
import { readFileSync } from "node:fs";

export const TIMEOUT = Number(process.env.BENCH_WEB_TIMEOUT ?? 180) * 1000;

/**
 * In the page, before its scripts: state changes, long tasks, and input-to-frame delays (a string,
 * so that no helper the TypeScript loader adds to functions reaches the page).
 */
export const INSTRUMENT = `(() => {
  const b = { t0: 0, ready: 0, states: [], tasks: [], wheel: [], pan: [] };
  window.bench = b;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) b.tasks.push([e.startTime, e.duration]);
  }).observe({ type: "longtask", buffered: true });
  new MutationObserver(() => {
    const s = document.body ? document.body.dataset.state : "";
    const last = b.states[b.states.length - 1];
    if (!last || last[0] !== s) b.states.push([s, performance.now()]);
    if (s === "ready") b.ready = performance.now();
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-state"] });
  document.addEventListener("change", (e) => {
    if (e.target.id === "file") b.t0 = performance.now();
  }, true);
  document.addEventListener("click", (e) => {
    if (e.target.closest("#expand-form button")) b.t0 = performance.now();
  }, true);
  function frame(list) {
    const t = performance.now();
    requestAnimationFrame(() => setTimeout(() => list.push(performance.now() - t)));
  }
  window.addEventListener("wheel", () => frame(b.wheel), { capture: true, passive: true });
  window.addEventListener("mousemove", (e) => { if (e.buttons) frame(b.pan); }, { capture: true });
})();`;

export async function rendererRss(browser: Browser): Promise<number | undefined> {
  try {
    const cdp = await browser.newBrowserCDPSession();
    const info = (await cdp.send("SystemInfo.getProcessInfo")) as {
      processInfo: { type: string; id: number }[];
    };
    await cdp.detach();
    let kb = 0;
    for (const p of info.processInfo.filter((x) => x.type === "renderer")) {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.id}/status`, "utf8"));
      if (m) kb += Number(m[1]);
    }
    return kb ? kb / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export async function waitReady(page: Page): Promise<string | undefined> {
  await page.waitForFunction(
    () => {
      const b = (window as unknown as { bench: { states: [string, number][] } }).bench;
      const s = document.body.dataset.state;
      return b.states.some(([x]) => x === "busy") && s !== "busy";
    },
    undefined,
    { timeout: TIMEOUT, polling: 50 },
  );
  const state = await page.evaluate(() => document.body.dataset.state);
  if (state === "error") return (await page.locator("#error").textContent()) ?? "error";
  return undefined;
}

/** A trace's longest main-thread task: its clock and CPU time, and the most CPU any task took. */
export interface TraceTask {
  wallMs: number;
  cpuMs: number;
  maxCpuMs: number;
}

interface TraceEvent {
  name: string;
  ph: string;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

/** The renderer main thread's longest task in a trace, and the most CPU time a task took. */
export function traceTasks(buf: Buffer): TraceTask {
  const events = (JSON.parse(buf.toString()) as { traceEvents: TraceEvent[] }).traceEvents;
  const main = events.filter((e) => e.name === "thread_name" && e.args?.name === "CrRendererMain");
  const on = new Set(main.map((e) => `${e.pid}:${e.tid}`));
  let wall = 0;
  let cpu = 0;
  let maxCpu = 0;
  for (const e of events) {
    if (e.name !== "ThreadControllerImpl::RunTask" || e.ph !== "X" || !on.has(`${e.pid}:${e.tid}`))
      continue;
    const d = (e.dur ?? 0) / 1000;
    const t = (e.tdur ?? 0) / 1000;
    if (d > wall) [wall, cpu] = [d, t];
    maxCpu = Math.max(maxCpu, t);
  }
  return { wallMs: Math.round(wall), cpuMs: Math.round(cpu), maxCpuMs: Math.round(maxCpu) };
}
