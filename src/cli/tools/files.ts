import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ToolDefinition } from '../../runtime/contract/tool.js';
import { ToolError } from '../../tools/index.js';
import type { Workspace } from './workspace.js';

const MAX_ENTRIES = 200;

const pathSchema = { type: 'string', description: 'A path relative to the workspace folder' };

/** `files.list`: the entries of a folder, folders marked with a trailing slash. */
export function listTool(workspace: Workspace): ToolDefinition {
  return {
    name: 'files.list',
    description: 'List the entries of a folder in the workspace. Folders end with "/".',
    inputSchema: { type: 'object', properties: { path: pathSchema }, required: ['path'] },
    async execute(input) {
      const target = await workspace.resolve(field(input, 'path'));
      const entries = await fsCall(() => readdir(target, { withFileTypes: true }), workspace.display(target));
      const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
      if (names.length === 0) return `${workspace.display(target)} is empty`;
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
      const target = await workspace.resolve(field(input, 'path'));
      const shown = workspace.display(target);
      const info = await fsCall(() => stat(target), shown);
      if (info.isDirectory()) throw new ToolError(`${shown} is a folder; list it instead`);
      // Read only what can be shown: a multi-gigabyte log must not be loaded to return its head.
      const handle = await fsCall(() => open(target, 'r'), shown);
      try {
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
      const target = await workspace.resolve(field(input, 'path'));
      const content = field(input, 'content', { allowEmpty: true });
      const shown = workspace.display(target);
      await fsCall(() => mkdir(dirname(target), { recursive: true }), shown);
      // Write a sibling, then rename: a crash mid-write leaves the old file whole, never half of each.
      const temporary = `${target}.${randomUUID()}.tmp`;
      try {
        await fsCall(async () => {
          const handle = await open(temporary, 'wx');
          try {
            await handle.writeFile(content, 'utf8');
            await handle.sync();
          } finally {
            await handle.close();
          }
          await rename(temporary, target);
        }, shown);
      } finally {
        await rm(temporary, { force: true });
      }
      return `Wrote ${Buffer.byteLength(content)} bytes to ${shown}`;
    },
  };
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
async function fsCall<T>(action: () => Promise<T>, shown: string): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (ToolError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ToolError(`${shown} does not exist`, { cause: error });
    if (code === 'ENOTDIR') throw new ToolError(`${shown} is not a folder`, { cause: error });
    if (code === 'EACCES' || code === 'EPERM') throw new ToolError(`${shown}: permission denied`, { cause: error });
    if (code === 'EISDIR') throw new ToolError(`${shown} is a folder`, { cause: error });
    throw error;
  }
}
