import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/entries/runtime.js';
import type { Agent, ToolDefinition } from '../../src/entries/runtime.js';
import { RunFault } from '../../src/runtime/loop/errors.js';
import { DEMO_MODEL_ID, startDemoModel } from '../../src/demo/index.js';
import type { DemoModel } from '../../src/demo/index.js';
import { ToolError } from '../../src/entries/errors.js';
import { RemoteStreamError, fetchParts, sendParts } from '../../src/transport/index.js';
import { agentRunParts } from '../../src/parts/index.js';
import type { PartStreamOutcome } from '../../src/transport/index.js';
import type { AgentPart } from '../../src/parts/index.js';
import { startServer, turn } from './server.js';
import { collect } from './helpers.js';

// A real conductor over the real SDK, talking to the offline demo model on loopback.
let demo: DemoModel;
beforeAll(async () => {
  demo = await startDemoModel({ chunkDelayMs: 0 });
});
afterAll(async () => {
  await demo.close();
});

const agents: Agent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

function notesAgent(files: Map<string, string>, chunkDelayClient?: Anthropic): Agent {
  const tools: ToolDefinition[] = [
    {
      name: 'files.list',
      description: 'List files',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
      execute: () => [...files.keys()].join('\n'),
    },
    {
      name: 'files.write',
      description: 'Write a file',
      inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } },
      needsApproval: true,
      execute: (input: { path: string; content: string }) => {
        if (input.path.includes('..')) throw new ToolError('outside the workspace');
        files.set(input.path, input.content);
        return `wrote ${input.path}`;
      },
    },
  ];
  const agent = createAgent(
    { model: DEMO_MODEL_ID, tools },
    { client: chunkDelayClient ?? new Anthropic({ baseURL: demo.baseURL, apiKey: 'offline-demo', maxRetries: 0 }) },
  );
  agents.push(agent);
  return agent;
}

const joinedText = (parts: AgentPart[]) => parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
const toolParts = (parts: AgentPart[]) => parts.filter((p): p is Extract<AgentPart, { type: 'tool' }> => p.type === 'tool');

