// A three-level tree of agents (lead -> research -> web) on the loopback Anthropic model, through the
// real SDK and a session store on files: one stream with paths, approvals two levels down decided at
// the top (also after a restart), sub-agent calls of one step side by side, failures, structured output.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, SessionStore } from '../../src/entries/runtime.js';
import type { Agent, AgentConfig, RunEvent, ToolDefinition } from '../../src/entries/runtime.js';
import { agentTool, childSessionId, type AgentToolResult } from '../../src/agents/index.js';
import { reply } from '../../src/testing/index.js';
import { startTreeModel, systemOf, type Plan, type TreeModel } from './tree-model.js';

let dir: string;
let model: TreeModel;
let store: SessionStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-tree-'));
  store = new SessionStore(dir);
});
afterEach(async () => {
  await model?.close();
  await rm(dir, { recursive: true, force: true });
});

const MODEL = 'claude-haiku-4-5';
const ran: string[] = [];
beforeEach(() => void (ran.length = 0));

const fetchPage: ToolDefinition = {
  name: 'fetch',
  description: 'Fetches a page.',
  inputSchema: { type: 'object', properties: { url: { type: 'string' } } },
  execute: (input: { url: string }) => (ran.push(`fetch ${input.url}`), `page at ${input.url}`),
};
const pay: ToolDefinition = {
  name: 'pay',
  description: 'Pays for a page.',
  inputSchema: { type: 'object', properties: { usd: { type: 'number' } } },
  needsApproval: true,
  execute: (input: { usd: number }) => (ran.push(`pay ${input.usd}`), `paid ${input.usd}`),
};

const ask =
  (name: string): Plan =>
  (prompt) => [{ name, input: { prompt: `${prompt}, please` } }];

/** lead -> research -> web, web using `webTools`; `lead` built on the file store. */
function tree(webTools: ToolDefinition[], options: { sessionId?: string; research?: Partial<AgentConfig> } = {}): Agent {
  const web = agentTool({ model: MODEL, system: systemOf('web'), tools: webTools }, { name: 'web', description: 'Searches the web.' });
  const research = agentTool(
    { model: MODEL, system: systemOf('research'), tools: [web], ...options.research },
    { name: 'research', description: 'Researches a question.' },
  );
  return createAgent(
    { model: MODEL, system: systemOf('lead'), tools: [research], sessionId: options.sessionId ?? 'lead' },
    { client: model.server.client(), store },
  );
}

/** Where an event sits and what it is: `research/web tool_started fetch`. */
function line(event: RunEvent): string {
  const where = (path: string[]) => (path.length === 0 ? '.' : path.join('/'));
  const named = (e: RunEvent) => ('name' in e ? ` ${String(e.name)}` : '');
  return event.kind === 'nested'
    ? `${where(event.path)} ${event.event.kind}${named(event.event)}`
    : `${where([])} ${event.kind}${named(event)}`;
}

const STRUCTURE = new Set(['run_started', 'tool_started', 'tool_finished', 'approval_requested', 'settled', 'faulted']);
const structural = (events: RunEvent[]) => events.filter((e) => STRUCTURE.has(e.kind === 'nested' ? e.event.kind : e.kind)).map(line);

