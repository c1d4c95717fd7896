// An MCP server that asks its user a question (an elicitation) in the middle of a tool call, where no
// person can answer: `-p` and a piped chat cancel it at once and say so on stderr, instead of leaving
// the call to wait for the server's timeout. Real processes: the command through tsx, the server it
// spawns (tests/mcp/fixtures/asking-server.mjs), Claude as a loopback server through the real SDK.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';
import { makeWorkspace, runCli } from './cli-process.js';

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
