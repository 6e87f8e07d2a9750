// A request fuzzer for `onnx-expand inspect`: starts the server (as a user would, in its own
// process, with a model to preload), sends it generated HTTP requests over loopback only (the
// address and port it printed), one connection each, and sorts the answers: clean (2xx), refused
// (4xx, or the connection closed without an answer), a crash (5xx, anything on the server's stderr,
// or the server gone: it is then started again) or a hang (no answer within the time cap). A
// request that must be refused (another Host, a cross-site Origin or Sec-Fetch-Site, a method
// other than GET/HEAD) and is answered 2xx is a finding too ("unsafe"). Bounded by a request count
// and a deadline; case i of seed S depends only on (S, i), so `--seed S --case i` reproduces it.

import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { deriveSeed, seededRandom, type Random } from "../../src/interp/random.js";

export type RequestOutcome = "clean" | "refused" | "crash" | "hang" | "unsafe";

export interface RequestFinding {
  index: number;
  seed: number;
  outcome: Exclude<RequestOutcome, "clean" | "refused">;
  kind: string;
  detail: string;
  request: string;
}

export interface RequestCampaignSummary {
  target: "inspect";
  seed: number;
  requests: number;
  statuses: Record<string, number>;
  outcomes: Record<RequestOutcome, number>;
  /** Times the server had to be started again (after a crash). */
  restarts: number;
  seconds: number;
  findings: RequestFinding[];
}

export interface RequestCampaignOptions {
  count: number;
  seed: number;
  only?: number;
  /** Per request, milliseconds. */
  timeoutMs?: number;
  /** The whole campaign stops after this many seconds, however many requests were sent. */
  maxSeconds?: number;
  onCase?: (done: number, total: number) => void;
}

/** A generated request: its bytes, what made it, and whether the server must refuse it. */
export interface FuzzRequest {
  kind: string;
  bytes: Buffer;
  mustRefuse: boolean;
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url));
const TSX = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const MODEL = fileURLToPath(new URL("../../examples/reduce-13.onnx", import.meta.url));

const PAGE_FILES = ["/", "/index.html", "/main.js", "/worker.js", "/style.css", "/preload"];
const METHODS = ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "PROPFIND"];
const JUNK_METHODS = ["get", "G3T", "", "GET GET", "\u00e9", "X".repeat(300)];
const PATHS = [
  "/%",
  "/%ZZ",
  "/%2f",
  "/%2F%2F",
  "/%00",
  "/index.html%00.js",
  "/%2e%2e/package.json",
  "/..%2f..%2fpackage.json",
  "/../../package.json",
  "/./index.html",
  "//etc/passwd",
  "/.hidden",
  "/web",
  "/%c0%ae%c0%ae/",
  "/%e0%80%af",
  "/%ed%a0%80",
  "/\u00e9t\u00e9",
  "/preload/",
  "/preload%00",
  "/PRELOAD",
  "/index.html?x=%",
  "/index.html#frag",
  "/" + "a".repeat(5000),
  "/" + "%2e%2e%2f".repeat(300),
  "*",
  "http://127.0.0.1/",
  "http://attacker.example/preload",
  "index.html",
  "",
];
const BAD_HOSTS = [
  "attacker.example",
  "attacker.example:PORT",
  "127.0.0.1",
  "127.0.0.1:1",
  "localhost",
  "localhost.:PORT",
  "127.0.0.1.nip.io:PORT",
  "0.0.0.0:PORT",
  "[::ffff:127.0.0.1]:PORT",
  "127.1:PORT",
  "2130706433:PORT",
  "user@127.0.0.1:PORT",
  "127.0.0.1:PORT/x",
  "127.0.0.1:PORT@attacker.example",
  "",
];
const BAD_ORIGINS = [
  "http://attacker.example",
  "https://127.0.0.1:PORT",
  "http://127.0.0.1:1",
  "null",
  "file://",
  "http://localhost.attacker.example:PORT",
  "http://127.0.0.1:PORT.attacker.example",
];
const BAD_SITES = ["cross-site", "same-site", "CROSS-SITE", "bogus"];
const GOOD_HOSTS = ["127.0.0.1:PORT", "localhost:PORT", "[::1]:PORT", "LOCALHOST:PORT"];

interface Parts {
  method: string;
  target: string;
  version: string;
  headers: [string, string][];
  body: string;
}

function serialize(p: Parts): Buffer {
  const head = [`${p.method} ${p.target} ${p.version}`, ...p.headers.map(([k, v]) => `${k}: ${v}`)];
  return Buffer.from(head.join("\r\n") + "\r\n\r\n" + p.body, "latin1");
}

const MUTATIONS = ["method", "path", "host", "origin", "site", "headers", "body", "bytes"] as const;

