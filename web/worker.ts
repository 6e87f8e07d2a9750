import { decodeModel } from "../src/io/codec.js";
import { SchemaRegistry } from "../src/schema/registry.js";
import { convertPass } from "../src/convert/index.js";
import { expandPass } from "../src/expand/expand.js";
import { diffModels } from "../src/expand/diff.js";
import { run } from "../src/interp/executor.js";
import { checkModel } from "../src/check/index.js";
import { parseModelText } from "../src/text/parse.js";
import ELK from "elkjs/lib/elk.bundled.js";
console.log(
  decodeModel,
  SchemaRegistry,
  convertPass,
  expandPass,
  diffModels,
  run,
  checkModel,
  parseModelText,
  ELK,
);
