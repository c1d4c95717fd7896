// serveMcp's resources, prompts, completion and logging, and a served tool sampling the client's model
// and asking its user (ctx.sample, ctx.ask): served over Streamable HTTP in this process and used
// through the SDK's own Client, as any MCP client would.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type ElicitRequest,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConfigError, serveMcp, type McpServing, type ServeMcpOptions } from '../../src/mcp/index.js';
import type { ToolDefinition } from '../../src/runtime/index.js';

const none = { type: 'object', properties: {} };
const tools: ToolDefinition[] = [
  {
    name: 'chatty',
    description: 'Logs at two levels.',
    inputSchema: none,
    execute: (_input, ctx) => {
      ctx.log?.('info', 'routine');
      ctx.log?.('error', { problem: 'disk full' });
      return 'done';
    },
  },
  {
    name: 'summarize',
    description: "Asks the client's model.",
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    execute: async ({ text }: { text: string }, ctx) => {
      const answer = await ctx.sample!({
        messages: [{ role: 'user', text: `Summarize: ${text}` }],
        maxTokens: 50,
        systemPrompt: 'Be brief.',
      });
      return `${answer.model} said: ${answer.text}`;
    },
  },
  {
    name: 'greet',
    description: 'Asks the user their name.',
    inputSchema: none,
    execute: async (_input, ctx) => {
      const answer = await ctx.ask!({
        message: 'Your name?',
        schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      return answer.action === 'accept' ? `Hello, ${String(answer.content.name)}!` : `No name (${answer.action}).`;
    },
  },
];

const options: ServeMcpOptions = {
  name: 'features',
  tools,
  resources: [
    { uri: 'note://readme', name: 'readme', description: 'The readme.', mimeType: 'text/markdown', read: () => ({ text: '# Hello' }) },
    { uri: 'note://logo', name: 'logo', mimeType: 'image/png', read: () => ({ blob: 'iVBORw0KGgo=' }) },
  ],
  resourceTemplates: [
    {
      uriTemplate: 'user://{team}/{id}',
      name: 'user',
      mimeType: 'application/json',
      read: (_uri, { team, id }) => ({ text: JSON.stringify({ team, id }) }),
      complete: { team: (value) => ['alpha', 'alps', 'beta'].filter((team) => team.startsWith(value)) },
    },
  ],
  prompts: [
    {
      name: 'review',
      description: 'Review a file.',
      arguments: [
        { name: 'path', description: 'The file.', required: true },
        { name: 'tone', description: 'How harsh.' },
      ],
      get: ({ path, tone }) => [
        { role: 'user', content: { kind: 'resource', uri: `file://${path}`, mimeType: 'text/plain', text: 'contents' } },
        { role: 'assistant', content: { kind: 'text', text: `Reviewing ${path} ${tone ?? 'kindly'}.` } },
      ],
      complete: {
        tone: (value, context) => ['kindly', 'keenly', 'harshly'].filter((tone) => tone.startsWith(value) && context.path !== 'secret'),
      },
    },
  ],
  transport: { port: 0 },
};

let serving: McpServing;
beforeAll(async () => {
  serving = await serveMcp(options);
});
afterAll(() => serving.close());

/** A client of the served URL, declaring the capabilities given (with their handlers). */
async function connect(capabilities: { sampling?: Record<string, never>; elicitation?: Record<string, never> } = {}): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(serving.url!)));
  return client;
}

