// `onnx-expand inspect` as a user runs it (its own process, the model preloaded), sent requests on
// loopback: no request ends the server (bad percent-encoding is 400, a path that is no file of the
// page 404), only its own Host is answered, cross-site requests (by Origin or Sec-Fetch-Site) are
// refused, only GET and HEAD are served, and every answer carries the page's header set; the model
// is served whole or in one range (206, 416 past its end or for several ranges). Ends with a fixed
// sample of the request fuzzer (scripts/fuzz/requests.ts).

import { request } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGE_HEADERS, judgeRequest, parseRange, serveInspector } from "../../src/cli/server.js";
import { runRequestCampaign, sendRaw, startInspect } from "../../scripts/fuzz/requests.js";

const root = join(import.meta.dirname, "..", "..");
const model = readFileSync(join(root, "examples", "reduce-13.onnx"));

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

let srv: Awaited<ReturnType<typeof startInspect>>;

/** One request to the server on 127.0.0.1 with exactly these headers (Host included). */
function send(path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: srv.port,
        path,
        method,
        setHost: false,
        headers: { host: `127.0.0.1:${srv.port}`, ...headers },
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.end();
  });
}

/** The server is alive, answers the page, and wrote nothing to stderr. */
async function expectAlive(): Promise<void> {
  expect(srv.child.exitCode).toBeNull();
  expect((await send("/")).status).toBe(200);
  expect(srv.stderr.join("")).toBe("");
}

beforeAll(async () => {
  srv = await startInspect();
}, 120_000);

afterAll(async () => {
  if (srv && srv.child.exitCode === null) {
    const exited = new Promise((r) => srv.child.once("exit", r));
    srv.child.kill("SIGINT");
    await exited;
  }
});

describe("inspect server: no request ends it", () => {
  it("answers 400 to a path whose percent-encoding does not decode", async () => {
    for (const path of ["/%", "/%ZZ", "/%E0%A4%A", "/%ed%a0%80", "/main.js%"]) {
      const a = await send(path);
      expect(a.status, path).toBe(400);
      expect(a.body.toString()).toMatch(/^bad percent-encoding/);
    }
    await expectAlive();
  });

  it("answers 404 to a path that is no file of the page (folders, traversal, hidden files)", async () => {
    for (const path of [
      "/%2f",
      "/%2F%2F",
      "//",
      "/%2e%2e/package.json",
      "/..%2fpackage.json",
      "/../package.json",
      "/.hidden",
      "/%00",
      "/index.html%00",
      "/preload/",
      "/no-such.js",
    ]) {
      const a = await send(path);
      expect(a.status, path).toBe(404);
      expect(a.body.toString()).not.toContain('"name"');
    }
    await expectAlive();
  });

  it("answers 400 to a request target that is not a path, and survives malformed requests", async () => {
    const host = `Host: 127.0.0.1:${srv.port}\r\n`;
    const raw = (s: string) => sendRaw(srv.port, Buffer.from(s, "latin1"), 10_000);
    for (const target of ["*", "http://attacker.example/preload", "index.html"])
      expect(await raw(`GET ${target} HTTP/1.1\r\n${host}\r\n`), target).toBe(400);
    // Broken syntax: refused by the HTTP parser (4xx, or the connection closed), never 5xx or a hang;
    // a body is not read, so a broken one after good headers still gets the page.
    for (const bad of [
      `GET / HTTP/9.9\r\n${host}\r\n`,
      `G\0T / HTTP/1.1\r\n${host}\r\n`,
      `GET / HTTP/1.1\r\n${host}Content-Length: abc\r\n\r\n`,
      `GET / HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\n\r\nzz\r\n`,
      `GET / HTTP/1.1\r\n${host}X: ${"v".repeat(70_000)}\r\n\r\n`,
      `GET / HTTP/1.1\r\n${host}`,
    ]) {
      const status = await raw(bad);
      expect(status, JSON.stringify(bad.slice(0, 60))).not.toBe("hang");
      expect(status, JSON.stringify(bad.slice(0, 60))).toBeLessThan(500);
    }
    await expectAlive();
  });
});

