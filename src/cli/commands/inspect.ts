// inspect: serves the inspector page (dist/web, built by `npm run build:web`) on 127.0.0.1, with
// the model given on the command line preloaded. Opens nothing; stops on Ctrl-C.

import type { Command } from "commander";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { basename, extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { OnnxError } from "../../errors.js";
import { EXIT_OK, action } from "../util.js";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
};

/** dist/web, from src/cli/commands (run through tsx) or dist/cli/commands. */
export function webDir(): string {
  for (const rel of ["../../web/", "../../../dist/web/"]) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, "index.html")) && existsSync(join(dir, "worker.js"))) return dir;
  }
  throw new OnnxError("E_IO", "the inspector page is not built: run `npm run build:web` first");
}

export interface InspectServer {
  server: Server;
  url: string;
}

/** Starts the server; `model`: a file served as ./preload. Port 0 picks a free one. */
export function serveInspector(
  opts: { port?: number; model?: string } = {},
): Promise<InspectServer> {
  const dir = webDir();
  let preload: { bytes: Buffer; name: string } | undefined;
  if (opts.model !== undefined) {
    if (!existsSync(opts.model)) throw new OnnxError("E_IO", "no such file", opts.model);
    if (!statSync(opts.model).isFile())
      throw new OnnxError("E_IO", "not a regular file", opts.model);
    preload = { bytes: readFileSync(opts.model), name: basename(opts.model) };
  }
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const headers = { "cache-control": "no-store" };
    if (path === "/preload") {
      if (!preload) {
        res.writeHead(404, headers).end("no model given");
        return;
      }
      res
        .writeHead(200, {
          ...headers,
          "content-type": "application/octet-stream",
          "x-model-name": encodeURIComponent(preload.name),
        })
        .end(preload.bytes);
      return;
    }
    const file = normalize(join(dir, path === "/" ? "index.html" : path));
    if (!file.startsWith(dir.endsWith(sep) ? dir : dir + sep) || !existsSync(file)) {
      res.writeHead(404, headers).end("not found");
      return;
    }
    res
      .writeHead(200, {
        ...headers,
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      })
      .end(readFileSync(file));
  });
  return new Promise((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(
        new OnnxError(
          "E_IO",
          `cannot listen on 127.0.0.1:${opts.port ?? 0}: ${e.code ?? e.message}`,
        ),
      ),
    );
    server.listen(opts.port ?? 0, "127.0.0.1", () => {
      const addr = server.address();
      const port = typeof addr === "object" && addr ? addr.port : opts.port;
      resolve({ server, url: `http://127.0.0.1:${port}/` });
    });
  });
}

export function registerInspectCommands(program: Command): void {
  program
    .command("inspect")
    .description(
      "serve the inspector web page on 127.0.0.1 (a free port unless --port); opens nothing, stops on Ctrl-C",
    )
    .argument("[model]", "model to preload (.onnx or .onnxtxt)")
    .option("--port <n>", "port to listen on (default: a free one)")
    .action(
      action(async (model: string | undefined, opts: { port?: string }) => {
        let port: number | undefined;
        if (opts.port !== undefined) {
          if (!/^\d+$/.test(opts.port) || Number(opts.port) > 65535)
            throw new OnnxError("E_USAGE", `--port must be a port number, not '${opts.port}'`);
          port = Number(opts.port);
        }
        const { server, url } = await serveInspector({ port, model });
        process.stdout.write(
          `onnx-expand inspect: serving ${url}${model ? ` with ${model}` : ""} (Ctrl-C to stop)\n`,
        );
        await new Promise<void>((resolve) => {
          const stop = () => {
            process.off("SIGINT", stop);
            process.off("SIGTERM", stop);
            server.closeAllConnections();
            server.close(() => resolve());
          };
          process.on("SIGINT", stop);
          process.on("SIGTERM", stop);
        });
        return EXIT_OK;
      }),
    );
}