describe('serveMcp resources', () => {
  it('lists direct resources and templates, and reads text, bytes and templated URIs', async () => {
    const client = await connect();
    try {
      expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true });
      expect((await client.listResources()).resources).toEqual([
        { uri: 'note://readme', name: 'readme', description: 'The readme.', mimeType: 'text/markdown' },
        { uri: 'note://logo', name: 'logo', mimeType: 'image/png' },
      ]);
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
        { uriTemplate: 'user://{team}/{id}', name: 'user', mimeType: 'application/json' },
      ]);
      expect((await client.readResource({ uri: 'note://readme' })).contents).toEqual([
        { uri: 'note://readme', mimeType: 'text/markdown', text: '# Hello' },
      ]);
      expect((await client.readResource({ uri: 'note://logo' })).contents).toEqual([
        { uri: 'note://logo', mimeType: 'image/png', blob: 'iVBORw0KGgo=' },
      ]);
      expect((await client.readResource({ uri: 'user://alpha/a%20b' })).contents).toEqual([
        { uri: 'user://alpha/a%20b', mimeType: 'application/json', text: '{"team":"alpha","id":"a b"}' },
      ]);
      await expect(client.readResource({ uri: 'note://missing' })).rejects.toMatchObject({ code: -32002 });
      // A variable is one segment: a URI with more segments matches no template.
      await expect(client.readResource({ uri: 'user://alpha/a/b' })).rejects.toMatchObject({ code: -32002 });
    } finally {
      await client.close();
    }
  });

  it('tells a subscribed client a resource changed, and stops once it unsubscribes', async () => {
    const client = await connect();
    const updated: string[] = [];
    let sawLogo!: () => void;
    const logo = new Promise<void>((resolve) => (sawLogo = resolve));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updated.push(notification.params.uri);
      if (notification.params.uri === 'note://logo') sawLogo();
    });
    try {
      await client.subscribeResource({ uri: 'note://readme' });
      await client.subscribeResource({ uri: 'note://logo' });
      await client.unsubscribeResource({ uri: 'note://readme' });
      await serving.resourceUpdated('note://readme');
      await serving.resourceUpdated('note://logo');
      // Both are sent on the same stream, in order: once the logo's arrived, the readme's never will.
      await logo;
      expect(updated).toEqual(['note://logo']);
    } finally {
      await client.close();
    }
  });
});

describe('serveMcp prompts and completion', () => {
  it('lists prompts with their arguments and gets one as MCP messages', async () => {
    const client = await connect();
    try {
      expect((await client.listPrompts()).prompts).toEqual([
        {
          name: 'review',
          description: 'Review a file.',
          arguments: [
            { name: 'path', description: 'The file.', required: true },
            { name: 'tone', description: 'How harsh.', required: false },
          ],
        },
      ]);
      const got = await client.getPrompt({ name: 'review', arguments: { path: 'a.ts' } });
      expect(got.messages).toEqual([
        { role: 'user', content: { type: 'resource', resource: { uri: 'file://a.ts', mimeType: 'text/plain', text: 'contents' } } },
        { role: 'assistant', content: { type: 'text', text: 'Reviewing a.ts kindly.' } },
      ]);
      await expect(client.getPrompt({ name: 'review', arguments: {} })).rejects.toThrow(/needs the argument path/);
      await expect(client.getPrompt({ name: 'nope' })).rejects.toThrow(/Unknown prompt "nope"/);
    } finally {
      await client.close();
    }
  });

  it("completes a prompt's and a template's arguments from what was typed and the other arguments", async () => {
    const client = await connect();
    try {
      const tone = await client.complete({ ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'tone', value: 'k' } });
      expect(tone.completion).toEqual({ values: ['kindly', 'keenly'], total: 2, hasMore: false });
      const hidden = await client.complete({
        ref: { type: 'ref/prompt', name: 'review' },
        argument: { name: 'tone', value: 'k' },
        context: { arguments: { path: 'secret' } },
      });
      expect(hidden.completion.values).toEqual([]);
      const team = await client.complete({
        ref: { type: 'ref/resource', uri: 'user://{team}/{id}' },
        argument: { name: 'team', value: 'al' },
      });
      expect(team.completion.values).toEqual(['alpha', 'alps']);
      // An argument without a completer has no suggestions; an unknown prompt is an error.
      const path = await client.complete({ ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'path', value: '' } });
      expect(path.completion.values).toEqual([]);
      await expect(client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } })).rejects.toThrow(
        /Unknown prompt/,
      );
    } finally {
      await client.close();
    }
  });
});

