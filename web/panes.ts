// A pane of the page: the side it shows (a: the model loaded, b: the result), its view, layout and
// canvas, the groups opened and closed, the diff marks, the selection and the painted numbers.

import type { GraphCanvas } from "./graph/canvas.js";
import type { Layout, Paint } from "./graph/types.js";
import type { SideName, Summary } from "./protocol.js";

export interface PaneState {
  side: SideName;
  summary?: Summary;
  view: string;
  layout?: Layout;
  canvas?: GraphCanvas;
  /** Groups the user opened and closed in the shown view. */
  open: Set<string>;
  closed: Set<string>;
  /** Diff marks of the shown view: node index -> mark. */
  marks: Map<number, string>;
  selected: string | null;
  /** Numbers painted on the main view's boxes after a run (see paintRun). */
  painted?: Map<string, Paint>;
}

export const fresh = (side: SideName): PaneState => ({
  side,
  view: "main",
  open: new Set(),
  closed: new Set(),
  marks: new Map(),
  selected: null,
});
