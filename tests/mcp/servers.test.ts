// Several servers as one set of tools: the reference filesystem and memory servers (real files), tool
// filters and approval rules, names that would collide, paged tool lists, a server that cannot start.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectMcp,
  connectMcpServers,
  McpConfigError,
  McpConnectionError,
  McpToolCollisionError,
  type McpServers,
} from '../../src/mcp/index.js';
import { toToolset } from '../../src/tools/index.js';
import { filesystem, hostile, memory } from './reference-servers.js';

let dir: string;
let servers: McpServers;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-mcp-servers-'));
  await writeFile(join(dir, 'notes.txt'), 'buy milk\n');
  servers = await connectMcpServers({
    files: { ...filesystem(dir), tools: (tool) => !tool.name.startsWith('list_directory_with') },
    memory: { ...memory(join(dir, 'memory.jsonl')), needsApproval: { create_entities: false } },
  });
});
afterAll(async () => {
  await servers.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the filesystem and memory servers, connected together', () => {
  it('offers both servers’ tools, namespaced, minus what a filter leaves out', () => {
    const names = servers.tools().map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['files.read_text_file', 'files.write_file', 'memory.create_entities', 'memory.read_graph']),
    );
    expect(names).not.toContain('files.list_directory_with_sizes');
    expect(servers.status()).toEqual([
      { name: 'files', state: 'connected', transport: 'stdio', tools: servers.clients.get('files')!.tools().length, refused: [] },
      { name: 'memory', state: 'connected', transport: 'stdio', tools: 9, refused: [] },
    ]);
  });

  it('asks approval for what the server calls destructive, unless the app says otherwise', () => {
    const byName = new Map(servers.tools().map((tool) => [tool.name, tool]));
    expect(byName.get('files.read_text_file')?.needsApproval).toBe(false);
    expect(byName.get('files.write_file')?.needsApproval).toBe(true);
    expect(byName.get('memory.delete_entities')?.needsApproval).toBe(true);
    // The server says create_entities is not read-only and does not say it is harmless; the app's rule decides.
    expect(byName.get('memory.create_entities')?.needsApproval).toBe(false);
  });

  it('writes and reads real files through the filesystem server', async () => {
    const tools = toToolset(servers.tools());
    const pending = await tools.execute('files.write_file', { path: join(dir, 'plan.md'), content: '# Plan\n' }, { callId: 'w1' });
    expect(pending).toEqual({ status: 'pending_approval', actionId: 'w1' });
    expect(await tools.approve('w1')).toMatch(/Successfully wrote to/);
    expect(await readFile(join(dir, 'plan.md'), 'utf8')).toBe('# Plan\n');
    expect(await tools.execute('files.read_text_file', { path: join(dir, 'notes.txt') })).toBe('buy milk\n');
    // Outside its allowed directory the server refuses, and the model reads why.
    await expect(tools.execute('files.read_text_file', { path: '/etc/hostname' })).rejects.toThrow(
      /Access denied - path outside allowed directories/,
    );
  });

  it('keeps a knowledge graph through the memory server', async () => {
    const tools = toToolset(servers.tools());
    await tools.execute('memory.create_entities', {
      entities: [{ name: 'Acme', entityType: 'customer', observations: ['pays by transfer'] }],
    });
    const graph = await servers.clients.get('memory')!.callTool('read_graph');
    expect(graph.structuredContent).toEqual({
      entities: [{ name: 'Acme', entityType: 'customer', observations: ['pays by transfer'] }],
      relations: [],
    });
  });
});

describe('connecting', () => {
  it('refuses two tools that would reach the model under one name, naming both', async () => {
    const error = await connectMcpServers({
      a_b: { ...hostile({ TOOL_NAMES: 'c', LIST_ONLY: '1' }) },
      a: { ...hostile({ TOOL_NAMES: 'b_c', LIST_ONLY: '1' }) },
    }).catch((e: unknown) => e);
    expect(McpToolCollisionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      'MCP tools "a_b.c" and "a.b_c" both become "a_b_c" for the model; rename a server, or leave one tool out with its server\'s `tools` filter.',
    );
  });

  it('refuses, at connect, one server’s two tools that would reach the model under one name', async () => {
    const error = await connectMcp('x', hostile({ TOOL_NAMES: 'a.b,a_b', LIST_ONLY: '1' })).catch((e: unknown) => e);
    expect(McpToolCollisionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^MCP tools "x\.a\.b" and "x\.a_b" both become "x_a_b" for the model/);
  });

  it('reads a tool list page by page', async () => {
    const paged = await connectMcp('paged', hostile({ TOOL_COUNT: '23', PAGE_SIZE: '5', LIST_ONLY: '1' }));
    try {
      expect(paged.tools().map((tool) => tool.mcp.name)).toEqual(Array.from({ length: 23 }, (_, i) => `tool_${i}`));
    } finally {
      await paged.close();
    }
  });

  it('reports a server that cannot start, with what it said, and can keep the others', async () => {
    const broken = { command: process.execPath, args: ['-e', 'console.error("missing API key FOO_TOKEN"); process.exit(1)'] };
    const error = await connectMcp('broken', broken).catch((e: unknown) => e);
    expect(McpConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^MCP server "broken": could not connect: .+\. Its stderr ends with: missing API key FOO_TOKEN$/,
    );
    const missing = await connectMcp('missing', { command: 'indusagi-no-such-command' }).catch((e: unknown) => e);
    expect((missing as Error).message).toBe('MCP server "missing": could not start "indusagi-no-such-command": no such command');

    const some = await connectMcpServers({ ok: hostile({ TOOL_COUNT: '2', LIST_ONLY: '1' }), broken }, { onServerError: 'report' });
    try {
      expect(some.tools().map((tool) => tool.name)).toEqual(['ok.tool_0', 'ok.tool_1']);
      expect(some.status()[1]).toMatchObject({
        name: 'broken',
        state: 'failed',
        tools: 0,
        error: expect.stringContaining('missing API key FOO_TOKEN'),
      });
    } finally {
      await some.close();
    }
  });

  it('refuses a description that cannot work before spawning anything', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['has.dot', { command: 'x' }, /must be 1 to 48 letters, digits, "_" or "-"/],
      ['both', { command: 'x', url: 'http://localhost' }, /needs exactly one of command .* and url/],
      ['args', { command: 'x', args: 'not-an-array' }, /args must be an array of strings/],
      ['ftp', { url: 'ftp://example.com' }, /url must be http or https/],
      ['timeout', { command: 'x', timeoutMs: -1 }, /timeoutMs must be a whole number >= 1/],
    ];
    for (const [name, config, message] of cases) {
      const error = await connectMcp(name, config as never).catch((e: unknown) => e);
      expect(McpConfigError.isInstance(error), name).toBe(true);
      expect((error as Error).message).toMatch(message);
    }
  });
});
