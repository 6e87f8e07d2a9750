// Every family's rows, one line each: a new family file (exporting `rows`) adds its line here.

export { rows as argmax } from "./argmax.js";
export { rows as batchnorm } from "./batchnorm.js";
export { rows as broadcast } from "./broadcast.js";
export { rows as clip } from "./clip.js";
export { rows as dropout } from "./dropout.js";
export { rows as gathernd } from "./gathernd.js";
export { rows as groupnorm } from "./groupnorm.js";
export { rows as legacy } from "./legacy.js";
export { rows as misc } from "./misc.js";
export { rows as pad } from "./pad.js";
export { rows as quant } from "./quant.js";
export { rows as reduce } from "./reduce.js";
export { rows as resize } from "./resize.js";
export { rows as scan } from "./scan.js";
export { rows as slice } from "./slice.js";
export { rows as softmax } from "./softmax.js";
export { rows as split } from "./split.js";
export { rows as squeeze } from "./squeeze.js";
export { rows as widen } from "./widen.js";
export { rows as shape } from "./shape.js";
export { rows as pool } from "./pool.js";
