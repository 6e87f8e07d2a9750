// Search and change stepping across every view of a pane: the main graph, subgraphs (If, Loop,
// Scan bodies) and local functions. Find searches every view of the active pane; its hits are
// listed by kind (ops and node names apart from value names), each labelled by its view, and a
// step to a hit in another view opens that view. `n`/`p` step the changes of the pane that has
// focus (each pane keeps its own list and place), one distinct box a step, opening the view and
// the groups that hold it; the other pane follows to the match, or to the change's place.

import type { WorkerClient } from "./client.js";
import type { LayoutItem } from "./graph/types.js";
import { inView } from "./labels.js";
import { $ } from "./panels.js";
import type { PaneState } from "./panes.js";
import type { ChangeStep, FindHit, SideName } from "./protocol.js";

/** What the page gives the navigator: its panes and the steps it already has. */
export interface NavPage {
  panes: Record<SideName, PaneState>;
  active(): SideName;
  client: WorkerClient;
  show(p: PaneState, view: string, keepView?: boolean): Promise<void>;
  openGroups(p: PaneState, groups: string[]): Promise<void>;
  selectItem(p: PaneState, item: LayoutItem | null, reveal: boolean): Promise<void>;
  select(p: PaneState, key: string | null, reveal: boolean): void;
  act(what: string, near: HTMLElement, f: () => Promise<void>): Promise<boolean>;
  constantsAsNodes(): boolean;
}

const where = (side: SideName) => (side === "a" ? "original" : "result");

export class Navigator {
  private hits: FindHit[] = [];
  private hitSide: SideName = "a";
  private hitAt = -1;
  private changes: Partial<Record<SideName, { steps: ChangeStep[]; at: number }>> = {};

  constructor(private readonly page: NavPage) {}

  /** Search and stepping forgotten (a new model or result). */
  clear(): void {
    this.hits = [];
    this.hitAt = -1;
    this.changes = {};
    this.renderHitList();
    for (const p of Object.values(this.page.panes)) {
      p.canvas?.highlight([]);
      delete this.paneEl(p).dataset.hits;
    }
    $("find-count").textContent = "";
  }

  /** The hits of the pane's shown view, highlighted (after it is drawn again). */
  highlight(p: PaneState): void {
    const keys =
      p.side === this.hitSide ? this.hits.filter((h) => h.view === p.view).map((h) => h.key) : [];
    p.canvas?.highlight(keys);
  }

  /** Whether `query` is the search already made (Enter then steps on). */
  has(): boolean {
    return this.hits.length > 0;
  }

  async find(query: string): Promise<void> {
    const p = this.page.panes[this.page.active()];
    this.clear();
    if (!p.canvas || !query.trim()) return;
    this.hitSide = p.side;
    this.hits = await this.page.client.ask("find", { side: p.side, query });
    this.highlight(p);
    this.renderHitList();
    this.paneEl(p).dataset.hits = String(this.hits.length);
    if (!this.hits.length) {
      $("find-count").textContent = `no match in any view of the ${where(p.side)}`;
      return;
    }
    await this.jumpHit(0);
  }

  async jumpHit(k: number): Promise<void> {
    const p = this.page.panes[this.hitSide];
    if (!this.hits.length || !p.layout) return;
    this.hitAt = (k + this.hits.length) % this.hits.length;
    const hit = this.hits[this.hitAt]!;
    await this.goTo(p, hit.view, hit.key, hit.groups);
    const within = inView(hit.viewTitle);
    $("find-count").textContent =
      `${this.hitAt + 1} of ${this.hits.length}: ${hit.label} (${hit.match}) in the ${where(p.side)}${within ? ` ${within}` : ""}`;
    this.markListed(this.hitAt);
  }

  step(k: number): Promise<void> {
    return this.jumpHit(this.hitAt + k);
  }