describe('a tree of agents', () => {
  it('streams the whole tree as one run: every event in order, each sub-agent under its path', async () => {
    model = await startTreeModel({
      lead: ask('research'),
      research: ask('web'),
      web: () => [{ name: 'fetch', input: { url: 'tides.example' } }],
    });
    const lead = tree([fetchPage]);
    const heard: RunEvent[] = [];
    lead.subscribe((event) => heard.push(event));
    const run = lead.submit('Find the tides');
    const events: RunEvent[] = [];
    for await (const event of run) events.push(event);
    const snapshot = await run;

    expect(structural(events)).toEqual([
      '. run_started',
      '. tool_started research',
      'research run_started',
      'research tool_started web',
      'research/web run_started',
      'research/web tool_started fetch',
      'research/web tool_finished fetch',
      'research/web settled',
      'research tool_finished web',
      'research settled',
      '. tool_finished research',
      '. settled',
    ]);
    // One stream: the agent's subscribers see the run's events (and the store's load report), every one stamped with its id.
    expect(heard.filter((e) => e.kind !== 'session_opened')).toEqual(events);
    expect(events.every((e) => e.runId === run.runId)).toBe(true);

    // Each nested event names the calls it sits under and the session of the sub-agent that published it.
    const researchCall = events.find((e) => e.kind === 'tool_started' && e.name === 'research') as Extract<
      RunEvent,
      { kind: 'tool_started' }
    >;
    const webCall = events.flatMap((e) =>
      e.kind === 'nested' && e.event.kind === 'tool_started' && e.event.name === 'web' ? [e.event] : [],
    )[0];
    const researchSession = childSessionId('lead', researchCall.callId);
    const webSession = childSessionId(researchSession, webCall.callId);
    for (const event of events) {
      if (event.kind !== 'nested') continue;
      if (event.path.length === 1) expect([event.calls, event.sessionId]).toEqual([[researchCall.callId], researchSession]);
      else expect([event.calls, event.sessionId]).toEqual([[researchCall.callId, webCall.callId], webSession]);
    }
    // A sub-agent's text streams only inside its nested events, never as the lead's own.
    const ownText = events.flatMap((e) => (e.kind === 'text_delta' ? [e.delta] : [])).join('');
    expect(ownText).toBe(snapshot.text);
    const webText = events.flatMap((e) =>
      e.kind === 'nested' && e.path.length === 2 && e.event.kind === 'text_delta' ? [e.event.delta] : [],
    );
    expect(webText.join('')).toBe('web heard: page at tides.example');

    // The answers flow up as tool results naming the sessions that produced them, and those sessions are in the store.
    expect(snapshot.status).toBe('settled');
    const result = finishedOf(events, 'research').result as AgentToolResult;
    expect(result.sessionId).toBe(researchSession);
    expect(JSON.parse(String(result.answer).replace(/^research heard: /, '')).sessionId).toBe(webSession);
    const webGraph = await store.loadSession(webSession);
    expect(webGraph.pathTo(webGraph.leaf!)[0]).toEqual({
      role: 'user',
      blocks: [{ kind: 'text', text: 'Find the tides, please, please' }],
    });
    expect(ran).toEqual(['fetch tides.example']);
    await lead.close();
  });

  it('asks for approval two levels down on the top agent, and continues every sub-agent where it waited once approved', async () => {
    model = await startTreeModel({ lead: ask('research'), research: ask('web'), web: () => [{ name: 'pay', input: { usd: 2 } }] });
    const lead = tree([pay]);
    const first = await lead.submit('Buy the tide table');

    expect(first.status).toBe('waiting');
    expect(ran).toEqual([]);
    const [approval] = lead.pendingApprovals();
    expect(first.pendingApprovals).toEqual([approval]);
    expect(approval).toMatchObject({ name: 'pay', input: { usd: 2 }, path: ['research', 'web'] });
    const [leadCall, researchCall, payCall] = approval.approvalId.split('/');
    expect(approval.callId).toBe(payCall);
    expect(leadCall).toMatch(/^toolu_/);
    expect(researchCall).toMatch(/^toolu_/);
    // A new prompt waits for the decision, as it does for the agent's own calls.
    await expect(lead.submit('Anything else?')).rejects.toMatchObject({ kind: 'approvals_pending' });

    const events: RunEvent[] = [];
    const run = lead.approve(approval.approvalId);
    for await (const event of run) events.push(event);
    const done = await run;
    expect(done.status).toBe('settled');
    expect(ran).toEqual(['pay 2']);
    expect(structural(events)).toEqual([
      '. run_started',
      '. tool_started research',
      'research run_started',
      'research tool_started web',
      'research/web run_started',
      'research/web tool_started pay',
      'research/web tool_finished pay',
      'research/web settled',
      'research tool_finished web',
      'research settled',
      '. tool_finished research',
      '. settled',
    ]);
    // Every agent was asked once per step: the sub-agents were picked up, not started over.
    expect(model.of('lead').map((r) => r.messages)).toEqual([1, 3]);
    expect(model.of('research').map((r) => r.messages)).toEqual([1, 3]);
    expect(model.of('web').map((r) => r.messages)).toEqual([1, 3]);
    expect(done.text).toContain('paid 2');
    await lead.close();
  });

  it('still lists the approval with its path after a restart, and a rejection there reaches the sub-agent', async () => {
    model = await startTreeModel({ lead: ask('research'), research: ask('web'), web: () => [{ name: 'pay', input: { usd: 9 } }] });
    const before = tree([pay]);
    const waiting = await before.submit('Buy the expensive table');
    await before.close();

    // A new process: nothing of the first agent is left but the files.
    const after = tree([pay]);
    const opened = await after.resume('lead');
    expect(opened.status).toBe('waiting');
    expect(opened.pendingApprovals).toEqual(waiting.pendingApprovals);
    expect(after.pendingApprovals()).toEqual(waiting.pendingApprovals);
    const done = await after.reject(waiting.pendingApprovals[0].approvalId, 'too dear');

    expect(done.status).toBe('settled');
    expect(ran).toEqual([]);
    const webSaw = model.of('web').at(-1)!.body.messages.at(-1).content[0];
    expect(webSaw).toMatchObject({ type: 'tool_result', is_error: true, content: 'The user rejected this tool call. Reason: too dear' });
    expect(model.of('web').map((r) => r.messages)).toEqual([1, 3]);
    await after.close();
  });

  it('runs the sub-agent calls of one step side by side, at most `concurrency` at once', async () => {
    const released: Array<() => void> = [];
    let holding = 0;
    let most = 0;
    const hold: ToolDefinition = {
      name: 'hold',
      description: 'Waits until the test lets it go.',
      inputSchema: { type: 'object' },
      execute: () =>
        new Promise<string>((resolve) => {
          most = Math.max(most, ++holding);
          released.push(() => {
            holding--;
            resolve('let go');
          });
        }),
    };
    model = await startTreeModel({
      lead: () => ['a', 'b', 'c'].map((topic) => ({ name: 'research', input: { prompt: topic } })),
      research: () => [{ name: 'hold', input: {} }],
    });
    const research = agentTool(
      { model: MODEL, system: systemOf('research'), tools: [hold] },
      { name: 'research', description: 'R.', concurrency: 2 },
    );
    const lead = createAgent({ model: MODEL, system: systemOf('lead'), tools: [research] }, { client: model.server.client(), store });
    const started: string[] = [];
    const waiters: Array<{ count: number; resolve: () => void }> = [];
    lead.subscribe((e) => {
      if (e.kind === 'nested' && e.event.kind === 'tool_started') started.push(e.calls[0]);
      for (const waiter of waiters) if (started.length >= waiter.count) waiter.resolve();
    });
    const holdsStarted = (count: number) => new Promise<void>((resolve) => waiters.push({ count, resolve }));
    const run = lead.submit('Research a, b and c');
    await holdsStarted(2);
    // Two sub-agents hold their tool; the third waits for a slot, so it has not even asked its model.
    expect(holding).toBe(2);
    expect(model.of('research')).toHaveLength(2);
    released.shift()!();
    await holdsStarted(3);
    expect(holding).toBe(2);
    while (released.length > 0) released.shift()!();
    const done = await run;
    expect(done.status).toBe('settled');
    expect(most).toBe(2);
    expect(new Set(started).size).toBe(3);
    expect(done.text.match(/let go/g)).toHaveLength(3);
    await lead.close();
  });

  it("makes a sub-agent's failure its call's error result, naming the session, and the calling model decides", async () => {
    model = await startTreeModel(
      { lead: ask('research'), research: ask('web') },
      {
        override: (r) =>
          r.agent === 'web' ? reply.httpError(400, { message: 'bad request for web', headers: { 'x-should-retry': 'false' } }) : undefined,
      },
    );
    const lead = tree([fetchPage]);
    const done = await lead.submit('Find the tides');
    expect(done.status).toBe('settled');
    const researchSaw = model.of('research').at(-1)!.body.messages.at(-1).content[0];
    expect(researchSaw.is_error).toBe(true);
    expect(researchSaw.content).toMatch(
      /^The web agent stopped \(model_error\): .*bad request for web.* Its session: lead\.toolu_[\w]+\.toolu_[\w]+\.$/s,
    );
    await lead.close();
  });

  it("hands back a sub-agent's structured output as its answer", async () => {
    model = await startTreeModel({ lead: ask('forecast') });
    model.server.respond((body) => {
      const system = JSON.stringify(body.system);
      if (system.includes('forecast')) return reply.text('{"city":"Pune","celsius":31}');
      const last = body.messages.at(-1);
      if (Array.isArray(last.content) && last.content[0]?.type === 'tool_result')
        return reply.text(`lead heard ${last.content[0].content}`);
      return reply.tools([{ name: 'forecast', input: { prompt: 'Pune' } }]);
    });
    const forecast = agentTool(
      { model: MODEL, system: systemOf('forecast') },
      { name: 'forecast', description: 'Forecasts.', output: z.object({ city: z.string(), celsius: z.number() }) },
    );
    const lead = createAgent({ model: MODEL, system: systemOf('lead'), tools: [forecast] }, { client: model.server.client(), store });
    const events: RunEvent[] = [];
    const run = lead.submit('Weather in Pune?');
    for await (const e of run) events.push(e);
    const finished = events.find((e) => e.kind === 'tool_finished') as Extract<RunEvent, { kind: 'tool_finished' }>;
    expect((finished.result as { answer: unknown }).answer).toEqual({ city: 'Pune', celsius: 31 });
    // The sub-agent was asked for JSON of that shape.
    expect(model.server.requests[1].body.output_config.format.schema.required).toEqual(['city', 'celsius']);
    await lead.close();
  });
});

function finishedOf(events: RunEvent[], name: string): Extract<RunEvent, { kind: 'tool_finished' }> {
  return events.find((e) => e.kind === 'tool_finished' && e.name === name) as Extract<RunEvent, { kind: 'tool_finished' }>;
}
