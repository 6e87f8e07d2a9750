// The page's status line and the error box shown beside the action that failed.

import { $ } from "./panels.js";

export function status(text: string): void {
  $("status").textContent = text;
  $("status").title = text;
}

/**
 * The error box, in the flow under the bars (the panes move down rather than being covered);
 * its × closes it.
 */
export function showError(message: string, notes: string[], near: HTMLElement): void {
  const box = $("error");
  box.textContent = [message, ...notes.map((n) => `  ${n}`)].join("\n");
  // The × is drawn by CSS (the box's text stays the message alone).
  const close = document.createElement("button");
  close.type = "button";
  close.className = "close-error";
  close.setAttribute("aria-label", "close");
  close.title = "close";
  close.onclick = () => clearError();
  box.prepend(close);
  // Under the bars, whatever failed (the one row of actions has no room beside a form); what
  // failed is named by the message and kept for scripts.
  $("top").append(box);
  box.dataset.near = near.id;
  box.hidden = false;
  box.scrollIntoView({ block: "nearest" });
  status(`Failed: ${message.split("\n")[0]}`);
}

export function clearError(): void {
  $("error").hidden = true;
  $("error").textContent = "";
}
