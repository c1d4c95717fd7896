// An agent conversation end to end over a real MCP server: Claude (a loopback server speaking the
// Messages API, through the real SDK) searches the catalog, loads the filesystem server's write tool,
// calls it; the call waits for approval, the process is killed, a new process resumes the session,
// the catalog comes back loaded, the call is approved and writes the file. And progress notifications
// of a long tool call as run events.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, mcpToolSource } from '../../src/mcp/index.js';
import { createContextManager } from '../../src/context/index.js';
import { createConductor } from '../../src/runtime/index.js';
import type { ModelInvoker, RunEvent } from '../../src/runtime/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';
import { everything, FILESYSTEM } from './reference-servers.js';
import { bundleFixture } from './bundle.js';
import { startLines, type LineChild } from '../support/child-process.js';

let dir: string;
let bundle: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-mcp-agent-'));
  bundle = await bundleFixture('agent-process.ts', dir);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

type Child = LineChild;

const start = (args: Record<string, unknown>): Child => startLines(bundle, args);

const toolNames = (server: AnthropicTestServer, i: number) =>
  (server.requests[i].body.tools ?? []).map((tool: { name: string }) => tool.name);

describe('an agent over the catalog of a real filesystem server', () => {
  it('searches, loads and calls a tool, waits for approval across a kill, and the resumed session keeps the tool loaded', async () => {
    const server = await startAnthropicServer();
    const root = await mkdtemp(join(dir, 'workspace-'));
    const common = { storeDir: join(dir, 'sessions'), sessionId: 'mcp-e2e', root, filesystem: FILESYSTEM, baseURL: server.baseURL };
    try {
      server.enqueue(
        reply.tools([{ name: 'search_tools', input: { query: 'write file' }, id: 'toolu_search' }]),
        reply.tools([{ name: 'files_write_file', input: { path: join(root, 'plan.md'), content: '# Plan\n' }, id: 'toolu_write' }]),
      );
      const first = start({ ...common, phase: 'first' });
      await first.waitFor(/^waiting files\.write_file$/);
      first.process.kill('SIGKILL');
      await first.exited;

      // The first request: only the meta-tool, and a menu naming the server.
      expect(toolNames(server, 0)).toEqual(['search_tools']);
      const system = JSON.stringify(server.requests[0].body.system);
      expect(system).toContain('- files (14 tools): ');
      // The search loaded the write tool for the next request.
      const loaded = first.lines.find((line) => line.startsWith('context loaded '));
      expect(loaded?.slice('context loaded '.length).split(',')).toContain('files.write_file');
      expect(toolNames(server, 1)).toEqual(expect.arrayContaining(['search_tools', 'files_write_file']));

      server.enqueue(reply.text('Saved the plan.'));
      const second = start({ ...common, phase: 'resume' });
      const restored = await second.waitFor(/^restored /);
      expect(restored.slice('restored '.length).split(',')).toContain('files.write_file');
      await second.waitFor(/^settled /);
      expect(await second.exited).toBe(0);
      expect(second.lines).toEqual(
        expect.arrayContaining(['tool_started files.write_file', 'tool_finished files.write_file', 'settled settled Saved the plan.']),
      );

      // The request after the kill still offers the loaded tool, and carries the real server's result.
      expect(server.requests).toHaveLength(3);
      expect(toolNames(server, 2)).toEqual(expect.arrayContaining(['search_tools', 'files_write_file']));
      const results = server.requests[2].body.messages.flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []));
      expect(results.find((block: { type: string; tool_use_id?: string }) => block.tool_use_id === 'toolu_write')).toMatchObject({
        type: 'tool_result',
        content: `Successfully wrote to ${join(root, 'plan.md')}`,
      });
      expect(await readFile(join(root, 'plan.md'), 'utf8')).toBe('# Plan\n');
    } finally {
      await server.close();
    }
  });
});

