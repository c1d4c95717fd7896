// vitest globalSetup: names the run's pack folder (tests/support/packed.ts packs into it on the first
// file's request, so a run that installs no tarball packs nothing) and removes it when the run ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    packDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'indusagi-pack-'));
  project.provide('packDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
