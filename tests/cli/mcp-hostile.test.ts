// MCP servers that ask too much of the command, spawned for real by it: one that asks its user a
// question (an elicitation) mid-call where no person can answer (`-p`, a piped chat: cancelled at once,
// said on stderr, instead of waiting for the server's timeout), and one whose tool description is
// 10 MiB (cut, and named at the start). The command runs through tsx, Claude is a loopback server
// through the real SDK; the servers are tests/mcp/fixtures/asking-server.mjs and verbose-server.mjs.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';
import { makeWorkspace, runCli } from './cli-process.js';
import { PtyCli } from './pty.js';
import { idle, modalRows } from './screen-helpers.js';

const ASKING = fileURLToPath(new URL('../mcp/fixtures/asking-server.mjs', import.meta.url));

let workspace: { dir: string; cleanup(): Promise<void> };
let server: AnthropicTestServer;
beforeAll(async () => {
  workspace = await makeWorkspace();
  await writeFile(
    join(workspace.dir, 'asking.json'),
    JSON.stringify({ mcpServers: { asker: { command: process.execPath, args: [ASKING] } } }),
  );
});
afterAll(() => workspace.cleanup());
beforeEach(async () => {
  server = await startAnthropicServer();
});
afterEach(() => server.close());

const claude = () => ({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.baseURL });
/** The text of the tool results the model was sent in request `i`. */
const toolResults = (i: number) =>
  JSON.stringify(
    (server.requests[i].body.messages as Array<{ content: unknown }>).flatMap((m) =>
      Array.isArray(m.content) ? m.content.filter((block: { type: string }) => block.type === 'tool_result') : [],
    ),
  );

const script = () =>
  server.enqueue(
    reply.tools([{ name: 'search_tools', input: { query: 'ask colour' } }]),
    reply.tools([{ name: 'asker_ask', input: {} }]),
    reply.text('Done.'),
  );
const notice = 'indusagi: MCP server "asker" asks "Which colour should the report use?", but nobody can answer';

describe('an MCP server’s elicitation where nobody can answer', () => {
  it('is cancelled at once in -p: the call goes on with the cancel, and stderr says why', async () => {
    script();
    const run = await runCli(['-p', 'Make the report', '--mcp', 'asking.json'], workspace.dir, [], claude());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`${notice} in -p mode; it was cancelled`);
    expect(server.requests).toHaveLength(3);
    expect(toolResults(2)).toContain('the user answered: {\\"action\\":\\"cancel\\"}');
    expect(run.stdout).toBe('Done.\n');
  });

  it('is cancelled at once in a piped chat, said on stderr', async () => {
    script();
    const run = await runCli(['chat', '--mcp', 'asking.json'], workspace.dir, ['Make the report'], claude());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`${notice} in a piped chat; it was cancelled`);
    expect(toolResults(2)).toContain('the user answered: {\\"action\\":\\"cancel\\"}');
    expect(run.stdout).toContain('Done.');
  });
});

describe('an MCP server’s elicitation on a terminal', () => {
  it('is shown as a form; what the person types goes back to the server, and the call goes on', async () => {
    script();
    const cli = new PtyCli(['chat', '--mcp', 'asking.json'], workspace.dir, { NO_COLOR: '1', ...claude() });
    await cli.waitForScreen('the first prompt', idle);
    cli.type('Make the report\r');
    await cli.waitForScreen('the question', (s) => modalRows(s).some((line) => line.startsWith('  colour: ')));
    expect(modalRows(cli.screen)).toEqual([
      '? MCP server "asker" asks: Which colour should the report use?',
      '  colour: ▏',
      'Enter send · Ctrl-N decline · Esc cancel',
    ]);
    // Required: an empty answer is not sent, it is asked again.
    cli.type('\r');
    await cli.waitForScreen('the field asked again', (s) => modalRows(s).includes('  colour is required'));
    cli.type('blue\r');
    await cli.waitForScreen('the answer', (s) => s.all().includes('Done.') && idle(s));
    expect(toolResults(2)).toContain('the user answered: {\\"action\\":\\"accept\\",\\"content\\":{\\"colour\\":\\"blue\\"}}');
    cli.type('\x04');
    expect(await cli.finished).toBe(0);
  });
});

describe('an MCP server with a 10 MiB tool description', () => {
  it('costs -p a cut description, not 10 MiB on every request, and is named at the start', async () => {
    const verbose = fileURLToPath(new URL('../mcp/fixtures/verbose-server.mjs', import.meta.url));
    await writeFile(
      join(workspace.dir, 'verbose.json'),
      JSON.stringify({ mcpServers: { verbose: { command: process.execPath, args: [verbose] } } }),
    );
    server.enqueue(
      reply.tools([{ name: 'search_tools', input: { query: 'weather' } }]),
      reply.tools([{ name: 'verbose_verbose', input: {} }]),
      reply.text('Sunny.'),
    );
    const run = await runCli(['-p', 'What is the weather?', '--mcp', 'verbose.json'], workspace.dir, [], claude());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('indusagi: MCP server "verbose": the description of tool "verbose" is cut to 8,');
    expect(run.stderr).toContain('of 10,485,760 characters');
    expect(run.stderr).toContain('indusagi: MCP server "verbose": tool "wide" left out, its inputSchema is 1,048,');
    expect(server.requests).toHaveLength(3);
    const loaded = server.requests[2].body.tools.find((tool: { name: string }) => tool.name === 'verbose_verbose');
    expect(loaded.description).toMatch(/\[The server's description was cut to its first 8,192 of 10,485,760 characters\.\]$/);
    // Every request, the search result included, stays far below the 10 MiB the server sent.
    for (const request of server.requests) expect(JSON.stringify(request.body).length).toBeLessThan(100_000);
    expect(run.stdout).toBe('Sunny.\n');
  });
});
