// The first wheel-zoom frame on a freshly drawn graph at its overview (bench/web.ts, case "first
// zoom"): the page loaded anew each time, the model picked, the whole graph fitted in the pane
// (Fit), and once the page is idle one wheel step out over the graph, the heaviest first frame
// (every box of the graph in view, painted as pixels, by code not yet warm). Measured: the time
// from the wheel event to the end of the next frame (INSTRUMENT, as bench/web.ts times every
// zoom), the longest main-thread task from the wheel on, and from a trace that task's CPU time.
// The median of `loads` page loads.

import type { Browser } from "playwright-core";
import { INSTRUMENT, traceTasks, waitReady, type TraceTask } from "./web-page.js";

export interface FirstZoom {
  name: string;
  /** Per load: the first zoom frame, ms. */
  frames: number[];
  /** Per load: the longest main-thread task from the wheel on (Long Tasks API; 0 under 50 ms). */
  tasks: number[];
  /** Per load: the trace's longest main-thread task meanwhile, by the clock and on the CPU. */
  traced: TraceTask[];
  medianMs: number;
  target: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function firstZoom(
  browser: Browser,
  url: string,
  file: string,
  name: string,
  loads = 5,
): Promise<FirstZoom> {
  const out: FirstZoom = { name, frames: [], tasks: [], traced: [], medianMs: 0, target: 100 };
  for (let k = 0; k < loads; k++) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    try {
      const page = await context.newPage();
      await page.addInitScript(INSTRUMENT);
      await page.goto(url);
      await page.locator("body[data-state=ready]").waitFor({ timeout: 30_000 });
      await page.setInputFiles("#file", file);
      const error = await waitReady(page);
      if (error) throw new Error(`${name}: ${error}`);
      const box = (await page.locator("#pane-a").boundingBox())!;
      await page.click("#pane-a button.fit");
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      // Idle first: what is measured is the zoom, not the end of the drawing.
      await page.waitForTimeout(500);
      await browser.startTracing(page, { categories: ["toplevel"] });
      const t = await page.evaluate(() => performance.now());
      await page.mouse.wheel(0, 120);
      await page.waitForFunction(
        () => (window as unknown as { bench: { wheel: number[] } }).bench.wheel.length > 0,
      );
      await page.waitForTimeout(300);
      const m = await page.evaluate((from) => {
        const b = (window as unknown as { bench: { wheel: number[]; tasks: [number, number][] } })
          .bench;
        const after = b.tasks.filter(([s]) => s >= from).map(([, d]) => d);
        return { frame: b.wheel[0]!, task: Math.max(0, ...after) };
      }, t);
      out.traced.push(traceTasks(await browser.stopTracing()));
      out.frames.push(Math.round(m.frame));
      out.tasks.push(Math.round(m.task));
    } finally {
      await browser.stopTracing().catch(() => undefined);
      await context.close().catch(() => undefined);
    }
  }
  out.medianMs = median(out.frames);
  return out;
}
