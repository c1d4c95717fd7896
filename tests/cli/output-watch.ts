// What the command-running helpers (CliProcess, PtyCli) share: the command they run and a way to wait
// for text to appear in what it printed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

export const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
export const TSX = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

/**
 * Node's arguments that run `indusagi ARGS`: the run's bundle of the command (tests/support/cli-setup.ts),
 * which starts in a third of the time the sources take through tsx. A command that imports the user's
 * TypeScript module (`eval FILE`, `serve`/`worker --agent FILE`) runs from the sources through tsx
 * instead: that module imports src/, and it must get the very modules the command runs on (the same
 * classes and module state), as a user's module and the installed command share the package's files.
 */
export function cliArgv(args: string[]): string[] {
  if (args[0] === 'eval' || args.includes('--agent')) return ['--import', TSX, MAIN, ...args];
  const bundle = inject('cliBundle');
  if (bundle === undefined) throw new Error('no bundled command: tests/support/cli-setup.ts must be in the vitest globalSetup');
  return [bundle, ...args];
}

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