describe('a served tool logging, sampling and asking', () => {
  it("sends ctx.log as log messages, only at or above the client's level", async () => {
    const client = await connect();
    const messages: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void messages.push(notification.params));
    try {
      await client.callTool({ name: 'chatty', arguments: {} });
      expect(messages).toEqual([
        { level: 'info', logger: 'chatty', data: 'routine' },
        { level: 'error', logger: 'chatty', data: { problem: 'disk full' } },
      ]);
      messages.length = 0;
      await client.setLoggingLevel('warning');
      await client.callTool({ name: 'chatty', arguments: {} });
      expect(messages).toEqual([{ level: 'error', logger: 'chatty', data: { problem: 'disk full' } }]);
    } finally {
      await client.close();
    }
  });

  it("asks the client's model through ctx.sample, and fails the call when the client cannot sample", async () => {
    const client = await connect({ sampling: {} });
    const requests: unknown[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      requests.push(request.params);
      return { role: 'assistant', content: { type: 'text', text: 'short' }, model: 'client-model', stopReason: 'endTurn' };
    });
    const plain = await connect();
    try {
      const result = await client.callTool({ name: 'summarize', arguments: { text: 'a long story' } });
      expect(result.content).toEqual([{ type: 'text', text: 'client-model said: short' }]);
      expect(requests).toEqual([
        {
          messages: [{ role: 'user', content: { type: 'text', text: 'Summarize: a long story' } }],
          maxTokens: 50,
          systemPrompt: 'Be brief.',
        },
      ]);
      const refused = await plain.callTool({ name: 'summarize', arguments: { text: 'x' } });
      expect(refused.isError).toBe(true);
      expect(refused.content).toEqual([
        {
          type: 'text',
          text: `The tool "summarize" asked the client's model for a completion, but this client does not support sampling.`,
        },
      ]);
    } finally {
      await client.close();
      await plain.close();
    }
  });

  it("asks the client's user through ctx.ask, passing on a decline, and fails the call when the client cannot ask", async () => {
    const client = await connect({ elicitation: {} });
    const asked: ElicitRequest['params'][] = [];
    let reply: { action: 'accept'; content: { name: string } } | { action: 'decline' } = { action: 'accept', content: { name: 'Ada' } };
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return reply;
    });
    const plain = await connect();
    try {
      expect((await client.callTool({ name: 'greet', arguments: {} })).content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
      expect(asked).toMatchObject([
        { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      ]);
      reply = { action: 'decline' };
      expect((await client.callTool({ name: 'greet', arguments: {} })).content).toEqual([{ type: 'text', text: 'No name (decline).' }]);
      const refused = await plain.callTool({ name: 'greet', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(refused.content).toEqual([
        { type: 'text', text: `The tool "greet" asked the client's user for input, but this client does not support elicitation.` },
      ]);
    } finally {
      await client.close();
      await plain.close();
    }
  });
});

describe('serveMcp options', () => {
  const read = () => ({ text: '' });
  it.each([
    ['a resource without a scheme', { resources: [{ uri: 'readme', name: 'r', read }] }, /every resource needs a uri/],
    [
      'two resources at one URI',
      {
        resources: [
          { uri: 'a://x', name: 'r', read },
          { uri: 'a://x', name: 's', read },
        ],
      },
      /two resources have the URI "a:\/\/x"/,
    ],
    ['a template without a variable', { resourceTemplates: [{ uriTemplate: 'a://x', name: 't', read }] }, /has no \{variable\}/],
    ['a prompt without get', { prompts: [{ name: 'p' }] }, /every prompt needs a name and a get function/],
    [
      'a completer of no argument',
      { prompts: [{ name: 'p', arguments: [{ name: 'a' }], get: () => [], complete: { b: () => [] } }] },
      /completes "b", which is not one of its arguments/,
    ],
    ['nothing to serve', {}, /at least one tool, agent, resource or prompt/],
  ])('refuses %s with an McpConfigError', async (_what, given, message) => {
    const refused = serveMcp({ ...(given as ServeMcpOptions), transport: { port: 0 } });
    await expect(refused).rejects.toBeInstanceOf(McpConfigError);
    await expect(refused).rejects.toThrow(message);
  });

  it('serves prompts alone, declaring only what it serves', async () => {
    const alone = await serveMcp({ prompts: options.prompts, transport: { port: 0 } });
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(alone.url!)));
      const capabilities = client.getServerCapabilities()!;
      expect(capabilities.prompts).toBeDefined();
      expect(capabilities.completions).toBeDefined();
      expect(capabilities.resources).toBeUndefined();
      await expect(client.listResources()).rejects.toMatchObject({ code: -32601 });
    } finally {
      await client.close();
      await alone.close();
    }
  });
});