describe('agentRunParts', () => {
  it('streams a run as text deltas and one tool part per finished call, with the original tool name and input', async () => {
    const agent = notesAgent(new Map([['a.txt', 'x']]));
    const { parts, error } = await collect(agentRunParts(agent.submit('list files')));
    expect(error).toBeUndefined();
    expect(parts.filter((p) => p.type === 'text').length).toBeGreaterThan(1);
    expect(toolParts(parts)).toEqual([
      { type: 'tool', name: 'files.list', callId: expect.any(String), input: { path: '.' }, result: 'a.txt' },
    ]);
    expect(joinedText(parts)).toContain('Listing .');
    expect(joinedText(parts)).toContain('a.txt');
  });

  it('returns the run snapshot when the stream ends', async () => {
    const agent = notesAgent(new Map());
    const generator = agentRunParts(agent.submit('hello'));
    let step = await generator.next();
    while (!step.done) step = await generator.next();
    expect(step.value.status).toBe('settled');
    expect(step.value.text).toContain('You said "hello"');
  });

  it('marks a call waiting for approval, then the approve run replaces it by callId with the executed result', async () => {
    const files = new Map<string, string>();
    const agent = notesAgent(files);
    const first = await collect(agentRunParts(agent.submit('write hello to notes.txt')));
    const [pending] = toolParts(first.parts);
    expect(pending).toMatchObject({
      name: 'files.write',
      input: { path: 'notes.txt', content: 'hello' },
      result: { status: 'pending_approval', actionId: pending.callId },
      approvalId: pending.callId,
    });
    expect(files.size).toBe(0);

    const second = await collect(agentRunParts(agent.approve(pending.approvalId!)));
    expect(toolParts(second.parts)).toEqual([
      {
        type: 'tool',
        name: 'files.write',
        callId: pending.callId,
        input: { path: 'notes.txt', content: 'hello' },
        result: 'wrote notes.txt',
      },
    ]);
    expect(joinedText(second.parts)).toContain('Done.');
    expect(files.get('notes.txt')).toBe('hello');
  });

  it('reports a rejected call as an error tool part that keeps its input', async () => {
    const files = new Map<string, string>();
    const agent = notesAgent(files);
    const first = await collect(agentRunParts(agent.submit('write hello to notes.txt')));
    const [pending] = toolParts(first.parts);
    const second = await collect(agentRunParts(agent.reject(pending.approvalId!, 'not now')));
    expect(toolParts(second.parts)).toEqual([
      {
        type: 'tool',
        name: 'files.write',
        callId: pending.callId,
        input: { path: 'notes.txt', content: 'hello' },
        result: expect.stringContaining('not now'),
        isError: true,
      },
    ]);
    expect(files.size).toBe(0);
  });

  it('throws the run fault after the parts before it', async () => {
    const agent = notesAgent(new Map());
    await collect(agentRunParts(agent.submit('write hello to notes.txt')));
    // A new prompt while a call waits for approval is refused by the conductor.
    const { parts, error } = await collect(agentRunParts(agent.submit('hello')));
    expect(parts).toEqual([]);
    expect((error as Error).name).toBe('ApprovalsPendingError');
  });

  it('gives two streams started at once on one agent only their own run each', async () => {
    const agent = notesAgent(new Map([['a.txt', 'x']]));
    const [one, two] = await Promise.all([
      collect(agentRunParts(agent.submit('list files'))),
      collect(agentRunParts(agent.submit('first words'))),
    ]);
    expect(toolParts(one.parts)).toHaveLength(1);
    expect(joinedText(one.parts)).not.toContain('first words');
    expect(toolParts(two.parts)).toHaveLength(0);
    expect(joinedText(two.parts)).toContain('You said "first words"');
  });

  it('over sendParts, a client that disconnects aborts the run through the submit signal', async () => {
    const slowDemo = await startDemoModel({ chunkDelayMs: 20 });
    try {
      const agent = notesAgent(new Map(), new Anthropic({ baseURL: slowDemo.baseURL, apiKey: 'offline-demo', maxRetries: 0 }));
      const outcomes: Promise<PartStreamOutcome>[] = [];
      const faults: unknown[] = [];
      const server = await startServer((_req, res) => {
        outcomes.push(
          sendParts(
            res,
            (signal) => {
              const run = agent.submit('tell me a long story', { signal });
              run.catch((e: unknown) => faults.push(e));
              return agentRunParts(run);
            },
            { onError: () => undefined },
          ),
        );
      });
      try {
        const controller = new AbortController();
        const parts = fetchParts(server.url, { signal: controller.signal });
        await parts.next();
        controller.abort();
        await expect(parts.next()).rejects.toThrow();
        expect(await outcomes[0]).toBe('disconnected');
        while (faults.length === 0) await turn();
        expect(RunFault.isInstance(faults[0])).toBe(true);
        expect((faults[0] as RunFault).kind).toBe('aborted');
      } finally {
        await server.close();
      }
    } finally {
      await slowDemo.close();
    }
  });

  it('over sendParts, a tripped run reaches the client as a guardrail part, then its fault', async () => {
    const agent = createAgent(
      {
        model: DEMO_MODEL_ID,
        outputGuardrails: [{ name: 'echo', execute: (args) => ({ tripwireTriggered: args.stage === 'answer', message: 'no echoes' }) }],
      },
      { client: new Anthropic({ baseURL: demo.baseURL, apiKey: 'offline-demo', maxRetries: 0 }) },
    );
    agents.push(agent);
    const server = await startServer((_req, res) => {
      void sendParts(res, agentRunParts(agent.submit('hello')), { onError: () => undefined });
    });
    try {
      const { parts, error } = await collect(fetchParts(server.url));
      expect(parts.at(-1)).toEqual({
        type: 'guardrail',
        trip: { guardrail: 'echo', stage: 'answer', message: 'no echoes', runId: expect.any(String), at: expect.any(Number) },
      });
      expect((error as RemoteStreamError).remoteKind).toBe('guardrail_tripped');
    } finally {
      await server.close();
    }
  });

  it('over sendParts, a run fault reaches the browser as an error frame with its kind', async () => {
    const agent = notesAgent(new Map());
    await agent.submit('write hello to notes.txt');
    const server = await startServer((_req, res) => {
      void sendParts(res, agentRunParts(agent.submit('hello')), { onError: () => undefined });
    });
    try {
      const { error } = await collect(fetchParts(server.url));
      expect(RemoteStreamError.isInstance(error)).toBe(true);
      expect((error as RemoteStreamError).remoteKind).toBe('approvals_pending');
    } finally {
      await server.close();
    }
  });
});
