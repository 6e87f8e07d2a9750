// A pane's view saved as SVG or PNG, named after the model and the view.

import type { PaneState } from "./panes.js";

export function exportView(p: PaneState, kind: "svg" | "png"): Promise<void> {
  const base = `${(p.summary?.name ?? "model").replace(/[^\w.-]+/g, "_")}-${p.view.replace(/[^\w.-]+/g, "_")}`;
  const save = (blob: Blob) => {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `${base}.${kind}`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  };
  if (kind === "svg") {
    save(new Blob([p.canvas!.exportSvg()], { type: "image/svg+xml" }));
    return Promise.resolve();
  }
  return p.canvas!.exportPng().then(save);
}