/** Request `index` of a campaign with `seed`, for a server on `port`. */
export function makeRequest(seed: number, index: number, port: number): FuzzRequest {
  const rng = seededRandom(deriveSeed(seed, index));
  const sub = (s: string) => s.replaceAll("PORT", String(port));
  const p: Parts = {
    method: rng.pick(["GET", "HEAD"]),
    target: rng.pick(PAGE_FILES),
    version: "HTTP/1.1",
    headers: [["Host", sub(rng.pick(GOOD_HOSTS))]],
    body: "",
  };
  if (rng.chance(0.3)) p.headers.push(["Sec-Fetch-Site", rng.pick(["same-origin", "none"])]);
  if (rng.chance(0.2)) p.headers.push(["Origin", `http://${sub(rng.pick(GOOD_HOSTS))}`]);
  // One in eight requests is left as a page would send it; the others get one to three mutations.
  const kinds: string[] = [];
  let mustRefuse = false;
  let bytes: Buffer | undefined;
  const n = rng.chance(0.125) ? 0 : 1 + rng.int(3);
  for (let k = 0; k < n; k++) {
    const kind = rng.pick(MUTATIONS);
    kinds.push(kind);
    mustRefuse = mutate(p, kind, rng, sub) || mustRefuse;
    if (kind === "bytes") bytes = mutateBytes(serialize(p), rng);
  }
  return {
    kind: kinds.length ? kinds.join("+") : "valid",
    bytes: bytes ?? serialize(p),
    // A byte-level mutation may have damaged the reason to refuse along with the rest.
    mustRefuse: mustRefuse && bytes === undefined,
  };
}

/** Applies one mutation; true when the request must now be refused. */
function mutate(p: Parts, kind: string, rng: Random, sub: (s: string) => string): boolean {
  const setHeader = (name: string, value: string) => {
    p.headers = p.headers.filter(([k]) => k.toLowerCase() !== name.toLowerCase());
    p.headers.push([name, value]);
  };
  switch (kind) {
    case "method":
      if (rng.chance(0.8)) {
        p.method = rng.pick(METHODS);
        if (rng.chance(0.5)) p.body = "x".repeat(rng.int(100));
        if (p.body) setHeader("Content-Length", String(p.body.length));
        return true;
      }
      p.method = rng.pick(JUNK_METHODS);
      return false;
    case "path":
      p.target = rng.chance(0.7) ? rng.pick(PATHS) : randomPath(rng);
      return false;
    case "host":
      if (rng.chance(0.15)) {
        p.headers = p.headers.filter(([k]) => k.toLowerCase() !== "host");
        if (rng.chance(0.5)) p.version = "HTTP/1.0";
        return p.version === "HTTP/1.1";
      }
      if (rng.chance(0.1)) {
        p.headers.push(["Host", sub(rng.pick(BAD_HOSTS))]); // two Host headers
        return false;
      }
      setHeader("Host", sub(rng.pick(BAD_HOSTS)));
      return true;
    case "origin":
      setHeader("Origin", sub(rng.pick(BAD_ORIGINS)));
      return true;
    case "site":
      setHeader("Sec-Fetch-Site", rng.pick(BAD_SITES));
      return true;
    case "headers": {
      const pick = rng.int(5);
      if (pick === 0) p.headers.push(["X-Junk", "v".repeat(rng.pick([10, 1000, 20000, 70000]))]);
      else if (pick === 1)
        for (let i = 0; i < rng.pick([10, 200, 3000]); i++) p.headers.push([`X-${i}`, "1"]);
      else if (pick === 2) p.headers.push(["Bad Name", "x"], ["\u00ff", "\u00ff"]);
      else if (pick === 3) p.headers.push(["X-Fold", "a\r\n b"]);
      else p.version = rng.pick(["HTTP/1.0", "HTTP/2.0", "HTTP/9.9", "HTTP/1.1x", "", "FOO"]);
      return false;
    }
    case "body": {
      const pick = rng.int(4);
      p.body = "y".repeat(rng.int(200));
      if (pick === 0) setHeader("Content-Length", String(p.body.length + 1 + rng.int(1000)));
      else if (pick === 1)
        setHeader("Content-Length", rng.pick(["-1", "abc", "1e9", "99999999999"]));
      else if (pick === 2) {
        setHeader("Transfer-Encoding", "chunked");
        p.body = rng.pick(["zz\r\n", "5\r\nab", "0\r\n\r\n", "ffffffffffffffff\r\n"]);
      } else {
        setHeader("Transfer-Encoding", "chunked");
        setHeader("Content-Length", "3");
      }
      return false;
    }
    default:
      return false;
  }
}

function randomPath(rng: Random): string {
  const alphabet = "abc./%2fFeE0-_~?#;:@&=+$,\\\"'<>`{}|^[]! \t\u00e9\u0000";
  let s = "/";
  for (let i = rng.int(40); i > 0; i--) s += alphabet[rng.int(alphabet.length)];
  return s;
}

function mutateBytes(b: Buffer, rng: Random): Buffer {
  const out = Buffer.from(b);
  switch (rng.int(4)) {
    case 0:
      for (let i = 1 + rng.int(8); i > 0; i--) out[rng.int(out.length)]! ^= 1 << rng.int(8);
      return out;
    case 1:
      return out.subarray(0, rng.int(out.length));
    case 2: {
      const at = rng.int(out.length);
      const ins = Buffer.from(rng.pick(["\r\n", "\n", "\0", "\r", " ", ":", "\r\n\r\n"]), "latin1");
      return Buffer.concat([out.subarray(0, at), ins, out.subarray(at)]);
    }
    default: {
      const at = rng.int(out.length);
      return Buffer.concat([out.subarray(0, at), out.subarray(at + 1 + rng.int(8))]);
    }
  }
}

