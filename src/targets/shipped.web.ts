// Browser build: the shipped profiles (targets/*.json), bundled as data by the web build's
// esbuild plugin (the virtual module "onnx-expand:targets"). Stands in for shipped.node.ts.

// @ts-expect-error: a virtual module of the web build (scripts/build-web.mjs)
import bundled from "onnx-expand:targets";
import { parseProfile, type Profile } from "./profile.js";

let profiles: Profile[] | undefined;

/** The shipped profiles, each file once (older versions too), by name then version. */
export function shippedProfiles(): Profile[] {
  profiles ??= (bundled as { path: string; text: string }[]).map((f) =>
    parseProfile(f.text, f.path),
  );
  return profiles;
}
