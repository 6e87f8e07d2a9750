// `onnx-expand inspect`: serves dist/web on 127.0.0.1 with the model preloaded, prints where, and
// stops cleanly on Ctrl-C (SIGINT).

import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const bin = join(root, "src", "cli", "bin.ts");
const tsx = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const model = join(root, "examples", "reduce-13.onnx");

describe("onnx-expand inspect", () => {
  beforeAll(() => {
    execFileSync(process.execPath, [join(root, "scripts", "build-web.mjs")], { stdio: "ignore" });
  }, 120_000);

  it("serves the page and the preloaded model on 127.0.0.1 until SIGINT", async () => {
    const child = spawn(process.execPath, ["--import", tsx, bin, "inspect", model], { cwd: root });
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        const m = out.match(/serving (http:\/\/127\.0\.0\.1:\d+\/)/);
        if (m) resolve(m[1]!);
      });
      child.on("exit", (code) => reject(new Error(`exited ${code} before serving: ${out}`)));
    });
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("onnx-expand inspector");
    expect((await fetch(`${url}worker.js`)).status).toBe(200);
    const pre = await fetch(`${url}preload`);
    expect(decodeURIComponent(pre.headers.get("x-model-name")!)).toBe("reduce-13.onnx");
    expect(new Uint8Array(await pre.arrayBuffer())).toEqual(new Uint8Array(readFileSync(model)));
    expect((await fetch(`${url}%2E%2E%2Fpackage.json`)).status).toBe(404);
    const code = await new Promise<number | null>((resolve) => {
      child.on("exit", (c) => resolve(c));
      child.kill("SIGINT");
    });
    expect(code).toBe(0);
  }, 120_000);

  it("refuses a missing model with exit 2 and serves nothing", () => {
    const r = spawn(process.execPath, ["--import", tsx, bin, "inspect", "no-such.onnx"], {
      cwd: root,
    });
    return new Promise<void>((resolve) => {
      let err = "";
      r.stderr.on("data", (d: Buffer) => (err += d.toString()));
      r.on("exit", (code) => {
        expect(code).toBe(2);
        expect(err).toContain("no such file");
        resolve();
      });
    });
  }, 60_000);
});