describe('progress of a long MCP tool call', () => {
  it('reaches subscribers as tool_progress events between the call’s tool_started and tool_finished', async () => {
    const client = await connectMcp('everything', everything());
    try {
      let step = 0;
      const invokeModel: ModelInvoker = async () => {
        step++;
        if (step === 1) {
          const call = {
            kind: 'tool_call' as const,
            id: 'long',
            name: 'everything_trigger-long-running-operation',
            input: { duration: 0.3, steps: 3 },
          };
          return { turn: { role: 'assistant', blocks: [call] }, stopReason: 'tool_use' };
        }
        return { turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'Done.' }] }, stopReason: 'end_turn' };
      };
      const agent = createConductor({ model: 'test', tools: [...client.tools()] }, { invokeModel });
      const events: RunEvent[] = [];
      agent.subscribe((event) => events.push(event));
      const settled = await agent.submit('Run the long operation.');
      expect(settled.status).toBe('settled');
      const kinds = events.filter((e) => e.kind.startsWith('tool_')).map((e) => e.kind);
      expect(kinds[0]).toBe('tool_started');
      expect(kinds.at(-1)).toBe('tool_finished');
      const progress = events.filter((e): e is Extract<RunEvent, { kind: 'tool_progress' }> => e.kind === 'tool_progress');
      expect(progress).toEqual(
        [1, 2, 3].map((n) => ({
          kind: 'tool_progress',
          name: 'everything.trigger-long-running-operation',
          callId: 'long',
          progress: n,
          total: 3,
          runId: expect.any(String),
        })),
      );
    } finally {
      await client.close();
    }
  });
});

describe('tools a search loaded', () => {
  it('stay loaded when the history that holds the search is condensed away', async () => {
    const client = await connectMcp('everything', everything());
    try {
      const catalog = mcpToolSource(client);
      const sent: Array<{ tools: string[]; searched: boolean }> = [];
      const invokeModel: ModelInvoker = async (request) => {
        if (request.system?.startsWith('You condense'))
          return {
            turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'Earlier: the user had things echoed.' }] },
            stopReason: 'end_turn',
          };
        const searched = request.messages.some((turn) => turn.blocks.some((b) => b.kind === 'tool_call' && b.name === 'search_tools'));
        sent.push({ tools: (request.tools ?? []).map((t) => t.name), searched });
        const last = request.messages.at(-1)!.blocks[0];
        if (sent.length === 1)
          return {
            turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id: 's', name: 'search_tools', input: { query: 'echo' } }] },
            stopReason: 'tool_use',
          };
        if (last.kind === 'text' && last.text.startsWith('Echo'))
          return {
            turn: {
              role: 'assistant',
              blocks: [{ kind: 'tool_call', id: `e${sent.length}`, name: 'everything_echo', input: { message: 'hi' } }],
            },
            stopReason: 'tool_use',
          };
        return {
          turn: { role: 'assistant', blocks: [{ kind: 'text', text: `Noted. ${'More words. '.repeat(60)}` }] },
          stopReason: 'end_turn',
        };
      };
      // A small window, so a few long turns make the conductor condense.
      const context = createContextManager({
        budget: { maxTokens: 4_000 * 0.8, reserve: 400, count: (t) => Math.ceil(t.length / 4) },
        sources: [catalog],
      });
      const agent = createConductor(
        { model: 'test', contextWindow: 4_000, maxOutputTokens: 400, compaction: { keepRecent: 2 }, tools: [...client.tools()], context },
        { invokeModel },
      );
      let condensed = 0;
      agent.subscribe((event) => event.kind === 'compacted' && condensed++);
      await agent.submit('Find a tool that echoes.');
      for (let i = 0; i < 4; i++) await agent.submit(`Remember this: ${'background '.repeat(150)}`);
      await agent.submit('Echo hi');
      expect(condensed).toBeGreaterThan(0);
      const last = sent.at(-2)!;
      expect(last.searched).toBe(false);
      expect(last.tools).toContain('everything_echo');
      expect(catalog.loaded()).toContain('everything.echo');
    } finally {
      await client.close();
    }
  });
});

