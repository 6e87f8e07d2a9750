// The inspector's HTTP server: serves dist/web (built by `npm run build:web`) and, when a model was
// given, that model as /preload, on 127.0.0.1 only. Every request is judged before anything is
// read: a request no browser on this machine's own page would send (another Host, a cross-site
// Origin or Sec-Fetch-Site, a method other than GET/HEAD, a path that is not one of the page's
// files) is refused with a 4xx status and a one-line text body; no request can end the server.
// The model and its data files are served in ranges (one `Range: bytes=` range a request, 206
// answers, 416 for a range past the end): the page reads a weight where it lies, never a file
// of gigabytes whole.

import {
  closeSync,
  constants,
  createReadStream,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  realpathSync,
  statSync,
} from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { basename, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { OnnxError } from "../errors.js";
import { externalEntry, externalFile, loadModel } from "../io/files.js";
import { walkTensors } from "../ir/visit.js";

/**
 * The page's header set, sent with every response of the server (and used by the browser tests):
 * a Content-Security-Policy the page runs under (its own files only, no inline script or style, no
 * eval except WebAssembly compilation, which the worker does for its kernels; not framed by
 * anyone), no content sniffing, and cross-origin isolation (COOP + COEP) so that the page may use
 * shared memory across workers. A copy of the page served without them still works, single-threaded.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy": [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; "),
  "x-content-type-options": "nosniff",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-embedder-policy": "require-corp",
  "cross-origin-resource-policy": "same-origin",
  "referrer-policy": "no-referrer",
});

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
};

/** A file name the page may ask for: one segment, no dot first, no separators or controls. */
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** dist/web, from src/cli (run through tsx) or dist/cli. */
export function webDir(): string {
  for (const rel of ["../web/", "../../dist/web/"]) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, "index.html")) && existsSync(join(dir, "worker.js"))) return dir;
  }
  throw new OnnxError("E_IO", "the inspector page is not built: run `npm run build:web` first");
}

export interface InspectServer {
  server: Server;
  url: string;
  port: number;
}

/** What the server answers a request with, decided from its method, headers and path alone. */
export type Verdict =
  | { kind: "file"; name: string }
  /** The preloaded model (0) or one of its data files (1, 2, ...). */
  | { kind: "preload"; index: number }
  | { kind: "refuse"; status: number; reason: string; allow?: string };

/** The Host values the server answers to: its own address and port, by IPv4, IPv6 or name. */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

const refuse = (status: number, reason: string): Verdict => ({ kind: "refuse", status, reason });

/**
 * Judges one request for a server on `port`. Refusals: 405 for a method other than GET/HEAD; 403
 * for a Host other than this server's own (DNS rebinding), an Origin of another site, or a
 * Sec-Fetch-Site other than same-origin/none (a cross-site request, which carries no Origin when
 * it is a no-cors GET); 400 for a request target that is not a path or does not decode; 404 for a
 * path that is not one of the page's files.
 */
export function judgeRequest(
  req: { method?: string; url?: string; headers: IncomingMessage["headers"] },
  port: number,
): Verdict {
  const hosts = allowedHosts(port);
  const host = req.headers.host?.toLowerCase();
  if (host === undefined || !hosts.has(host)) return refuse(403, "refused: not this server's Host");
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const m = /^http:\/\/(.+)$/i.exec(origin);
    if (!m || !hosts.has(m[1]!.toLowerCase())) return refuse(403, "refused: cross-site Origin");
  }
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none")
    return refuse(403, "refused: cross-site request");
  if (req.method !== "GET" && req.method !== "HEAD")
    return {
      kind: "refuse",
      status: 405,
      reason: "only GET and HEAD are served",
      allow: "GET, HEAD",
    };
  const target = req.url ?? "";
  if (!target.startsWith("/")) return refuse(400, "bad request target");
  const raw = target.replace(/[?#].*$/s, "");
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return refuse(400, "bad percent-encoding in the path");
  }
  if (path === "/") return { kind: "file", name: "index.html" };
  if (path === "/preload") return { kind: "preload", index: 0 };
  const data = /^\/preload\/([1-9]\d{0,5})$/.exec(path);
  if (data) return { kind: "preload", index: Number(data[1]) };
  const name = path.slice(1);
  if (!FILE_NAME.test(name)) return refuse(404, "not found");
  return { kind: "file", name };
}

