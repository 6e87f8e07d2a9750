// inspect: serves the inspector page (dist/web, built by `npm run build:web`) on 127.0.0.1, with
// the model given on the command line preloaded (the server and what it refuses: ../server.ts).
// Opens nothing; stops on Ctrl-C.

import type { Command } from "commander";
import { OnnxError } from "../../errors.js";
import { serveInspector } from "../server.js";
import { EXIT_OK, action } from "../util.js";

export { serveInspector, webDir, type InspectServer } from "../server.js";

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