/** The status of the answer to `bytes`, 0 when the connection closed without one, "hang" if none came. */
export function sendRaw(port: number, bytes: Buffer, timeoutMs: number): Promise<number | "hang"> {
  return new Promise((resolve) => {
    const sock = connect({ host: "127.0.0.1", port });
    let got = Buffer.alloc(0);
    let done = false;
    const finish = (r: number | "hang") => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => finish("hang"), timeoutMs);
    sock.on("connect", () => sock.end(bytes));
    sock.on("data", (d: Buffer) => {
      got = Buffer.concat([got, d]).subarray(0, 64);
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(got.toString("latin1"));
      if (m) finish(Number(m[1]));
    });
    sock.on("error", () => finish(0));
    sock.on("close", () => finish(0));
  });
}

interface Running {
  child: ChildProcess;
  port: number;
  stderr: string[];
}

/** Starts `onnx-expand inspect MODEL` and waits for the address it prints (loopback only). */
export function startInspect(timeoutMs = 60_000): Promise<Running> {
  const child = spawn(process.execPath, ["--import", TSX, BIN, "inspect", MODEL], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stderr: string[] = [];
  child.stderr!.on("data", (d: Buffer) => stderr.push(d.toString()));
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`inspect did not start: ${out}${stderr.join("")}`));
    }, timeoutMs);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /serving http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), stderr });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`inspect exited ${code} before serving: ${out}${stderr.join("")}`));
    });
  });
}

function stop(r: Running): Promise<void> {
  if (r.child.exitCode !== null || r.child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    r.child.once("exit", () => resolve());
    r.child.kill("SIGINT");
  });
}

const show = (b: Buffer) =>
  JSON.stringify(b.subarray(0, 200).toString("latin1")) +
  (b.length > 200 ? `… (${b.length} B)` : "");

export async function runRequestCampaign(
  o: RequestCampaignOptions,
): Promise<RequestCampaignSummary> {
  const started = Date.now();
  const deadline = started + (o.maxSeconds ?? 600) * 1000;
  const timeoutMs = o.timeoutMs ?? 5000;
  const cases = o.only !== undefined ? [o.only] : Array.from({ length: o.count }, (_, i) => i);
  const s: RequestCampaignSummary = {
    target: "inspect",
    seed: o.seed,
    requests: 0,
    statuses: {},
    outcomes: { clean: 0, refused: 0, crash: 0, hang: 0, unsafe: 0 },
    restarts: 0,
    seconds: 0,
    findings: [],
  };
  let srv = await startInspect();
  try {
    for (const index of cases) {
      if (Date.now() > deadline) break;
      const req = makeRequest(o.seed, index, srv.port);
      const status = await sendRaw(srv.port, req.bytes, timeoutMs);
      s.requests++;
      s.statuses[String(status)] = (s.statuses[String(status)] ?? 0) + 1;
      // Give an exit or a stack trace the moment it needs to show; a server that wrote to
      // stderr is given half a second to exit, so that its exit is blamed on this request.
      await new Promise((r) => setImmediate(r));
      const gone = () => srv.child.exitCode !== null || srv.child.signalCode !== null;
      for (let t = 0; srv.stderr.length && !gone() && t < 10; t++)
        await new Promise((r) => setTimeout(r, 50));
      const died = gone();
      const errText = srv.stderr.splice(0).join("");
      let outcome: RequestOutcome;
      let detail = `status ${status}`;
      if (died) {
        outcome = "crash";
        detail = `server exited (${srv.child.exitCode ?? srv.child.signalCode}): ${errText.split("\n")[0]}`;
      } else if (errText) {
        outcome = "crash";
        detail = `server wrote to stderr: ${errText.split("\n")[0]}`;
      } else if (status === "hang") outcome = "hang";
      else if (status >= 500) outcome = "crash";
      else if (status >= 200 && status < 300) outcome = req.mustRefuse ? "unsafe" : "clean";
      else outcome = "refused";
      s.outcomes[outcome]++;
      if (outcome !== "clean" && outcome !== "refused")
        s.findings.push({
          index,
          seed: o.seed,
          outcome,
          kind: req.kind,
          detail,
          request: show(req.bytes),
        });
      if (died) {
        s.restarts++;
        srv = await startInspect();
      }
      o.onCase?.(s.requests, cases.length);
    }
    // The server must still answer a plain request at the end.
    const last = await sendRaw(
      srv.port,
      Buffer.from(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\n\r\n`),
      timeoutMs,
    );
    if (last !== 200)
      s.findings.push({
        index: -1,
        seed: o.seed,
        outcome: last === "hang" ? "hang" : "crash",
        kind: "final",
        detail: `GET / after the campaign: ${last}`,
        request: "GET /",
      });
  } finally {
    await stop(srv);
  }
  s.seconds = (Date.now() - started) / 1000;
  return s;
}
