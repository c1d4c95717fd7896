// Process checks for the tests of commands the CLI runs: is a pid still running, and waiting for a
// file a command writes to show it has started.
import { readFileSync, watch } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * True while `pid` runs. A zombie (ended, not yet reaped by whoever inherited it) counts as ended:
 * it runs nothing and holds nothing.
 */
export function alive(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // The state follows the parenthesised command name, which may itself hold spaces or parentheses.
  return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

/** Resolves once `dir/name` exists (write it by rename, so it appears whole). Woken by the folder's changes. */
export function untilFile(dir: string, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dir);
    const check = () =>
      access(join(dir, name)).then(
        () => {
          watcher.close();
          resolve();
        },
        () => undefined,
      );
    watcher.on('change', check);
    watcher.on('error', (error) => {
      watcher.close();
      reject(error);
    });
    void check();
  });
}

/**
 * Resolves once `pid` has ended. A signalled process ends when the kernel next schedules it, which on a
 * loaded machine can come after the run that signalled it has already said so; nothing announces it, so
 * this looks every 20 ms (the test's own limit is the guard against a process that never ends).
 */
export async function untilEnded(pid: number): Promise<void> {
  while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
}
