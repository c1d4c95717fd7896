import { constants } from 'node:fs';
import { open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import type { Stats } from 'node:fs';
import type { ToolDefinition } from '../../runtime/contract/tool.js';
import { ToolError } from '../../runtime/tools/index.js';
import { CONTROL_CHARS, terminalJson } from '../safe-text.js';
import type { Located, Workspace } from './workspace.js';

const MAX_ENTRIES = 200;

// Non-blocking, so opening a FIFO returns at once (to be refused) instead of waiting for a writer and
// holding one of libuv's four file threads; no controlling terminal from a device.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

const pathSchema = { type: 'string', description: 'A path relative to the workspace folder' };

/** `files.list`: the entries of a folder, folders marked with a trailing slash. */
export function listTool(workspace: Workspace): ToolDefinition {
  return {
    name: 'files.list',
    description:
      'List the entries of a folder in the workspace, one per line. Folders end with "/". A name holding a control character or starting with a quote is shown as a JSON string.',
    inputSchema: { type: 'object', properties: { path: pathSchema }, required: ['path'] },
    async execute(input) {
      const at = workspace.locate(field(input, 'path'));
      const folder = await fsCall(() => workspace.openFolder(at), at.shown);
      let entries;
      try {
        entries = await fsCall(() => readdir(folder.self, { withFileTypes: true }), at.shown);
      } finally {
        await folder.close();
      }
      const names = entries.map((e) => `${listedName(e.name)}${e.isDirectory() ? '/' : ''}`).sort();
      if (names.length === 0) return `${at.shown} is empty`;
      const shown = names.slice(0, MAX_ENTRIES);
      const more = names.length > MAX_ENTRIES ? [`…and ${names.length - MAX_ENTRIES} more`] : [];
      return [...shown, ...more].join('\n');
    },
  };
}

/** `files.read`: a text file, cut at `maxChars` so one read cannot overflow a small context window. */
export function readTool(workspace: Workspace, maxChars: number): ToolDefinition {
  return {
    name: 'files.read',
    description: `Read a text file in the workspace (at most ${maxChars} characters are returned).`,
    inputSchema: { type: 'object', properties: { path: pathSchema }, required: ['path'] },
    async execute(input) {
      const at = workspace.locate(field(input, 'path'));
      const shown = at.shown;
      const handle = await fsCall(() => workspace.openFile(at, READ_FLAGS), shown);
      try {
        const info = await handle.stat();
        if (info.isDirectory()) throw new ToolError(`${shown} is a folder; list it instead`);
        if (!info.isFile()) throw new ToolError(`${shown} is not a regular file (${kindOf(info)}); only regular files can be read`);
        // Read only what can be shown: a multi-gigabyte log must not be loaded to return its head.
        const buffer = Buffer.alloc(Math.min(info.size, maxChars * 4));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        const bytes = buffer.subarray(0, bytesRead);
        if (bytes.includes(0)) throw new ToolError(`${shown} looks binary; only text files can be read`);
        const text = bytes.toString('utf8');
        if (text.length <= maxChars && bytesRead === info.size) return text;
        return `${text.slice(0, maxChars)}\n[cut: ${shown} is ${info.size} bytes; only the first ${maxChars} characters are shown]`;
      } finally {
        await handle.close();
      }
    },
  };
}

/** `files.write`: creates or replaces a text file. Never runs without the user's approval. */
export function writeTool(workspace: Workspace): ToolDefinition {
  return {
    name: 'files.write',
    description: 'Create or replace a text file in the workspace. The user must approve each write.',
    inputSchema: {
      type: 'object',
      properties: { path: pathSchema, content: { type: 'string', description: 'The whole new content' } },
      required: ['path', 'content'],
    },
    needsApproval: true,
    async execute(input) {
      const at = workspace.locate(field(input, 'path'));
      const content = field(input, 'content', { allowEmpty: true });
      await writeWhole(workspace, at, content);
      return `Wrote ${Buffer.byteLength(content)} bytes to ${at.shown}`;
    },
  };
}

/**
 * Creates or replaces the file `at` with `content`, missing folders made, never outside the workspace.
 * Written to a sibling in the same held folder, then renamed: a crash mid-write leaves the old file
 * whole, never half of each.
 */
export async function writeWhole(workspace: Workspace, at: Located, content: string): Promise<void> {
  const shown = at.shown;
  if (at.names.length === 0) throw new ToolError(`${at.asked} names the workspace folder itself; give the path of a file inside it`);
  const folder = await fsCall(() => workspace.openFolder(at, { depth: at.names.length - 1, create: true }), shown);
  try {
    const target = folder.at(at.names[at.names.length - 1]);
    // Replacing a symlink that leads outside would not write there, but it would not do what was asked either.
    const existing = await fsCall(() => workspace.realTarget(target), shown);
    if (existing !== null && !workspace.contains(existing)) throw workspace.outside(at.asked);
    // A fixed-length name, so any legal target name stays writable.
    const temporary = folder.at(`.indusagi-${randomUUID()}.tmp`);
    try {
      await fsCall(async () => {
        await writeNew(temporary, content);
        await rename(temporary, target);
      }, shown);
    } finally {
      await rm(temporary, { force: true });
    }
  } finally {
    await folder.close();
  }
}

/**
 * The whole text of the regular file `at` (up to `maxBytes`), read through a descriptor checked to be
 * inside the workspace; a folder, a FIFO, a binary or a larger file is a `ToolError`.
 */
export async function readWhole(workspace: Workspace, at: Located, maxBytes: number): Promise<string> {
  const shown = at.shown;
  const handle = await fsCall(() => workspace.openFile(at, READ_FLAGS), shown);
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new ToolError(`${shown} is a folder, not a file`);
    if (!info.isFile()) throw new ToolError(`${shown} is not a regular file (${kindOf(info)})`);
    if (info.size > maxBytes) throw new ToolError(`${shown} is ${info.size} bytes, over the ${maxBytes} this tool works on`);
    const bytes = await handle.readFile();
    if (bytes.includes(0)) throw new ToolError(`${shown} looks binary; only text files can be edited`);
    return bytes.toString('utf8');
  } finally {
    await handle.close();
  }
}