/** What a request's Range header asks of a file of `size` bytes. */
export type RangeAsk =
  /** No Range header, or one in a unit other than bytes (ignored, as HTTP says): the whole file. */
  | { kind: "whole" }
  /** One range, [start, end] inclusive, within the file. */
  | { kind: "part"; start: number; end: number }
  /** Answered 416: a range past the end, malformed, or more than one. */
  | { kind: "unsatisfiable"; reason: string };

const BYTE_POS = /^\d{1,15}$/;

/**
 * Reads a Range header (RFC 9110 §14.1.2) against a file of `size` bytes: `bytes=a-b`, `bytes=a-`
 * (to the end) and `bytes=-n` (the last n bytes); an end past the file is cut to it. The server
 * serves one range a request: several (`bytes=0-1,4-5`) are refused rather than served whole,
 * as is a malformed byte range, so that a request for a part never costs a file of gigabytes.
 */
export function parseRange(header: string | undefined, size: number): RangeAsk {
  if (header === undefined) return { kind: "whole" };
  const m = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!m) return { kind: "whole" };
  const specs = m[1]!.split(",").map((x) => x.trim());
  if (specs.length !== 1)
    return { kind: "unsatisfiable", reason: "one range per request is served" };
  const dash = specs[0]!.indexOf("-");
  const first = specs[0]!.slice(0, dash);
  const last = specs[0]!.slice(dash + 1);
  const bad = { kind: "unsatisfiable", reason: `malformed range '${specs[0]}'` } as const;
  if (dash < 0 || (first !== "" && !BYTE_POS.test(first)) || (last !== "" && !BYTE_POS.test(last)))
    return bad;
  const past = {
    kind: "unsatisfiable",
    reason: `range past the end of a file of ${size} bytes`,
  } as const;
  if (first === "") {
    // The last n bytes.
    if (last === "") return bad;
    const n = Number(last);
    if (n === 0 || size === 0) return past;
    return { kind: "part", start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Number(last);
  if (end < start) return bad;
  if (start >= size) return past;
  return { kind: "part", start, end: Math.min(end, size - 1) };
}

/** Starts the server; `model`: a file served as ./preload. Port 0 picks a free one. */
export function serveInspector(
  opts: { port?: number; model?: string } = {},
): Promise<InspectServer> {
  const dir = webDir();
  let preload: Preload | undefined;
  if (opts.model !== undefined) {
    if (!existsSync(opts.model)) throw new OnnxError("E_IO", "no such file", opts.model);
    if (!statSync(opts.model).isFile())
      throw new OnnxError("E_IO", "not a regular file", opts.model);
    preload = preloadFiles(opts.model);
  }
  let port = opts.port ?? 0;
  const server = createServer((req, res) => {
    req.on("error", () => undefined);
    res.on("error", () => undefined);
    try {
      answer(req, res, judgeRequest(req, port), dir, preload);
    } catch {
      // A file that vanished or cannot be read between the check and the read.
      if (!res.headersSent) send(res, 404, "not found");
      else res.destroy();
    }
  });
  server.on("close", () => {
    if (preload) closeServed(preload);
  });
  // Slow or silent clients are cut off rather than held.
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  // What the HTTP parser refuses (broken syntax, headers over 16 KiB) is answered here.
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
    const status =
      err.code === "HPE_HEADER_OVERFLOW"
        ? "431 Request Header Fields Too Large"
        : "400 Bad Request";
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\n\r\n`);
    else socket.destroy();
  });
  return new Promise((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(new OnnxError("E_IO", `cannot listen on 127.0.0.1:${port}: ${e.code ?? e.message}`)),
    );
    server.listen(port, "127.0.0.1", () => {
      const addr = server.address();
      if (typeof addr === "object" && addr) port = addr.port;
      resolve({ server, url: `http://127.0.0.1:${port}/`, port });
    });
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  const bytes = typeof body === "string" ? Buffer.from(body + "\n") : body;
  res
    .writeHead(status, {
      ...PAGE_HEADERS,
      "cache-control": "no-store",
      "content-type": "text/plain; charset=utf-8",
      "content-length": String(bytes.length),
      ...headers,
    })
    .end(bytes);
}

