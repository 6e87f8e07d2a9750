// The page's status line and the error box shown beside the action that failed.

import { $ } from "./panels.js";

export function status(text: string): void {
  $("status").textContent = text;
  $("status").title = text;
}

export function showError(message: string, notes: string[], near: HTMLElement): void {
  const box = $("error");
  box.textContent = [message, ...notes.map((n) => `  ${n}`)].join("\n");
  near.insertAdjacentElement("afterend", box);
  box.hidden = false;
  box.scrollIntoView({ block: "nearest" });
  status(`Failed: ${message.split("\n")[0]}`);
}

export function clearError(): void {
  $("error").hidden = true;
  $("error").textContent = "";
}
