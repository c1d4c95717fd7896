// serveMcp: indusagi tools, and an agent as one tool, served over Streamable HTTP (in this process) and
// stdio (a child process), and used through our own MCP client as any client would.
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, serveMcp, McpToolError, type McpClient, type McpElicitationResult, type McpServing } from '../../src/mcp/index.js';
import { createConductor, MemorySessionStore } from '../../src/runtime/index.js';
import type { ModelInvoker, ToolContext, ToolProgress } from '../../src/runtime/index.js';
import { aborted, deleted, servedTools } from './fixtures/served-tools.js';
import { bundleFixture } from './bundle.js';

const ctx = (over: Partial<ToolContext> = {}): ToolContext => ({ signal: new AbortController().signal, callId: 'c', ...over });

// The person at the client: their answer to the next request for input.
let answer: McpElicitationResult = { action: 'decline' };
const asked: string[] = [];

// A model at the seam: it asks for `files.delete` once when told to delete, and otherwise answers
// with how many user prompts it has seen (so a continued conversation shows).
const invokeModel: ModelInvoker = async (request) => {
  const last = request.messages.at(-1)!;
  const prompts = request.messages.filter((turn) => turn.role === 'user' && turn.blocks.some((b) => b.kind === 'text')).length;
  const said = last.blocks.find((b) => b.kind === 'text');
  if (said?.kind === 'text' && said.text.startsWith('delete')) {
    return {
      turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id: `del-${prompts}`, name: 'files_delete', input: { path: 'a.txt' } }] },
      stopReason: 'tool_use',
    };
  }
  const result = last.blocks.find((b) => b.kind === 'tool_result');
  const text = result?.kind === 'tool_result' ? `Tool said: ${result.content}` : `Prompt number ${prompts}.`;
  return { turn: { role: 'assistant', blocks: [{ kind: 'text', text }] }, stopReason: 'end_turn' };
};
const sessions = new MemorySessionStore();

let serving: McpServing;
let client: McpClient;
beforeAll(async () => {
  serving = await serveMcp({
    name: 'served',
    tools: servedTools,
    agents: [
      {
        name: 'helper',
        description: 'A helpful agent.',
        create: () =>
          createConductor({ model: 'test', tools: servedTools.filter((t) => t.name === 'files.delete') }, { invokeModel, store: sessions }),
      },
    ],
    transport: { port: 0 },
  });
  client = await connectMcp(
    'served',
    { url: serving.url!, needsApproval: false },
    {
      onElicitation: async (request) => {
        asked.push(request.message);
        return answer;
      },
    },
  );
});
afterAll(async () => {
  await client.close();
  await serving.close();
});

const tool = (name: string) => client.tools().find((t) => t.mcp.name === name)!;

