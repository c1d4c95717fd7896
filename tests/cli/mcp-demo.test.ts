// MCP tried end to end offline: the demo model searches the catalog and calls an MCP server's tool
// (`search tools for echo`, `call echo with hi`), with the reference everything server spawned by the
// command, and from code an MCP client's readonly tool list is an agent's tools as it is.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { AgentConfig } from '../../src/runtime/agent/types.js';
import type { McpToolDefinition } from '../../src/mcp/index.js';
import { respond } from '../../src/demo/index.js';
import { everything } from '../mcp/reference-servers.js';
import { makeWorkspace, runCli } from './cli-process.js';

let workspace: { dir: string; cleanup(): Promise<void> };
beforeAll(async () => {
  workspace = await makeWorkspace();
});
afterAll(() => workspace.cleanup());

describe('the demo model with MCP servers', () => {
  it('searches the tools, loads echo and calls it, offline with no key', { timeout: 120_000 }, async () => {
    await writeFile(join(workspace.dir, 'servers.json'), JSON.stringify({ mcpServers: { everything: everything() } }));
    const run = await runCli(
      ['chat', '--mcp', 'servers.json', '--model', 'demo'],
      workspace.dir,
      ['search tools for echo', 'call echo with hi there'],
      { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Searching the tools for "echo"');
    expect(run.stdout).toContain('everything_echo');
    expect(run.stdout).toContain('Calling everything_echo.');
    expect(run.stdout).toContain('Echo: hi there');
  });

  it('fills the first string field of the tool’s schema, takes a JSON object as it is, and says when there is no such tool', () => {
    const body = (prompt: string, tools: unknown[]) => ({
      model: 'demo',
      max_tokens: 500,
      messages: [{ role: 'user', content: prompt }],
      tools,
    });
    const echo = {
      name: 'srv_echo',
      input_schema: { type: 'object', properties: { n: { type: 'number' }, message: { type: 'string' } }, required: ['n', 'message'] },
    };
    const call = (prompt: string, tools: unknown[]) => respond(body(prompt, tools)).content.find((b) => b.type === 'tool_use');
    expect(call('call echo with hi', [echo])).toMatchObject({ name: 'srv_echo', input: { message: 'hi' } });
    expect(call('call echo with {"n": 2, "message": "x"}', [echo])).toMatchObject({ input: { n: 2, message: 'x' } });
    expect(call('search tools for weather', [{ name: 'search_tools' }])).toMatchObject({
      name: 'search_tools',
      input: { query: 'weather' },
    });
    const none = respond(body('call echo with hi', [{ name: 'search_tools' }]));
    expect(none.stopReason).toBe('end_turn');
    expect(JSON.stringify(none.content)).toContain('Try \\"search tools for echo\\" first');
  });

  it('takes an MCP client’s readonly tool list as an agent’s tools', () => {
    expectTypeOf<readonly McpToolDefinition[]>().toExtend<NonNullable<AgentConfig['tools']>>();
  });
});