describe('the catalog as the agent sees it', () => {
  it('sends the model search_tools and a menu, not every schema, and a search makes the tool callable', async () => {
    const client = await connectMcp('everything', everything());
    try {
      const catalog = mcpToolSource(client);
      const sent: Array<{ tools: string[]; system: string }> = [];
      let step = 0;
      const invokeModel: ModelInvoker = async (request) => {
        sent.push({ tools: (request.tools ?? []).map((t) => t.name), system: request.system ?? '' });
        step++;
        if (step === 1)
          return {
            turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id: 's', name: 'search_tools', input: { query: 'echo message' } }] },
            stopReason: 'tool_use',
          };
        if (step === 2)
          return {
            turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id: 'e', name: 'everything_echo', input: { message: 'hi' } }] },
            stopReason: 'tool_use',
          };
        return { turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'It said hi.' }] }, stopReason: 'end_turn' };
      };
      const context = createContextManager({ budget: { maxTokens: 100_000, count: (t) => Math.ceil(t.length / 4) }, sources: [catalog] });
      const agent = createConductor({ model: 'test', tools: [...client.tools()], context }, { invokeModel });
      const events: RunEvent[] = [];
      agent.subscribe((event) => events.push(event));
      await agent.submit('Echo hi');
      expect(sent[0].tools).toEqual(['search_tools']);
      expect(sent[0].system).toContain(`- everything (${client.tools().length} tools): echo, `);
      expect(sent[1].tools[0]).toBe('search_tools');
      expect(sent[1].tools).toContain('everything_echo');
      const finished = events.find((e) => e.kind === 'tool_finished' && e.callId === 'e');
      expect(finished).toMatchObject({ result: 'Echo: hi', isError: false });
    } finally {
      await client.close();
    }
  });
});

describe("a server's request for user input during an agent's call", () => {
  /** A model that calls the everything server's elicitation tool once, then answers with what the tool returned. */
  const asking = (): { invokeModel: ModelInvoker; results: string[] } => {
    const results: string[] = [];
    let step = 0;
    const invokeModel: ModelInvoker = async (request) => {
      step++;
      if (step === 1) {
        const call = { kind: 'tool_call' as const, id: 'ask', name: 'everything_trigger-elicitation-request', input: {} };
        return { turn: { role: 'assistant', blocks: [call] }, stopReason: 'tool_use' };
      }
      const result = request.messages.at(-1)!.blocks.find((block) => block.kind === 'tool_result');
      results.push(result?.kind === 'tool_result' ? result.content : '');
      return { turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'Thanks.' }] }, stopReason: 'end_turn' };
    };
    return { invokeModel, results };
  };

  it('goes to the person through the agent: input_requested, agent.answer, and the answer reaches the server', async () => {
    const client = await connectMcp('everything', everything());
    try {
      const { invokeModel, results } = asking();
      const agent = createConductor({ model: 'test', tools: [...client.tools()] }, { invokeModel });
      const events: RunEvent[] = [];
      agent.subscribe((event) => {
        events.push(event);
        if (event.kind === 'input_requested') {
          expect(agent.pendingInputs()).toEqual([
            expect.objectContaining({ requestId: event.requestId, callId: 'ask', from: 'everything' }),
          ]);
          // Not what was asked: refused, and the tool keeps waiting for a good answer.
          expect(() => agent.answer(event.requestId, { action: 'accept', content: { integer: 'seven' } })).toThrow(/does not match/);
          agent.answer(event.requestId, {
            action: 'accept',
            content: { name: 'Grace Hopper', check: true, email: 'grace@example.com', integer: 9 },
          });
        }
      });

      const settled = await agent.submit('Ask me for my details.');

      expect(settled.status).toBe('settled');
      const request = events.find((e) => e.kind === 'input_requested');
      expect(request).toMatchObject({ callId: 'ask', name: 'everything.trigger-elicitation-request', from: 'everything' });
      expect(events.find((e) => e.kind === 'input_answered')).toMatchObject({ action: 'accept' });
      expect(results[0]).toContain('- Name: Grace Hopper');
      expect(agent.pendingInputs()).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('is refused in a headless run (nothing listens), and the model reads why', async () => {
    const client = await connectMcp('everything', everything());
    try {
      const { invokeModel, results } = asking();
      const agent = createConductor({ model: 'test', tools: [...client.tools()] }, { invokeModel });

      const settled = await agent.submit('Ask me for my details.');

      expect(settled.status).toBe('settled');
      expect(results[0]).toMatch(/headless/);
    } finally {
      await client.close();
    }
  });
});
