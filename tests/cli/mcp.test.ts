// The command with MCP: `chat --mcp FILE` (the mcpServers format), the workspace's .mcp.json asked
// about once, `/mcp`, and `indusagi mcp serve` used by an MCP client. Real processes throughout: the
// command through tsx, servers spawned by it, Claude as a loopback server through the real SDK.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectMcp } from '../../src/mcp/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';
import { hostile } from '../mcp/reference-servers.js';
import { makeWorkspace, runCli } from './cli-process.js';
import { MAIN, TSX } from './output-watch.js';
import { PtyCli, screenLines } from './pty.js';

let workspace: { dir: string; cleanup(): Promise<void> };
let server: AnthropicTestServer;
beforeAll(async () => {
  workspace = await makeWorkspace();
});
afterAll(() => workspace.cleanup());
beforeEach(async () => {
  server = await startAnthropicServer();
});
afterEach(() => server.close());

const servers = (names: Record<string, Record<string, string>>) => ({
  mcpServers: Object.fromEntries(Object.entries(names).map(([name, env]) => [name, hostile(env)])),
});
const claude = () => ({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.baseURL });
const toolsOf = (i: number) => (server.requests[i].body.tools ?? []).map((tool: { name: string }) => tool.name);

describe('indusagi chat --mcp FILE', () => {
  it('gives the model the catalog: search_tools, the built-in tools, and the servers’ tools once searched; /mcp shows them', async () => {
    const file = join(workspace.dir, 'servers.json');
    await writeFile(file, JSON.stringify(servers({ tools: { TOOL_COUNT: '3', TOOL_PREFIX: 'invoices', LIST_ONLY: '1' } })));
    server.enqueue(
      reply.tools([{ name: 'search_tools', input: { query: 'invoices_1' } }]),
      reply.tools([{ name: 'tools_invoices_1', input: {} }]),
      reply.text('Done.'),
    );
    const run = await runCli(['chat', '--mcp', 'servers.json'], workspace.dir, ['Handle invoice one', '/mcp'], claude());
    expect(run.code, run.stderr).toBe(0);
    expect(toolsOf(0)).toEqual([
      'search_tools',
      'files_list',
      'files_read',
      'files_write',
      'files_edit',
      'bash',
      'clock_now',
      'memory_remember',
      'memory_recall',
    ]);
    expect(JSON.stringify(server.requests[0].body.system)).toContain('- tools (3 tools): invoices_0, invoices_1, invoices_2');
    expect(toolsOf(1)).toContain('tools_invoices_1');
    expect(run.stdout).toContain('tools.invoices_1');
    expect(run.stdout).toContain('tools  connected over stdio, 3 tools');
    expect(run.stdout).toMatch(/loaded: tools\.invoices_1/);
  });

  it('reports a server that does not start and goes on without it', async () => {
    const file = join(workspace.dir, 'broken.json');
    await writeFile(file, JSON.stringify({ mcpServers: { broken: { command: 'indusagi-no-such-command' } } }));
    server.enqueue(reply.text('Hello.'));
    const run = await runCli(['chat', '--mcp', file], workspace.dir, ['hi', '/mcp'], claude());
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'MCP server "broken" did not start: MCP server "broken": could not start "indusagi-no-such-command": no such command',
    );
    expect(run.stdout).toContain('broken  failed over stdio');
  });

  it('refuses a file that is not a servers file, before anything starts', async () => {
    const file = join(workspace.dir, 'bad.json');
    await writeFile(file, JSON.stringify({ mcpServers: { 'bad.name': { command: 'x' } } }));
    const run = await runCli(['chat', '--mcp', file], workspace.dir, [], claude());
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad\.json: MCP server name "bad\.name" must be 1 to 48 letters/);
    const missing = await runCli(['chat', '--mcp', 'nowhere.json'], workspace.dir, [], claude());
    expect([missing.code, missing.stderr.trim()]).toEqual([
      2,
      'indusagi: --mcp: cannot read ' + join(workspace.dir, 'nowhere.json') + ' (ENOENT)',
    ]);
  });
});

describe("the workspace's .mcp.json", () => {
  it('is asked about once, on a terminal, before any server starts; the answer is kept for that version of the file', async () => {
    const { dir, cleanup } = await makeWorkspace();
    const config = await mkdtemp(join(tmpdir(), 'indusagi-config-'));
    const userConfig = join(config, 'indusagi');
    const user = { XDG_CONFIG_HOME: config };
    try {
      await writeFile(join(dir, '.mcp.json'), JSON.stringify(servers({ project: { TOOL_COUNT: '2', LIST_ONLY: '1' } })));
      // Piped, nobody can answer: the servers are left out, and the chat says how to allow them.
      const piped = await runCli(['chat'], dir, ['/mcp'], user);
      expect(piped.stdout).toContain(
        'the MCP servers of .mcp.json are not started: allow them once in an interactive chat, or pass --mcp .mcp.json',
      );
      expect(piped.stdout).toContain('no MCP servers');

      const first = new PtyCli(['chat'], dir, user);
      await first.waitFor(/Start them\? \[y\/N\] /);
      expect(screenLines(first.output).join('\n')).toContain(`project: runs ${process.execPath}`);
      first.type('y\r');
      await first.waitFor(/you › /);
      const at = first.output.length;
      first.type('/mcp\r');
      await first.waitFor(/project\s+connected over stdio, 2 tools/, at);
      first.type('/exit\r');
      expect(await first.finished).toBe(0);

      // Asked once: the second chat starts the servers without a question.
      const second = await runCli(['chat'], dir, ['/mcp'], user);
      expect(second.stdout).toContain('project  connected over stdio, 2 tools');
      expect(second.stdout).not.toContain('Start them?');
      // Kept in the user's config folder, never in the folder a clone fills.
      expect(existsSync(join(dir, '.indusagi/mcp-consent.json'))).toBe(false);
      const kept = JSON.parse(await readFile(join(userConfig, 'mcp-consent.json'), 'utf8')) as Record<string, object>;
      expect(Object.values(kept[await realpath(dir)])).toEqual([true]);
    } finally {
      await rm(config, { recursive: true, force: true });
      await cleanup();
    }
  });
});

describe('indusagi mcp serve', () => {
  it('serves the built-in tools over stdio; a write asks the client’s user first', async () => {
    const served = await connectMcp(
      'indusagi',
      { command: process.execPath, args: ['--import', TSX, MAIN, 'mcp', 'serve'], cwd: workspace.dir, needsApproval: false },
      { onElicitation: async () => ({ action: 'accept', content: { allow: true } }) },
    );
    try {
      expect(served.tools().map((tool) => tool.mcp.name)).toEqual([
        'files.list',
        'files.read',
        'files.write',
        'files.edit',
        'bash',
        'clock.now',
        'memory.remember',
        'memory.recall',
      ]);
      expect((await served.callTool('files.list', { path: 'src' })).text).toBe('greeting.txt');
      expect((await served.callTool('files.write', { path: 'notes.txt', content: 'from MCP\n' })).isError).toBe(false);
      expect(await readFile(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('from MCP\n');
    } finally {
      await served.close();
    }
  });

  it('refuses what it cannot use', async () => {
    expect((await runCli(['mcp'], workspace.dir)).stderr).toContain('mcp needs an action: serve');
    const hostOnly = await runCli(['mcp', 'serve', '--host', '0.0.0.0'], workspace.dir);
    expect([hostOnly.code, hostOnly.stderr.trim()]).toEqual([
      2,
      'indusagi: --host goes with --port (without it the server speaks over stdio)',
    ]);
  });
});
