// Exit codes and the --verbose switch: what every command and the program's shell share. Kept
// free of imports so that `--version` and `--help` load nothing else.

export const EXIT_OK = 0;
/** A check or test failed. */
export const EXIT_FAILED = 1;
/** Bad usage or bad input. */
export const EXIT_BAD_INPUT = 2;

let verbose = false;
export function setVerbose(v: boolean): void {
  verbose = v;
}
/** Whether errors print their stack traces (--verbose). */
export function isVerbose(): boolean {
  return verbose;
}
