// Squeeze and Unsqueeze 11 <-> 13: the `axes` attribute became an input (optional for Squeeze,
// required for Unsqueeze). Absent Squeeze axes (every dimension of size 1) stay absent.

import type { AdapterRow } from "../adapter.js";
import { axesRows } from "./kit.js";

export const rows: AdapterRow[] = ["Squeeze", "Unsqueeze"].flatMap((op) =>
  axesRows(op, 11, 13, {
    summaries: [
      "axes attribute -> constant int64 input",
      "constant axes input -> attribute (axes computed at run time block)",
    ],
  }),
);
