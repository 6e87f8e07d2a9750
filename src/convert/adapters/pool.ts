// Pooling's dilations on the way down: AveragePool-19 added them; below 19 a node may keep
// them only where every dilation is 1 (the default, along each spatial axis).

import type { AdapterRow } from "../adapter.js";
import { attributeDropped, row } from "./kit.js";

/** Dilations that mean what their absence means: 1 along every spatial axis, whatever the rank. */
const unit = (d: unknown) => Array.isArray(d) && d.every((x) => x === 1n);

export const rows: AdapterRow[] = [
  row(
    "AveragePool",
    19,
    11,
    "attribute 'dilations' dropped (blocked unless every dilation is 1)",
    attributeDropped("dilations", unit),
  ),
];
