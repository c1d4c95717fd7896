// The reference "everything" server (@modelcontextprotocol/server-everything), spawned for real, over
// stdio, Streamable HTTP and the old SSE transport: tools, content kinds, structured content, progress,
// elicitation, resources and prompts, as an agent's tools and through the client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, mcpResourceSource, McpToolError, type McpClient, type McpElicitationRequest } from '../../src/mcp/index.js';
import { createContextManager } from '../../src/context/index.js';
import { toToolset } from '../../src/tools/index.js';
import { ToolInputError } from '../../src/entries/errors.js';
import type { ToolContext, ToolProgress } from '../../src/runtime/index.js';
import { everything, startEverythingHttp } from './reference-servers.js';

const ctx = (over: Partial<ToolContext> = {}): ToolContext => ({ signal: new AbortController().signal, callId: 'call-1', ...over });

let client: McpClient;
const asked: McpElicitationRequest[] = [];
beforeAll(async () => {
  client = await connectMcp('everything', everything(), {
    onElicitation: async (request) => {
      asked.push(request);
      return { action: 'accept', content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: 7 } };
    },
  });
});
afterAll(() => client.close());

const tool = (name: string, from = client) => from.tools().find((t) => t.name === `${from.name}.${name}`)!;

describe('the everything server over stdio', () => {
  it('introduces itself, and its tools become namespaced ToolDefinitions with their annotations mapped', () => {
    expect(client.server).toMatchObject({
      name: 'mcp-servers/everything',
      protocolVersion: '2025-11-25',
      capabilities: { tools: true, resources: true, prompts: true },
    });
    const echo = tool('echo');
    expect(echo).toMatchObject({
      name: 'everything.echo',
      needsApproval: false,
      idempotent: true,
      mcp: { server: 'everything', name: 'echo' },
    });
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    // Not read-only, not destructive, not idempotent: runs without approval, and is not run again after a crash.
    expect(tool('toggle-simulated-logging')).toMatchObject({ needsApproval: false, idempotent: false });
    expect(client.refused).toEqual([]);
  });

  it('checks input against the server schema before calling: invalid input never reaches the server', async () => {
    const tools = toToolset([...client.tools()]);
    expect(await tools.execute('everything.echo', { message: 'hello' })).toBe('Echo: hello');
    const refused = await tools.execute('everything.echo', { message: 42 }).catch((e: unknown) => e);
    expect(ToolInputError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toContain('/message: Instance type "number" is invalid. Expected "string".');
  });

  it('maps an image to a block, and tells the model it is there', async () => {
    const result = await client.callTool('get-tiny-image');
    expect(result.content.map((block) => block.kind)).toEqual(['text', 'image', 'text']);
    expect(result.content[1]).toMatchObject({ kind: 'image', source: { type: 'base64', mediaType: 'image/png' } });
    expect(result.text).toBe(
      "Here's the image you requested:\n[image/png image, 4,033 bytes, not shown]\nThe image above is the MCP logo.",
    );
    expect(await tool('get-tiny-image').execute({}, ctx())).toBe(result.text);
  });

  it('keeps structured content, checked against the output schema the tool declares', async () => {
    const structured = tool('get-structured-content');
    expect(structured.mcp.outputSchema).toMatchObject({ type: 'object', properties: { temperature: { type: 'number' } } });
    const result = await client.callTool('get-structured-content', { location: 'Chicago' });
    expect(result.structuredContent).toEqual({
      temperature: expect.any(Number),
      conditions: expect.any(String),
      humidity: expect.any(Number),
    });
    expect(JSON.parse(result.text)).toEqual(result.structuredContent);
  });

  it('maps an embedded resource to a resource block with its URI and type', async () => {
    const result = await client.callTool('get-resource-reference', { resourceType: 'Text', resourceId: 3 });
    expect(result.content[1]).toEqual({
      kind: 'resource',
      uri: 'demo://resource/dynamic/text/3',
      mimeType: 'text/plain',
      text: expect.stringMatching(/^Resource 3: /),
    });
    expect(result.text).toContain('[resource demo://resource/dynamic/text/3]\nResource 3: This is a plaintext resource');
  });

  it('reaches the model as a tool error when the tool reports one (isError)', async () => {
    const error = await (tool('get-sum').execute({ a: 'one', b: 2 }, ctx()) as Promise<unknown>).catch((e: unknown) => e);
    expect(McpToolError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ server: 'everything', tool: 'get-sum', reason: 'tool_error' });
    expect((error as Error).message).toMatch(/Input validation error/);
  });

  it('reports progress notifications through ctx.progress', async () => {
    const updates: ToolProgress[] = [];
    const text = await tool('trigger-long-running-operation').execute(
      { duration: 0.2, steps: 4 },
      ctx({ progress: (u) => updates.push(u) }),
    );
    expect(text).toBe('Long running operation completed. Duration: 0.2 seconds, Steps: 4.');
    expect(updates).toEqual([1, 2, 3, 4].map((progress) => ({ progress, total: 4 })));
  });

  it('puts the server’s request for user input to onElicitation, and sends the answer back', async () => {
    const text = await tool('trigger-elicitation-request').execute({}, ctx({ callId: 'asking' }));
    expect(asked.at(-1)).toMatchObject({
      server: 'everything',
      message: 'Please provide inputs for the following fields:',
      requestedSchema: { type: 'object' },
    });
    expect(text).toContain('- Name: Ada Lovelace');
    // Fields the person left out get the schema's defaults.
    expect(text).toContain('"firstLine": "It was a dark and stormy night."');
  });

  it('lists and reads resources, and lists resource templates', async () => {
    const resources = await client.listResources();
    const architecture = resources.find((r) => r.uri === 'demo://resource/static/document/architecture.md');
    expect(architecture).toMatchObject({ mimeType: 'text/markdown' });
    const [contents] = await client.readResource(architecture!.uri);
    expect(contents).toMatchObject({
      uri: architecture!.uri,
      mimeType: 'text/markdown',
      text: expect.stringContaining('# Everything Server'),
    });
    expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toContain('demo://resource/dynamic/text/{resourceId}');
  });

  it('gets prompts as turns, with their arguments', async () => {
    const prompts = await client.listPrompts();
    expect(prompts.find((p) => p.name === 'args-prompt')?.arguments).toEqual([
      { name: 'city', description: 'Name of the city', required: true },
      { name: 'state', required: false },
    ]);
    const prompt = await client.getPrompt('args-prompt', { city: 'Lisbon' });
    expect(prompt.messages).toEqual([{ role: 'user', blocks: [{ kind: 'text', text: expect.stringContaining('Lisbon') }] }]);
  });

  it('adds a resource to a turn through a context source, under the budget', async () => {
    const source = mcpResourceSource(client);
    source.attach('demo://resource/static/document/architecture.md');
    const context = createContextManager({ budget: { maxTokens: 50_000, count: (text) => Math.ceil(text.length / 4) }, sources: [source] });
    const prepared = await context.prepare({ prompt: 'How is the server built?', messages: [] });
    expect(prepared.parts).toEqual([{ type: 'context', source: 'resources', op: 'loaded' }]);
    expect(prepared.system).toMatch(
      /^Resources for this turn:\n<resource server="everything" uri="demo:\/\/resource\/static\/document\/architecture.md" mimeType="text\/markdown">\n# Everything Server/,
    );
    // Attached for one turn only.
    expect((await context.prepare({ prompt: 'And now?', messages: [] })).system).toBe('');
  });
});

