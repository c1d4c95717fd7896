import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { ToolError } from '../../tools/index.js';

/**
 * The folder the file tools may touch. Every path the model names is resolved inside it, symlinks
 * included, so a prompt cannot talk the agent into reading `~/.ssh` or writing `../elsewhere`.
 */
export class Workspace {
  private constructor(readonly root: string) {}

  static async open(root: string): Promise<Workspace> {
    return new Workspace(await realpath(root));
  }

  /** The absolute path for `path`, or a `ToolError` when it names something outside the workspace. */
  async resolve(path: unknown): Promise<string> {
    if (typeof path !== 'string' || path.trim() === '') throw new ToolError('path: a non-empty string is required');
    if (path.includes('\0')) throw new ToolError('path: NUL characters are not allowed');
    const target = resolve(this.root, path);
    this.assertInside(target, path);
    // The target may not exist yet (a write); its nearest existing ancestor must still be inside.
    this.assertInside(await realpathOfExisting(target, path), path);
    return target;
  }

  /** `target` relative to the root, for messages; `.` for the root itself. */
  display(target: string): string {
    return relative(this.root, target) || '.';
  }

  private assertInside(target: string, asked: string): void {
    const rel = relative(this.root, target);
    if (rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))) return;
    throw new ToolError(`${asked} is outside the workspace (${this.root}); only files under it are reachable`);
  }
}

async function realpathOfExisting(target: string, asked: string): Promise<string> {
  let current = target;
  const rest: string[] = [];
  for (;;) {
    try {
      return resolve(await realpath(current), ...[...rest].reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const parent = resolve(current, '..');
      if (code !== 'ENOENT' || parent === current) throw new ToolError(`${asked}: ${(error as Error).message}`, { cause: error });
      rest.push(relative(parent, current));
      current = parent;
    }
  }
}
