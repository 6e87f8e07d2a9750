// Squeeze and Unsqueeze 11 <-> 13: the `axes` attribute became an input (optional for Squeeze,
// required for Unsqueeze). Absent Squeeze axes (every dimension of size 1) stay absent.

import type { AdapterRow } from "../adapter.js";
import { axesAttributeToInput, axesInputToAttribute } from "./common.js";

export const SQUEEZE_ROWS: AdapterRow[] = ["Squeeze", "Unsqueeze"].flatMap((op) => [
  {
    domain: "",
    op,
    from: 11,
    to: 13,
    summary: "axes attribute -> constant int64 input",
    adapter: axesAttributeToInput(),
  },
  {
    domain: "",
    op,
    from: 13,
    to: 11,
    summary: "constant axes input -> attribute (axes computed at run time block)",
    adapter: axesInputToAttribute(),
  },
]);
