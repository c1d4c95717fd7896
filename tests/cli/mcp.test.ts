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
import { CliProcess, makeWorkspace, runCli } from './cli-process.js';
import { cliArgv } from './output-watch.js';
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

  it('exits with the error when a server’s tool would reach the model under a built-in’s name, in -p and a chat', async () => {
    const file = join(workspace.dir, 'colliding.json');
    await writeFile(file, JSON.stringify(servers({ files: { TOOL_NAMES: 'write', LIST_ONLY: '1' } })));
    const message =
      'indusagi: MCP tool "files.write" becomes "files_write" for the model, the name of the tool "files.write" it already has;';
    for (const args of [
      ['-p', 'hello', '--mcp', 'colliding.json'],
      ['chat', '--mcp', 'colliding.json'],
    ]) {
      const run = await runCli(args, workspace.dir, ['hello'], claude());
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(message);
    }
    expect(server.requests).toHaveLength(0);
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

const BUILT_IN = ['files.list', 'files.read', 'files.write', 'files.edit', 'clock.now', 'memory.remember', 'memory.recall'];

/** `mcp serve --port 0 …` started for real; resolves once it printed where it listens (and, unless given one, its token). */
async function serveHttp(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const cli = new CliProcess(['mcp', 'serve', '--port', '0', ...args], cwd, env);
  const [, url] = await cli.waitFor(/serving MCP at (\S+) /, 'stderr');
  const made = await cli.waitFor(/token: (\S+) |with the token of /, 'stderr');
  return { cli, url, token: made[1], stop: () => (cli.child.kill('SIGTERM'), cli.finished) };
}

const rpc = (url: string, body: object, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
  });
const initialize = {
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name: 'other-process', version: '1' } },
};

describe('indusagi mcp serve', () => {
  it('over HTTP answers only requests carrying its token: 401 without it or with another, and nothing runs', async () => {
    const memoryFile = join(workspace.dir, 'served-memory.jsonl');
    const served = await serveHttp(['--memory', memoryFile], workspace.dir);
    try {
      expect(served.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const attempts: Array<Record<string, string>> = [
        {},
        { authorization: 'Bearer wrong-token-of-another-process' },
        { authorization: served.token },
      ];
      for (const headers of attempts) {
        const refused = await rpc(served.url, initialize, headers);
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
        expect(refused.headers.get('mcp-session-id')).toBeNull();
      }
      // A session opened with the token is no key either: each request of it must carry the token.
      const opened = await rpc(served.url, initialize, { authorization: `Bearer ${served.token}` });
      expect(opened.status).toBe(200);
      await opened.body?.cancel();
      const session = opened.headers.get('mcp-session-id')!;
      const remember = { id: 2, method: 'tools/call', params: { name: 'memory.remember', arguments: { fact: 'written by an intruder' } } };
      for (const authorization of [undefined, 'Bearer wrong-token-of-another-process'])
        expect((await rpc(served.url, remember, { 'mcp-session-id': session, ...(authorization ? { authorization } : {}) })).status).toBe(
          401,
        );
      expect(await readFile(memoryFile, 'utf8').catch(() => '')).not.toContain('intruder');

      const client = await connectMcp('indusagi', {
        url: served.url,
        headers: { Authorization: `Bearer ${served.token}` },
        needsApproval: false,
      });
      try {
        // The shell is not served unless asked for.
        expect(client.tools().map((tool) => tool.mcp.name)).toEqual(BUILT_IN);
        expect((await client.callTool('files.list', { path: 'src' })).text).toBe('greeting.txt');
        expect((await client.callTool('memory.remember', { fact: 'written by the owner' })).isError).toBe(false);
      } finally {
        await client.close();
      }
      expect(await readFile(memoryFile, 'utf8')).toContain('written by the owner');
    } finally {
      await served.stop();
    }
  });

  it('serves the shell only with --allow-bash, behind a token read from --token-file', async () => {
    const tokenFile = join(workspace.dir, 'mcp-token');
    await writeFile(tokenFile, 'a-token-the-owner-chose-0123456789\n');
    const served = await serveHttp(['--allow-bash', '--token-file', 'mcp-token'], workspace.dir);
    try {
      expect(served.cli.stderr).not.toContain('a-token-the-owner-chose');
      const client = await connectMcp(
        'indusagi',
        { url: served.url, headers: { Authorization: 'Bearer a-token-the-owner-chose-0123456789' }, needsApproval: false },
        { onElicitation: async () => ({ action: 'accept', content: { allow: true } }) },
      );
      try {
        expect(client.tools().map((tool) => tool.mcp.name)).toContain('bash');
        expect((await client.callTool('bash', { command: 'echo from-the-shell' })).text).toContain('from-the-shell');
      } finally {
        await client.close();
      }
    } finally {
      await served.stop();
      await rm(tokenFile);
    }
  });
  it('serves the built-in tools over stdio; a write asks the client’s user first', async () => {
    const served = await connectMcp(
      'indusagi',
      { command: process.execPath, args: cliArgv(['mcp', 'serve']), cwd: workspace.dir, needsApproval: false },
      { onElicitation: async () => ({ action: 'accept', content: { allow: true } }) },
    );
    try {
      expect(served.tools().map((tool) => tool.mcp.name)).toEqual(BUILT_IN);
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
    const short = await runCli(['mcp', 'serve', '--port', '0'], workspace.dir, [], { INDUSAGI_MCP_TOKEN: 'secret' });
    expect([short.code, short.stderr.trim()]).toEqual([
      2,
      'indusagi: the token of INDUSAGI_MCP_TOKEN must be at least 16 visible ASCII characters without spaces (has 6)',
    ]);
    expect(short.stderr).not.toContain('serving MCP');
  });
});