/**
 * The preloaded model and the data files its external tensors name (checked as any command
 * checks them: inside the model's folder, regular files), served as /preload and /preload/<i>.
 * Each is opened once, at start, and served from that descriptor; each request first checks that
 * the path still names that same regular file (lstat: no symbolic link swapped in, the same device
 * and inode) and refuses it otherwise, so a file replaced while the server runs is never served,
 * whatever it now points to.
 */
interface Served {
  name: string;
  path: string;
  fd: number;
  dev: number;
  ino: number;
}
type Preload = Served[];

function openServed(name: string, path: string): Served {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw new OnnxError("E_IO", "not a regular file", path);
  }
  return { name, path, fd, dev: st.dev, ino: st.ino };
}

function preloadFiles(model: string): Preload {
  const files: Preload = [];
  try {
    files.push(openServed(basename(model), realpathSync.native(model)));
    const seen = new Set<string>();
    for (const t of walkTensors(loadModel(model))) {
      if (t.data.kind !== "external") continue;
      const loc = externalEntry(t, "location") ?? "";
      if (seen.has(loc)) continue;
      seen.add(loc);
      files.push(openServed(loc, externalFile(t, model)));
    }
  } catch (e) {
    closeServed(files);
    throw e;
  }
  return files;
}

function closeServed(files: Preload): void {
  for (const f of files)
    try {
      closeSync(f.fd);
    } catch {
      /* closed already */
    }
}

/** The size of a served file if its path still names the file opened at start, else undefined. */
function stillServed(f: Served): number | undefined {
  try {
    const l = lstatSync(f.path);
    if (!l.isFile() || l.dev !== f.dev || l.ino !== f.ino) return undefined;
    return fstatSync(f.fd).size;
  } catch {
    return undefined;
  }
}

function answer(
  req: IncomingMessage,
  res: ServerResponse,
  verdict: Verdict,
  dir: string,
  preload: Preload | undefined,
): void {
  if (req.method !== "GET" && req.method !== "HEAD") res.shouldKeepAlive = false;
  if (verdict.kind === "refuse") {
    send(res, verdict.status, verdict.reason, verdict.allow ? { allow: verdict.allow } : {});
    return;
  }
  if (verdict.kind === "preload") {
    // No model given: 204, an empty answer the page expects (a 404 would be logged in its
    // console as an error on every start).
    if (!preload && verdict.index === 0) {
      res.writeHead(204, { ...PAGE_HEADERS, "cache-control": "no-store" }).end();
      return;
    }
    const f = preload?.[verdict.index];
    if (!f) {
      send(res, 404, preload ? "no such data file" : "no model given");
      return;
    }
    // Streamed from disk (a model of gigabytes is never held by the server), from the descriptor
    // opened at start, and only while the path still names that file; whole or one range of it.
    const size = stillServed(f);
    if (size === undefined) {
      send(res, 410, "refused: the file changed on disk since the server started");
      return;
    }
    const range = parseRange(req.headers.range, size);
    if (range.kind === "unsatisfiable") {
      send(res, 416, `refused: ${range.reason}`, { "content-range": `bytes */${size}` });
      return;
    }
    const [start, end] = range.kind === "part" ? [range.start, range.end] : [0, size - 1];
    res.writeHead(range.kind === "part" ? 206 : 200, {
      ...PAGE_HEADERS,
      "cache-control": "no-store",
      "content-type": "application/octet-stream",
      "content-length": String(end + 1 - start),
      "accept-ranges": "bytes",
      ...(range.kind === "part" ? { "content-range": `bytes ${start}-${end}/${size}` } : {}),
      ...(verdict.index === 0
        ? {
            "x-model-name": encodeURIComponent(f.name),
            "x-data-files": encodeURIComponent(
              JSON.stringify(preload!.slice(1).map((d) => d.name)),
            ),
          }
        : {}),
    });
    if (req.method === "HEAD" || end < start) res.end();
    else
      createReadStream("", { fd: f.fd, start, end, autoClose: false })
        .on("error", () => res.destroy())
        .pipe(res);
    return;
  }
  const file = join(dir, verdict.name);
  if (!existsSync(file) || !statSync(file).isFile()) {
    send(res, 404, "not found");
    return;
  }
  send(res, 200, readFileSync(file), {
    "content-type": TYPES[extname(file)] ?? "application/octet-stream",
  });
}