  /** The next (or previous) change of the pane that has focus. */
  async jumpChange(step: number): Promise<void> {
    const p = this.page.panes[this.page.active()];
    if (!p.canvas) return;
    let c = this.changes[p.side];
    if (!c) {
      const steps = await this.page.client.ask("changes", {
        side: p.side,
        constantsAsNodes: this.page.constantsAsNodes(),
      });
      c = this.changes[p.side] = { steps, at: -1 };
    }
    const n = c.steps.length;
    if (!n) {
      $("find-count").textContent = `no changes marked in the ${where(p.side)}`;
      return;
    }
    c.at = c.at < 0 && step < 0 ? n - 1 : (((c.at + step) % n) + n) % n;
    const s = c.steps[c.at]!;
    await this.goTo(p, s.view, s.key, s.groups);
    const within = inView(s.viewTitle);
    $("find-count").textContent =
      `change ${c.at + 1} of ${n} in the ${where(p.side)} (${s.mark})${within ? ` ${within}` : ""}`;
    this.paneEl(p).dataset.changeAt = String(c.at);
  }

  /** Shows a box of a view: the view opened, then the groups that hold it; then selected. */
  private async goTo(p: PaneState, view: string, key: string, groups: string[]): Promise<void> {
    if (p.view !== view) await this.page.show(p, view);
    await this.reveal(p, key, groups);
  }

  /** Opens the groups that hold a box (laying out again), then selects it and brings it into view. */
  async reveal(p: PaneState, key: string, groups: string[]): Promise<void> {
    await this.page.openGroups(p, groups);
    const item = p.layout!.items.find((i) => i.key === key) ?? null;
    if (item) await this.page.selectItem(p, item, true);
    else if (/^n\d+$/.test(key)) {
      // A node drawn inside its consumer (a folded Constant): its consumer's box shows where it is.
      const index = Number(key.slice(1));
      const host = p.layout!.items.find((i) => i.folded?.some((f) => f.index === index));
      await this.page.selectItem(
        p,
        {
          ...(host ?? { label: "", sub: "", x: 0, y: 0, w: 0, h: 0, parent: "" }),
          key,
          kind: "op",
          index,
        },
        false,
      );
      if (host) p.canvas?.select(host.key, true);
    } else this.page.select(p, key, true);
  }

  /**
   * The hits as a list under the find bar, any one a click away, the current one marked: ops and
   * node names first, value names apart under their own heading; each hit's view said.
   */
  private renderHitList(): void {
    const box = $("hit-list");
    box.replaceChildren();
    box.hidden = this.hits.length === 0;
    if (box.hidden) return;
    const bar = $("find-bar").getBoundingClientRect();
    box.style.top = `${Math.round(bar.bottom)}px`;
    const close = document.createElement("button");
    close.type = "button";
    close.className = "close";
    close.textContent = "×";
    close.title = "hide the list (the search stays: Enter steps on)";
    close.onclick = () => (box.hidden = true);
    box.append(close);
    let heading = "";
    this.hits.forEach((hit, k) => {
      const kind = valueHit(hit) ? "value names" : "ops and nodes";
      if (kind !== heading) {
        heading = kind;
        const n = this.hits.filter((x) => (valueHit(x) ? "value names" : "ops and nodes") === kind);
        box.append(
          Object.assign(document.createElement("h4"), { textContent: `${kind} (${n.length})` }),
        );
      }
      const b = document.createElement("button");
      b.type = "button";
      const within = inView(hit.viewTitle);
      b.textContent = `${k + 1}. ${hit.label} (${hit.match})`;
      if (within)
        b.append(Object.assign(document.createElement("small"), { textContent: ` ${within}` }));
      b.title = `${hit.label}: ${hit.match} match in ${hit.viewTitle}`;
      b.dataset.hit = String(k);
      b.dataset.kind = kind === "value names" ? "value" : "op";
      b.dataset.view = hit.view;
      b.onclick = () => void this.page.act("search", $("find-form"), () => this.jumpHit(k));
      box.append(b);
    });
  }

  private markListed(k: number): void {
    for (const b of $("hit-list").querySelectorAll<HTMLButtonElement>("button[data-hit]")) {
      const on = Number(b.dataset.hit) === k;
      b.classList.toggle("current", on);
      if (on) b.scrollIntoView({ block: "nearest" });
    }
  }

  private paneEl(p: PaneState): HTMLElement {
    return $(`pane-${p.side}`);
  }
}

/** A hit of a value's name only (queries.ts ranks these last). */
const valueHit = (h: FindHit) => !["op", "node name", "input", "output"].includes(h.match);