/** A string field of the tool input; the model gets a `ToolError` naming what was wrong. */
export function field(input: unknown, name: string, opts: { allowEmpty?: boolean } = {}): string {
  const value = typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[name] : undefined;
  if (typeof value !== 'string' || (!opts.allowEmpty && value.trim() === '')) {
    throw new ToolError(`${name}: a ${opts.allowEmpty ? '' : 'non-empty '}string is required`);
  }
  return value;
}

/** File-system failures the model can act on (missing file, no permission) become `ToolError`s. */
export async function fsCall<T>(action: () => Promise<T>, shown: string): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (ToolError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ToolError(`${shown} does not exist`, { cause: error });
    if (code === 'ENOTDIR') throw new ToolError(`${shown} is not a folder`, { cause: error });
    if (code === 'EACCES' || code === 'EPERM') throw new ToolError(`${shown}: permission denied`, { cause: error });
    if (code === 'EISDIR') throw new ToolError(`${shown} is a folder`, { cause: error });
    if (code === 'ENAMETOOLONG') throw new ToolError(`${shown}: a name in this path is too long for the file system`, { cause: error });
    if (code === 'ELOOP') throw new ToolError(`${shown}: too many levels of symbolic links`, { cause: error });
    if (code === 'ENXIO')
      throw new ToolError(`${shown} is not a regular file (a socket or a device); only regular files can be read`, { cause: error });
    if (code === 'ENOSPC' || code === 'EDQUOT') throw new ToolError(`${shown}: no space left on the device`, { cause: error });
    throw error;
  }
}

/** O_EXCL: fails rather than follow anything already at `path`. */
async function writeNew(path: string, content: string): Promise<void> {
  const handle: FileHandle = await open(path, 'wx');
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  return 'a device';
}

// A name that could pass for something else in a one-per-line listing (a newline, a control or
// direction-changing character, a leading quote) is listed as its JSON string, so it is one entry
// the model can give back as it is meant.
const NEEDS_QUOTING = new RegExp(`^"|[\\n\\t]|${CONTROL_CHARS.source}`, 'u');

function listedName(name: string): string {
  return NEEDS_QUOTING.test(name) ? terminalJson(JSON.stringify(name)) : name;
}