describe("inspect server: what it serves, and to whom", () => {
  it("serves the page and the preloaded model, with the page's header set on every answer", async () => {
    const page = await send("/");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.body.toString()).toContain("onnx-expand inspector");
    const pre = await send("/preload");
    expect(pre.status).toBe(200);
    expect(decodeURIComponent(pre.headers["x-model-name"] as string)).toBe("reduce-13.onnx");
    expect(new Uint8Array(pre.body)).toEqual(new Uint8Array(model));
    for (const a of [page, pre, await send("/worker.js"), await send("/%"), await send("/x")])
      for (const [k, v] of Object.entries(PAGE_HEADERS)) expect(a.headers[k], k).toBe(v);
    expect(PAGE_HEADERS["content-security-policy"]).toContain("default-src 'self'");
    expect(PAGE_HEADERS["content-security-policy"]).toContain(
      "script-src 'self' 'wasm-unsafe-eval'",
    );
    expect(PAGE_HEADERS["content-security-policy"]).toContain("worker-src 'self'");
    expect(PAGE_HEADERS["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(PAGE_HEADERS["x-content-type-options"]).toBe("nosniff");
    expect(PAGE_HEADERS["cross-origin-opener-policy"]).toBe("same-origin");
    expect(PAGE_HEADERS["cross-origin-embedder-policy"]).toBe("require-corp");
  });

  it("without a model, /preload is an empty 204 (no error in the page's console)", async () => {
    const bare = await serveInspector();
    try {
      const r = await fetch(new URL("preload", bare.url));
      expect(r.status).toBe(204);
      expect((await r.arrayBuffer()).byteLength).toBe(0);
      expect(r.headers.get("cross-origin-embedder-policy")).toBe("require-corp");
      expect((await fetch(new URL("preload/1", bare.url))).status).toBe(404);
    } finally {
      bare.server.close();
    }
  });

  it("answers only its own Host: 127.0.0.1, localhost or [::1] with its port", async () => {
    const p = srv.port;
    for (const host of [`127.0.0.1:${p}`, `localhost:${p}`, `LocalHost:${p}`, `[::1]:${p}`])
      expect((await send("/preload", { host })).status, host).toBe(200);
    for (const host of [
      "attacker.example",
      `attacker.example:${p}`,
      "127.0.0.1",
      `127.0.0.1:${p + 1 > 65535 ? 1 : p + 1}`,
      `localhost.:${p}`,
      `0.0.0.0:${p}`,
      `2130706433:${p}`,
      `127.0.0.1:${p}.attacker.example`,
    ]) {
      const a = await send("/preload", { host });
      expect(a.status, host).toBe(403);
      expect(a.body.length).toBeLessThan(100);
    }
    // HTTP/1.0 may omit Host; this server still wants its own.
    expect(await sendRaw(p, Buffer.from("GET /preload HTTP/1.0\r\n\r\n"), 10_000)).toBe(403);
  });

  it("refuses cross-site requests by Origin and by Sec-Fetch-Site", async () => {
    const p = srv.port;
    for (const origin of [
      "http://attacker.example",
      "null",
      `https://127.0.0.1:${p}`,
      `http://127.0.0.1:${p === 1 ? 2 : 1}`,
      `http://localhost.attacker.example:${p}`,
    ])
      expect((await send("/preload", { origin })).status, origin).toBe(403);
    for (const origin of [`http://127.0.0.1:${p}`, `http://localhost:${p}`, `http://[::1]:${p}`])
      expect((await send("/preload", { origin })).status, origin).toBe(200);
    for (const site of ["cross-site", "same-site", "bogus"])
      expect((await send("/preload", { "sec-fetch-site": site })).status, site).toBe(403);
    for (const site of ["same-origin", "none"])
      expect((await send("/preload", { "sec-fetch-site": site })).status, site).toBe(200);
  });

  it("serves GET and HEAD only; HEAD gets the headers without the body", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
      const a = await send("/preload", {}, method);
      expect(a.status, method).toBe(405);
      expect(a.headers.allow).toBe("GET, HEAD");
      expect(a.body.toString()).toMatch(/^only GET and HEAD/);
    }
    const head = await send("/preload", {}, "HEAD");
    expect(head.status).toBe(200);
    expect(Number(head.headers["content-length"])).toBe(model.length);
    expect(head.body.length).toBe(0);
    await expectAlive();
  });
});

