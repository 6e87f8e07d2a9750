// A backend without int64 (made up: plain opset 17, every element type but int64), for what
// legalize-int64 does on real models; its residue names what stays int64 and why.

import { DTYPES } from "../src/ir/dtype.js";
import { plainOpsetProfile, type Profile } from "../src/targets/profile.js";

export function noInt64Profile(): Profile {
  const plain17 = plainOpsetProfile(17);
  const types = DTYPES.map((d) => d.name).filter((n) => n !== "int64");
  return {
    ...plain17,
    name: "no-int64",
    ops: Object.fromEntries(Object.entries(plain17.ops).map(([k, r]) => [k, { ...r, types }])),
  };
}
