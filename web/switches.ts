// The page's drawing switches: Constants and initializers drawn as nodes of their own (by default
// they are drawn inside the node that consumes them, a line each).

/** Whether the switch asks for constants as nodes. */
export function constantsAsNodes(): boolean {
  return (document.getElementById("const-nodes") as HTMLInputElement | null)?.checked ?? false;
}

/** Calls `redraw` when the switch is turned. */
export function onConstantsSwitch(redraw: () => void): void {
  const box = document.getElementById("const-nodes") as HTMLInputElement | null;
  if (box) box.onchange = redraw;
}
