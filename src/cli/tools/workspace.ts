import { constants } from 'node:fs';
import { mkdir, open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from '../../runtime/tools/index.js';

const { O_RDONLY } = constants;
// Absent on Windows, where they have no meaning.
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NONBLOCK;

/** Where a folder descriptor can be named so that lookups go through the descriptor, not a path. */
const FD_DIR = '/proc/self/fd';

/** A path the model named, checked lexically: `names` are its components below the workspace root. */
export type Located = { asked: string; names: string[]; shown: string };

/**
 * A folder of the workspace, held open while a tool works in it. `at(name)` names an entry of this
 * very folder: on Linux through its descriptor (`/proc/self/fd/N/name`), so swapping a symlink
 * higher up the path after the folder was checked changes nothing.
 */
export type Folder = { readonly self: string; at(name: string): string; close(): Promise<void> };

/**
 * The folder the file tools may touch. Every path the model names is resolved inside it, symlinks
 * included, so a prompt cannot talk the agent into reading `~/.ssh` or writing `../elsewhere`.
 *
 * There is no window between check and use: what a path leads to is checked after it is opened, on
 * the descriptor (where does it really lead?), and only that descriptor is used: read from, or
 * written in through its folder's descriptor. Missing folders are made one at a time from the
 * workspace's own descriptor, each checked before the next name is looked up in it. On Linux the
 * check reads the descriptor's path from `/proc/self/fd`. Where that does not exist (macOS, Windows)
 * entries are named by their checked real path instead, which leaves a window between the check and
 * the use for a process racing the tool with symlink swaps.
 */
export class Workspace {
  private constructor(
    readonly root: string,
    private readonly pinned: boolean,
  ) {}

  /**
   * `pinByDescriptor` defaults to whether this system names descriptors in `/proc/self/fd`; false
   * forces the portable mode (tests run it on Linux too).
   */
  static async open(root: string, opts: { pinByDescriptor?: boolean } = {}): Promise<Workspace> {
    const real = await realpath(root);
    if (opts.pinByDescriptor !== undefined) return new Workspace(real, opts.pinByDescriptor);
    const probe = await open(real, O_RDONLY | O_DIRECTORY);
    try {
      const seen = await readlink(`${FD_DIR}/${probe.fd}`).catch(() => null);
      return new Workspace(real, seen === real);
    } finally {
      await probe.close();
    }
  }

  /** `path` split into names below the root, or a `ToolError` when it is empty or leaves the root by `..`. */
  locate(path: unknown): Located {
    if (typeof path !== 'string' || path.trim() === '') throw new ToolError('path: a non-empty string is required');
    if (path.includes('\0')) throw new ToolError('path: NUL characters are not allowed');
    const rel = relative(this.root, resolve(this.root, path));
    if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw this.outside(path);
    return { asked: path, names: rel === '' ? [] : rel.split(sep), shown: rel === '' ? '.' : rel };
  }

  /**
   * Opens the folder made of the first `depth` names of `at` (all of them by default) and hands it out
   * once it is known to be inside. With `create`, missing folders are made one at a time, each inside
   * the folder just opened and checked. File-system errors (ENOENT, ENOTDIR, …) are thrown as they
   * are, for the caller to word.
   */
  async openFolder(at: Located, opts: { depth?: number; create?: boolean } = {}): Promise<Folder> {
    const names = at.names.slice(0, opts.depth ?? at.names.length);
    const path = join(this.root, ...names);
    try {
      return await this.hold(await open(path, DIR_FLAGS), path, at);
    } catch (error) {
      if (!opts.create || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return this.makeFolders(names, at);
  }

  /** Opens the file `at` names with `flags`, and hands it out only once it is known to be inside. */
  async openFile(at: Located, flags: number): Promise<FileHandle> {
    const path = join(this.root, ...at.names);
    const handle = await open(path, flags);
    await this.check(handle, path, at);
    return handle;
  }

  /** Where `path` (an entry of a held folder) really leads, or null when nothing is there. */
  async realTarget(path: string): Promise<string | null> {
    return realpath(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
  }

  /** True when `real` (a resolved path) is the root or under it. */
  contains(real: string): boolean {
    const rel = relative(this.root, real);
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
  }

  outside(asked: string): ToolError {
    return new ToolError(`${asked} is outside the workspace (${this.root}); only files under it are reachable`);
  }

  private async makeFolders(names: string[], at: Located): Promise<Folder> {
    let folder = await this.hold(await open(this.root, DIR_FLAGS), this.root, at);
    try {
      for (const name of names) {
        const path = folder.at(name);
        const handle = await open(path, DIR_FLAGS).catch(async (error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
          // mkdir never follows a symlink in the last place: a dangling link makes it fail, not create elsewhere.
          await mkdir(path).catch((made: NodeJS.ErrnoException) => {
            if (made.code !== 'EEXIST') throw made;
          });
          return open(path, DIR_FLAGS);
        });
        const next = await this.hold(handle, path, at);
        await folder.close();
        folder = next;
      }
      return folder;
    } catch (error) {
      await folder.close();
      throw error;
    }
  }

  private async hold(handle: FileHandle, openedAs: string, at: Located): Promise<Folder> {
    const real = await this.check(handle, openedAs, at);
    const self = this.pinned ? `${FD_DIR}/${handle.fd}` : real;
    return { self, at: (name) => join(self, name), close: () => handle.close() };
  }

  /** Where `handle` really leads; closes it and refuses when that is outside the root. */
  private async check(handle: FileHandle, openedAs: string, at: Located): Promise<string> {
    try {
      const real = this.pinned ? await readlink(`${FD_DIR}/${handle.fd}`) : await realpath(openedAs);
      if (!this.contains(real)) throw this.outside(at.asked);
      return real;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }
}
