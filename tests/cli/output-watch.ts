// What the command-running helpers (CliProcess, PtyCli) share: the command they run and a way to wait
// for text to appear in what it printed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
export const TSX = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

// The user's config folder of every command a test runs, unless the test gives HOME or XDG_CONFIG_HOME
// itself: empty, so neither the rules and trust of the machine's user reach a test nor a test's answers
// reach the machine's user.
const ISOLATED_CONFIG = mkdtempSync(join(tmpdir(), 'indusagi-config-'));

/** `base` (a copy of the test's environment) with the user's config folder set as `given` says, else the isolated one. */
export function withUserConfig(base: NodeJS.ProcessEnv, given: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = { ...base };
  delete env.XDG_CONFIG_HOME;
  if (!('HOME' in given) && !('XDG_CONFIG_HOME' in given)) env.XDG_CONFIG_HOME = ISOLATED_CONFIG;
  return { ...env, ...given };
}

/** Output that grows as a process prints, with waiters woken on every chunk. */
export class OutputWatch {
  private readonly watchers = new Set<() => void>();

  /** Call after the output grew. */
  grew(): void {
    for (const watcher of [...this.watchers]) watcher();
  }

  /**
   * Resolves once `text()` matches `pattern` (checked now and as output grows); rejects with
   * `ended()`'s account if `finished` settles first without a match.
   */
  waitFor(text: () => string, pattern: RegExp, finished: Promise<unknown>, ended: () => string): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = text().match(pattern);
        if (match) {
          this.watchers.delete(check);
          resolve(match);
        }
      };
      this.watchers.add(check);
      check();
      finished.then(() => {
        if (!text().match(pattern)) reject(new Error(ended()));
      }, reject);
    });
  }
}