describe("inspect server: ranges", () => {
  it("answers one byte range with 206 and exactly those bytes, as `bytes=a-b`, `a-` and `-n`", async () => {
    const n = model.length;
    const cases: [string, number, number][] = [
      ["bytes=0-0", 0, 0],
      ["bytes=3-9", 3, 9],
      [`bytes=5-${n + 100}`, 5, n - 1],
      ["bytes=10-", 10, n - 1],
      ["bytes=-7", n - 7, n - 1],
      [`bytes=-${n + 5}`, 0, n - 1],
      [`bytes=${n - 1}-${n - 1}`, n - 1, n - 1],
    ];
    for (const [range, start, end] of cases) {
      const a = await send("/preload", { range });
      expect(a.status, range).toBe(206);
      expect(a.headers["content-range"], range).toBe(`bytes ${start}-${end}/${n}`);
      expect(Number(a.headers["content-length"]), range).toBe(end + 1 - start);
      expect(a.headers["accept-ranges"]).toBe("bytes");
      expect(Buffer.compare(a.body, model.subarray(start, end + 1)), range).toBe(0);
      for (const [k, v] of Object.entries(PAGE_HEADERS)) expect(a.headers[k], k).toBe(v);
    }
    // HEAD with a range: the part's headers, no body.
    const head = await send("/preload", { range: "bytes=2-5" }, "HEAD");
    expect(head.status).toBe(206);
    expect(head.headers["content-length"]).toBe("4");
    expect(head.body.length).toBe(0);
    // No range, or a unit other than bytes (ignored): the whole file, saying ranges are served.
    for (const headers of [{}, { range: "items=0-3" }] as Record<string, string>[]) {
      const whole = await send("/preload", headers);
      expect(whole.status).toBe(200);
      expect(whole.headers["accept-ranges"]).toBe("bytes");
      expect(Buffer.compare(whole.body, model)).toBe(0);
    }
    await expectAlive();
  });

  it("answers 416 with the file's size to a range past the end, a malformed one, or several", async () => {
    const n = model.length;
    for (const range of [
      `bytes=${n}-`,
      `bytes=${n + 10}-${n + 20}`,
      "bytes=-0",
      "bytes=9-3",
      "bytes=x-3",
      "bytes=-",
      "bytes=1-2-3",
      "bytes=0-1,4-5",
      `bytes=${"9".repeat(30)}-`,
    ]) {
      const a = await send("/preload", { range });
      expect(a.status, range).toBe(416);
      expect(a.headers["content-range"], range).toBe(`bytes */${n}`);
      expect(a.body.toString(), range).toMatch(/^refused: (one range|malformed range|range past)/);
      expect(a.body.length, range).toBeLessThan(200);
    }
    await expectAlive();
  });

  it("parseRange: whole, one part, or unsatisfiable", () => {
    expect(parseRange(undefined, 10)).toEqual({ kind: "whole" });
    expect(parseRange("pages=1-2", 10)).toEqual({ kind: "whole" });
    expect(parseRange("bytes=2-4", 10)).toEqual({ kind: "part", start: 2, end: 4 });
    expect(parseRange(" Bytes = 2-", 10)).toEqual({ kind: "part", start: 2, end: 9 });
    expect(parseRange("bytes=-3", 10)).toEqual({ kind: "part", start: 7, end: 9 });
    expect(parseRange("bytes=0-0", 0)).toMatchObject({ kind: "unsatisfiable" });
    expect(parseRange("bytes=-1", 0)).toMatchObject({ kind: "unsatisfiable" });
    // A range of a file past 2 GiB (and 4 GiB): positions are exact up to 15 digits.
    const big = 5 * 2 ** 30 + 3;
    expect(parseRange(`bytes=${big - 8}-${big + 8}`, big)).toEqual({
      kind: "part",
      start: big - 8,
      end: big - 1,
    });
  });
});

describe("judgeRequest", () => {
  const h = (headers: Record<string, string>) => ({ host: "127.0.0.1:8000", ...headers });
  const judge = (url: string, headers: Record<string, string> = {}, method = "GET") =>
    judgeRequest({ method, url, headers: h(headers) }, 8000);

  it("maps paths to the page's files, the model, or a refusal", () => {
    expect(judge("/")).toEqual({ kind: "file", name: "index.html" });
    expect(judge("/?x=1")).toEqual({ kind: "file", name: "index.html" });
    expect(judge("/main.js")).toEqual({ kind: "file", name: "main.js" });
    expect(judge("/preload")).toEqual({ kind: "preload", index: 0 });
    // The preloaded model's data files, by number.
    expect(judge("/preload/2")).toEqual({ kind: "preload", index: 2 });
    expect(judge("/preload/0")).toMatchObject({ kind: "refuse", status: 404 });
    expect(judge("/preload/x")).toMatchObject({ kind: "refuse", status: 404 });
    expect(judge("/%")).toMatchObject({ kind: "refuse", status: 400 });
    expect(judge("/%2f")).toMatchObject({ kind: "refuse", status: 404 });
    expect(judge("/a/b.js")).toMatchObject({ kind: "refuse", status: 404 });
    expect(judge("*")).toMatchObject({ kind: "refuse", status: 400 });
  });

  it("refuses by Host before anything else", () => {
    expect(
      judgeRequest({ method: "POST", url: "/%", headers: { host: "evil:8000" } }, 8000),
    ).toMatchObject({ status: 403 });
    expect(judgeRequest({ method: "GET", url: "/", headers: {} }, 8000)).toMatchObject({
      status: 403,
    });
    expect(judge("/", {}, "POST")).toMatchObject({ status: 405, allow: "GET, HEAD" });
  });
});

describe("request fuzzer", () => {
  it("a fixed sample of 150 requests: no crash, hang or unsafe answer", async () => {
    const s = await runRequestCampaign({ count: 150, seed: 20261203, maxSeconds: 120 });
    expect(s.requests).toBe(150);
    expect(s.findings.map((f) => `${f.outcome} case ${f.index}: ${f.detail}`)).toEqual([]);
    expect(s.outcomes.clean + s.outcomes.refused).toBe(150);
    expect(s.outcomes.clean).toBeGreaterThan(0);
    expect(s.outcomes.refused).toBeGreaterThan(0);
  }, 180_000);
});
