// Node-only: the shipped profiles (targets/*.json) read from disk. The web build replaces this
// module by shipped.web.ts, which has the same files as bundled data.

import { listProfiles } from "./load.js";
import type { Profile } from "./profile.js";

/** The shipped profiles, each file once (older versions too), by name then version. */
export function shippedProfiles(): Profile[] {
  return listProfiles();
}
