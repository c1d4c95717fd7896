// Bundles a fixture of this folder (see `bundleFixture` in tests/support/child-process.ts).
import { bundleFixture as bundle } from '../support/child-process.js';

export function bundleFixture(fixture: string, dir: string): Promise<string> {
  return bundle(new URL(`./fixtures/${fixture}`, import.meta.url), dir);
}
