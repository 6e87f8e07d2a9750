// The contract between the graph view's three parts: the scene (a view's graph grouped by origin,
// built in the worker), its layout (positions, computed in the worker for what is open), and the
// canvas that draws a layout in the page. The page asks the worker for a Layout with the groups it
// has opened, and hands it to a GraphCanvas.

export type Mark = "added" | "removed" | "changed";

/** One box on the canvas. */
export interface LayoutItem {
  /**
   * Stable key within a view: `n<index>` for a node of the view's graph, `g<path>` for a group (its
   * path of scope names), `i<k>` / `o<k>` for the graph's k-th input / output, `c<index>` for a
   * Constant or initializer drawn as a node (when constants are shown as nodes): a Constant by its
   * node index, the k-th initializer as `c<n+k>` (n: the view's node count, index -1).
   */
  key: string;
  kind: "op" | "in" | "out" | "group" | "const";
  /** Index of the node in the view's graph (op, const from a Constant node), else -1. */
  index: number;
  label: string;
  sub: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** Key of the open group this box is drawn inside, "" at the top level. */
  parent: string;
  mark?: Mark;
  /** A collapsed group: how many nodes it holds (at any depth). */
  count?: number;
  /** Subgraphs an op holds (If, Loop, Scan). */
  subgraphs?: number;
  /** Constants and initializers folded into this op: value name and a short text (dtype, shape). */
  folded?: {
    name: string;
    text: string;
    /** The Constant node's index (-1 or absent: an initializer), and its diff mark. */
    index?: number;
    mark?: Mark;
  }[];
}

/** The frame of an open group, drawn behind its contents. */
export interface LayoutFrame {
  key: string;
  label: string;
  parent: string;
  x: number;
  y: number;
  w: number;
  h: number;
  count: number;
  mark?: Mark;
}

export interface LayoutEdge {
  from: string;
  to: string;
  /** Polyline x0, y0, x1, y1, …  in layout coordinates. */
  points: number[];
  /** The value (or values) the edge carries. */
  title: string;
}

export interface Layout {
  view: string;
  title: string;
  items: LayoutItem[];
  frames: LayoutFrame[];
  edges: LayoutEdge[];
  width: number;
  height: number;
  /** Milliseconds the worker spent on grouping and layout. */
  ms: number;
  /** How many op nodes the view's graph has in all (open or not). */
  total: number;
}

/** What the page asks of the worker's layout for one view. */
export interface LayoutOptions {
  /** Keys of the groups opened by the user; every other group with many nodes starts collapsed. */
  open: string[];
  /** Keys of groups closed by the user (wins over opening by default). */
  closed?: string[];
  /** Draw Constants and initializers as nodes of their own instead of inside their consumers. */
  constantsAsNodes: boolean;
}

/** What a canvas tells the page. */
export interface GraphCanvasEvents {
  /** A box was clicked (null: the background). */
  select(item: LayoutItem | null): void;
  /** A group box or frame asked to open (true) or close (false). */
  toggleGroup(key: string, open: boolean): void;
}

/** The drawing surface of one pane (web/graph/canvas.ts implements it). */
export interface GraphCanvasApi {
  /** Draws a new layout; keeps the current zoom and position when keepView. */
  setLayout(layout: Layout, keepView?: boolean): void;
  /** The whole graph in view. */
  fit(): void;
  /** A readable scale, on the graph's first inputs. */
  home(): void;
  zoomBy(factor: number, atX?: number, atY?: number): void;
  panBy(dx: number, dy: number): void;
  /** Marks one box as selected (null: none) and, when reveal, brings it into view. */
  select(key: string | null, reveal?: boolean): void;
  /** Boxes to highlight as search hits. */
  highlight(keys: string[]): void;
  /**
   * Boxes to mark as having a Check problem; `partial`: boxes the target takes only in part
   * (another colour; a box in both lists is marked as a problem).
   */
  problems(keys: string[], partial?: string[]): void;
  /** Numbers painted on boxes by key (a run's differences or times); an empty map clears. */
  paint(values: Map<string, Paint>): void;
  /** The view as an SVG document, and as a PNG. */
  exportSvg(): string;
  exportPng(): Promise<Blob>;
  /** Milliseconds the last frame took to draw. */
  readonly lastFrameMs: number;
  destroy(): void;
}

/** A number painted on a box: the band's colour and the text shown with it. */
export interface Paint {
  color: string;
  text: string;
}
