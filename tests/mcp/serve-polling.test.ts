// SSE polling (MCP SEP-1699) on serveMcp's side: a served tool closes its call's stream
// (`ctx.closeStream`), the client comes back with Last-Event-ID and gets what it missed, the result
// too. Served over Streamable HTTP in this process (and stdio from a child process) and used through
// the SDK's own Client, whose fetch is wrapped only to see the requests it makes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveMcp, type McpServing } from '../../src/mcp/index.js';
import { ToolError } from '../../src/entries/errors.js';
import type { ToolContext, ToolDefinition } from '../../src/runtime/index.js';
import { closable } from './fixtures/closable-tool.js';
import { bundleFixture } from './bundle.js';

/** A count that can be waited on: resolves once it reaches `n`. */
function counter() {
  let count = 0;
  const waiting: Array<{ n: number; resolve: () => void }> = [];
  return {
    get count() {
      return count;
    },
    bump() {
      count += 1;
      for (const waiter of waiting.filter((w) => w.n <= count)) waiter.resolve();
    },
    reaches(n: number): Promise<void> {
      return count >= n ? Promise.resolve() : new Promise((resolve) => waiting.push({ n, resolve }));
    },
  };
}

// What the current call's client has done: reconnected with Last-Event-ID, seen progress.
let resumes = counter();
let progressSeen = counter();

const closing = (ctx: ToolContext) => {
  if (ctx.closeStream === undefined) throw new ToolError('This call cannot close its stream.');
  return ctx.closeStream;
};

const tools: ToolDefinition[] = [
  closable,
  {
    name: 'report',
    description: 'Reports nine steps, closing its stream twice on the way.',
    inputSchema: { type: 'object' },
    execute: async (_input, ctx) => {
      const close = closing(ctx);
      const step = (n: number) => ctx.progress?.({ progress: n, total: 9, message: `step ${n}` });
      [1, 2, 3].forEach(step);
      close();
      // Sent while the client is away: kept, and replayed when it comes back.
      [4, 5, 6].forEach(step);
      await resumes.reaches(1);
      // Sent on the stream the client came back on.
      [7, 8, 9].forEach(step);
      await progressSeen.reaches(9);
      close();
      // The result too is sent while the client is away.
      return 'all nine steps done';
    },
  },
  {
    name: 'confirm',
    description: 'Closes its stream, then asks the user a question.',
    inputSchema: { type: 'object' },
    execute: async (_input, ctx) => {
      closing(ctx)();
      const answer = await ctx.ask!({
        message: 'Go on?',
        schema: { type: 'object', properties: { go: { type: 'boolean' } }, required: ['go'] },
      });
      return answer.action === 'accept' && answer.content.go === true ? 'went on' : `stopped (${answer.action})`;
    },
  },
];

type Request = { method: string; lastEventId: string | null; rpc?: string };

/**
 * The SDK's Client over Streamable HTTP, every request it makes recorded (`resumes` counts those that
 * come back with Last-Event-ID); `protocolVersion` replaces the version its initialize asks for.
 */
async function connect(url: string, protocolVersion?: string) {
  const requests: Request[] = [];
  const errors: Error[] = [];
  const recording: typeof fetch = async (input, init) => {
    let body = init?.body;
    let rpc: string | undefined;
    if (typeof body === 'string') {
      const message = JSON.parse(body) as { method?: string; params?: { protocolVersion?: string } };
      rpc = message.method;
      if (protocolVersion !== undefined && message.method === 'initialize') {
        message.params!.protocolVersion = protocolVersion;
        body = JSON.stringify(message);
      }
    }
    const response = await fetch(input, { ...init, body });
    const lastEventId = new Headers(init?.headers).get('last-event-id');
    requests.push({ method: init?.method ?? 'GET', lastEventId, rpc });
    if (lastEventId !== null) resumes.bump();
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recording });
  const client = new Client({ name: 'poller', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, transport, requests, errors };
}

const text = (result: unknown) => (result as CallToolResult).content.map((block) => (block.type === 'text' ? block.text : '')).join('');

let serving: McpServing;
beforeAll(async () => {
  serving = await serveMcp({ name: 'polling', tools, transport: { port: 0 } });
});
afterAll(() => serving.close());

describe('a served tool closing its stream (SEP-1699 polling)', () => {
  it('still delivers its result, and every progress report once and in order, to a client that reconnects with Last-Event-ID', async () => {
    resumes = counter();
    progressSeen = counter();
    const { client, requests, errors } = await connect(serving.url!);
    try {
      const seen: number[] = [];
      const result = await client.callTool({ name: 'report' }, undefined, {
        onprogress: (progress) => {
          seen.push(progress.progress);
          progressSeen.bump();
        },
      });
      expect(text(result)).toBe('all nine steps done');
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // The call's POST, then one reconnection for each time the tool closed its stream, each from
      // further on (the client's cursor moved past what it got on the first one).
      const resumed = requests.filter((request) => request.lastEventId !== null);
      expect(resumed.map((request) => request.method)).toEqual(['GET', 'GET']);
      expect(resumed[0].lastEventId).not.toBe(resumed[1].lastEventId);
      expect(requests.filter((request) => request.rpc === 'tools/call')).toHaveLength(1);
      expect(errors).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('puts a question asked while the client is away to it when it comes back, and the answer reaches the call', async () => {
    resumes = counter();
    const { client, requests, errors } = await connect(serving.url!);
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { go: true } };
    });
    try {
      expect(text(await client.callTool({ name: 'confirm' }))).toBe('went on');
      expect(asked).toEqual(['Go on?']);
      expect(requests.filter((request) => request.lastEventId !== null)).toHaveLength(1);
      expect(errors).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('is offered to a 2025-11-25 client over Streamable HTTP, and a call that does not close its stream is not resumed', async () => {
    resumes = counter();
    const { client, transport, requests } = await connect(serving.url!);
    try {
      expect(transport.protocolVersion).toBe('2025-11-25');
      expect(text(await client.callTool({ name: 'closable' }))).toBe('closeStream: function');
      expect(requests.filter((request) => request.lastEventId !== null)).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('is absent for a client that negotiated an older protocol: it could not resume a closed stream', async () => {
    const { client, transport } = await connect(serving.url!, '2025-06-18');
    try {
      expect(transport.protocolVersion).toBe('2025-06-18');
      expect(text(await client.callTool({ name: 'closable' }))).toBe('closeStream: absent');
      // A tool that needs it says so rather than holding the stream open unannounced.
      expect(await client.callTool({ name: 'report' })).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'This call cannot close its stream.' }],
      });
    } finally {
      await client.close();
    }
  });

  describe('over stdio', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'indusagi-mcp-polling-'));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('is absent: there is no stream to close', async () => {
      const script = await bundleFixture('closable-tool.ts', dir);
      const client = new Client({ name: 'poller', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [script] }));
      try {
        expect(client.getServerVersion()?.name).toBe('closable');
        expect(text(await client.callTool({ name: 'closable' }))).toBe('closeStream: absent');
      } finally {
        await client.close();
      }
    });
  });
});
