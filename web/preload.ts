// The model `onnx-expand inspect MODEL` serves with the page: ./preload and the data files it
// names, ./preload/1, ./preload/2, ... (src/cli/server.ts). Only their names are asked for here
// (a HEAD request); the worker reads the files in ranges where their tensors lie, as it reads
// picked files, so a data file past 2 GiB opens as a small one does.

import type { OpenedFile } from "./protocol.js";

/** The served model's name and files, or undefined when no model is served (204, or 404 elsewhere). */
export async function servedModel(): Promise<{ name: string; files: OpenedFile[] } | undefined> {
  let r: Response;
  try {
    r = await fetch("preload", { method: "HEAD" });
  } catch {
    return undefined;
  }
  if (!r.ok || r.status === 204) return undefined;
  const name = decodeURIComponent(r.headers.get("x-model-name") ?? "model.onnx");
  const data = JSON.parse(
    decodeURIComponent(r.headers.get("x-data-files") ?? "%5B%5D"),
  ) as string[];
  const at = (path: string) => new URL(path, location.href).href;
  return {
    name,
    files: [
      { name, url: at("preload") },
      ...data.map((d, i) => ({ name: d, url: at(`preload/${i + 1}`) })),
    ],
  };
}