describe('tools served over Streamable HTTP', () => {
  it('are listed with their schemas and what they say about themselves', () => {
    expect(serving.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(client.tools().map((t) => t.mcp.name)).toEqual([
      'weather.today',
      'oops',
      'crash',
      'slow',
      'picture',
      'files.delete',
      'ask_helper',
    ]);
    expect(tool('weather.today').mcp).toMatchObject({
      inputSchema: { type: 'object', required: ['city'] },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    });
    expect(tool('files.delete').mcp.annotations).toMatchObject({ destructiveHint: true });
  });

  it('run with checked input; a result that is not text arrives as JSON', async () => {
    expect(await tool('weather.today').execute({ city: 'Oslo' }, ctx())).toBe('{"city":"Oslo","sky":"clear"}');
    const invalid = await client.callTool('weather.today', { town: 'Oslo' });
    expect(invalid.isError).toBe(true);
    expect(invalid.text).toMatch(/^Invalid input for tool "weather.today" \(2 problems\); the tool did not run\./);
  });

  it('answer a ToolError with its message and anything else with "Internal error"', async () => {
    expect(await client.callTool('oops')).toMatchObject({ isError: true, text: 'The oven is off.' });
    expect(await client.callTool('crash')).toMatchObject({ isError: true, text: 'Internal error' });
  });

  it('send MCP content and structured content given with mcpResult', async () => {
    const result = await client.callTool('picture');
    expect(result.content).toEqual([
      { kind: 'text', text: 'A red dot:' },
      { kind: 'image', source: { type: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
    ]);
    expect(result.structuredContent).toEqual({ caption: 'a red dot' });
  });

  it('report progress to the client, and stop when the client cancels', async () => {
    const abort = new AbortController();
    const updates: ToolProgress[] = [];
    const pending = tool('slow').execute(
      {},
      ctx({ signal: abort.signal, progress: (u) => (updates.push(u), abort.abort()) }),
    ) as Promise<unknown>;
    const error = await pending.catch((e: unknown) => e);
    expect(McpToolError.isInstance(error) && error.reason).toBe('aborted');
    expect(updates).toEqual([{ progress: 1, total: 2, message: 'warming up' }]);
    // The cancellation reaches the tool's signal; a later call is answered after it.
    await client.callTool('weather.today', { city: 'Bergen' });
    expect(aborted).toHaveLength(1);
  });

  it('ask the client’s user before running a tool that needs approval, and run it only when allowed', async () => {
    answer = { action: 'decline' };
    expect(await client.callTool('files.delete', { path: 'a.txt' })).toMatchObject({
      isError: true,
      text: 'The user did not approve this tool call.',
    });
    expect(deleted).toHaveLength(0);
    answer = { action: 'accept', content: { allow: true } };
    expect(await client.callTool('files.delete', { path: 'a.txt' })).toMatchObject({ isError: false, text: 'deleted a.txt' });
    expect(asked.at(-1)).toBe('Allow the tool "files.delete" to run with this input?\n{\n  "path": "a.txt"\n}');
    expect(deleted).toHaveLength(1);
  });

  it('refuse requests addressed to another host name (DNS rebinding)', async () => {
    const url = new URL(serving.url!);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { host: 'evil.example:80', 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(403);
  });

  it('tell a client when to reconnect to a closed stream: the priming event carries retry: 1000', async () => {
    const response = await fetch(serving.url!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    // Read up to the initialize result: the priming event (an id, the retry, empty data) comes first.
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('"result"')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    const [priming] = text.split('\n\n');
    expect(priming).toMatch(/^id: \S+\nretry: 1000\ndata: $/);
    expect(text).toContain('"result"');
  });
});

describe('an agent served as a tool', () => {
  it('answers, and continues the conversation given its sessionId', async () => {
    const first = await client.callTool('ask_helper', { prompt: 'hello' });
    expect(first.text).toBe('Prompt number 1.');
    const sessionId = (first.structuredContent as { sessionId: string }).sessionId;
    const second = await client.callTool('ask_helper', { prompt: 'again', sessionId });
    expect(second.structuredContent).toEqual({ answer: 'Prompt number 2.', sessionId });
  });

  it('puts the agent’s approvals to the client’s user', async () => {
    answer = { action: 'accept', content: { allow: true } };
    const before = deleted.length;
    const result = await client.callTool('ask_helper', { prompt: 'delete a.txt' });
    expect(result.text).toBe('Tool said: deleted a.txt');
    expect(asked.at(-1)).toMatch(/^The agent wants to run the tool "files.delete" with this input\. Allow it\?/);
    expect(deleted).toHaveLength(before + 1);
  });
});

describe('tools served over stdio', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'indusagi-mcp-serve-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('are listed and called from a child process', async () => {
    const script = await bundleFixture('served-tools.ts', dir);
    const child = await connectMcp('child', { command: process.execPath, args: [script], needsApproval: false });
    try {
      expect(child.server).toMatchObject({ name: 'served', version: '0.1.0' });
      expect(await child.callTool('weather.today', { city: 'Lima' })).toMatchObject({ text: '{"city":"Lima","sky":"clear"}' });
      // This client cannot answer for a person: the served tool that needs approval is refused, not run.
      const refused = await child.callTool('files.delete', { path: 'b.txt' });
      expect(refused).toMatchObject({ isError: true });
      expect(refused.text).toMatch(/^This tool call needs approval, and asking for it failed: .*headless run: nobody can answer/);
    } finally {
      await child.close();
    }
  });
});