describe('elicitation in a headless run', () => {
  it('is refused with an error saying nobody can answer, which the tool reports to the model', async () => {
    const headless = await connectMcp('headless', everything());
    try {
      const error = await (tool('trigger-elicitation-request', headless).execute({}, ctx()) as Promise<unknown>).catch((e: unknown) => e);
      expect(McpToolError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain(
        'MCP server "headless" asked the user for input, but this is a headless run: nobody can answer.',
      );
    } finally {
      await headless.close();
    }
  });
});

describe('the everything server over HTTP', () => {
  it('speaks Streamable HTTP: tools, progress and resources', async () => {
    const server = await startEverythingHttp('streamableHttp');
    const http = await connectMcp('web', { url: server.url });
    try {
      expect(http.server.name).toBe('mcp-servers/everything');
      expect(await tool('echo', http).execute({ message: 'over http' }, ctx())).toBe('Echo: over http');
      const updates: ToolProgress[] = [];
      await tool('trigger-long-running-operation', http).execute({ duration: 0.1, steps: 2 }, ctx({ progress: (u) => updates.push(u) }));
      expect(updates[0]).toEqual({ progress: 1, total: 2 });
      expect((await http.readResource('demo://resource/static/document/architecture.md'))[0]).toMatchObject({ mimeType: 'text/markdown' });
    } finally {
      await http.close();
      await server.close();
    }
  });

  it('falls back to the old SSE transport for a server that only speaks it', async () => {
    const server = await startEverythingHttp('sse');
    const old = await connectMcp('old', { url: server.url });
    try {
      expect(await tool('echo', old).execute({ message: 'over sse' }, ctx())).toBe('Echo: over sse');
    } finally {
      await old.close();
      await server.close();
    }
  });
});
