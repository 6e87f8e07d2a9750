// Placeholder, replaced below.
export function generateNet(name: string, dir: string): void {
  throw new Error(`cannot generate '${name}' in ${dir}`);
}
