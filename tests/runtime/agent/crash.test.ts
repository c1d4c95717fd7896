// Crash-consistent runs: every settled step is durable as it settles, and a session a crash cut off
// can always be picked up. Real processes killed with SIGKILL, real session files.
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFixture, startLines, type LineChild } from '../../support/child-process.js';
import { createConductor, INTERRUPTED_RESULT, SessionStore } from '../../../src/runtime/index.js';
import { UnknownApprovalError } from '../../../src/entries/errors.js';
import type { ModelInvoker, ModelRequest, SessionGraph, SessionStoreLike, ToolDefinition, Turn } from '../../../src/runtime/index.js';

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-crash-'));
  // Bundled once, so each of the many children starts in tens of milliseconds, not a TypeScript compile.
  bundle = await bundleFixture(new URL('./fixtures/crash-process.ts', import.meta.url), dir);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

type Child = LineChild;

const start = (args: Record<string, unknown>): Child => startLines(bundle, args, { stdin: 'pipe' });

async function kill(child: Child): Promise<void> {
  child.process.kill('SIGKILL');
  await child.exited;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls and results along the session's whole live path (condensed turns included), and the calls still open at its end. */
function callsOf(graph: SessionGraph): { calls: Set<string>; answered: Set<string>; open: Set<string> } {
  const calls = new Set<string>();
  const answered = new Set<string>();
  const path = graph.leaf === null ? [] : graph.nodesTo(graph.leaf);
  for (const node of path) {
    for (const block of node.turn.blocks) {
      if (block.kind === 'tool_call') calls.add(block.id);
      if (block.kind === 'tool_result') answered.add(block.callId);
    }
  }
  const lastReply = path.findLast((node) => node.turn.role === 'assistant');
  const open = new Set<string>();
  for (const block of lastReply?.turn.blocks ?? []) if (block.kind === 'tool_call' && !answered.has(block.id)) open.add(block.id);
  return { calls, answered, open };
}

function markers(file: string): Array<{ tool: string; id: string }> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [tool, id] = line.split(' ');
      return { tool, id };
    });
}

function countsOf(marks: Array<{ tool: string; id: string }>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { id } of marks) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

/** A model at the seam that records what it is asked and answers with text, checking every call in the request has a result. */
function finishingModel() {
  const requests: ModelRequest[] = [];
  const unanswered: string[] = [];
  const invoke: ModelInvoker = async (request) => {
    requests.push(request);
    const answered = new Set(request.messages.flatMap((t) => t.blocks.flatMap((b) => (b.kind === 'tool_result' ? [b.callId] : []))));
    for (const turn of request.messages)
      for (const b of turn.blocks) if (b.kind === 'tool_call' && !answered.has(b.id)) unanswered.push(b.id);
    const text = request.cacheable === false ? 'Goal: count. Progress: steady.' : 'Picked up.';
    return { turn: { role: 'assistant', blocks: [{ kind: 'text', text }] }, stopReason: 'end_turn' };
  };
  return { invoke, requests, unanswered };
}

/** The crash fixture's tools, run in this process: each run is recorded. */
function localTools(runs: string[]): ToolDefinition[] {
  return [
    {
      name: 'counter.bump',
      description: 'Adds one.',
      inputSchema: { type: 'object' },
      execute: (_i, ctx) => (runs.push(`bump ${ctx.callId}`), 'bumped'),
    },
    {
      name: 'ledger.read',
      description: 'Reads.',
      inputSchema: { type: 'object' },
      idempotent: true,
      execute: (_i, ctx) => (runs.push(`read ${ctx.callId}`), 'read'),
    },
    {
      name: 'pay.invoice',
      description: 'Pays.',
      inputSchema: { type: 'object' },
      needsApproval: true,
      execute: (_i, ctx) => (runs.push(`pay ${ctx.callId}`), 'paid'),
    },
  ];
}

const agentConfig = { model: 'crash-test', contextWindow: 6_000, maxOutputTokens: 500, compaction: { keepRecent: 6 } };

describe('a tool loop killed at random moments', () => {
  it('keeps every tool execution but the step in flight, never repeats a call silently, and always leaves a history the model can take', async () => {
    const base = {
      storeDir: join(dir, 'loop-sessions'),
      sessionId: 'loop',
      markerFile: join(dir, 'loop-markers.log'),
      violationsFile: join(dir, 'loop-violations.log'),
      mode: 'loop',
    };
    const store = new SessionStore(base.storeDir);
    const KILLS = 100;
    let inFlight = 0;
    for (let i = 0; i < KILLS; i++) {
      const child = start(base);
      // Mostly inside a run; one kill in six while the process starts, resumes and continues.
      if (Math.random() < 5 / 6) await child.waitFor(/^opened /).catch(() => undefined);
      await sleep(Math.floor(Math.random() * 150));
      await kill(child);

      const { calls, answered, open } = callsOf(await store.loadSession(base.sessionId));
      if (open.size > 0) inFlight++;
      const marks = markers(base.markerFile);
      for (const { id } of marks) {
        expect(calls.has(id), `kill ${i}: ${id} ran but its call is not in the session`).toBe(true);
        expect(answered.has(id) || open.has(id), `kill ${i}: ${id} ran, has no result, and is not in the step in flight`).toBe(true);
      }
      for (const [id, count] of countsOf(marks)) {
        const tool = marks.find((m) => m.id === id)!.tool;
        expect(count, `kill ${i}: ${tool} ${id} ran ${count} times`).toBeLessThanOrEqual(tool === 'read' ? 2 : 1);
      }
    }
    expect(existsSync(base.violationsFile) ? readFileSync(base.violationsFile, 'utf8') : '').toBe('');
    // The kills did land mid-step, with calls cut off, many times.
    expect(inFlight).toBeGreaterThan(KILLS / 10);

    // Picked up one last time, in this process: every call that ran now has its result.
    const runs: string[] = [];
    const model = finishingModel();
    const agent = createConductor({ ...agentConfig, tools: localTools(runs) }, { invokeModel: model.invoke, store });
    const opened = await agent.resume(base.sessionId);
    if (opened.status === 'interrupted') await agent.continue();
    await agent.close();
    expect(model.unanswered).toEqual([]);
    const { answered } = callsOf(await store.loadSession(base.sessionId));
    const all = markers(base.markerFile);
    for (const { id } of all) expect(answered.has(id)).toBe(true);
    for (const run of runs) expect(run.startsWith('read ')).toBe(true);
    const bumps = all.filter((m) => m.tool === 'bump');
    expect(new Set(bumps.map((m) => m.id)).size).toBe(bumps.length);
  }, 300_000);
});

describe('an approved call cut off while it ran', () => {
  // Checkpoints every persist: the start is followed by a checkpoint carrying its count, and the resume
  // reads the end of the file only (a load from the end must count the start as a whole read does).
  it.each([
    ['a whole read', undefined, 'file'],
    ['a resume from the last checkpoint', 1, 'tail'],
  ])(
    'is never offered for approval again: the model hears it may have run, and it is not paid twice (%s)',
    async (name, checkpointBytes, scope) => {
      const slug = checkpointBytes === undefined ? 'pay' : 'pay-checkpointed';
      const base = {
        storeDir: join(dir, `${slug}-sessions`),
        sessionId: 'pay',
        markerFile: join(dir, `${slug}-markers.log`),
        violationsFile: join(dir, `${slug}-violations.log`),
        mode: 'approval',
        checkpointBytes,
      };
      const child = start(base);
      await child.waitFor(/^waiting$/);
      child.process.stdin!.write('approve\n');
      await child.waitFor(/^paying$/);
      await kill(child);
      const paid = markers(base.markerFile);
      expect(paid.map((m) => m.tool)).toEqual(['pay']);

      const runs: string[] = [];
      const model = finishingModel();
      const agent = createConductor(
        { ...agentConfig, tools: localTools(runs) },
        { invokeModel: model.invoke, store: new SessionStore(base.storeDir, [], { checkpointBytes: checkpointBytes ?? 1 }) },
      );
      const scopes: unknown[] = [];
      agent.subscribe((event) => {
        if (event.kind === 'session_opened') scopes.push((event.report as { scope?: string }).scope);
      });
      const opened = await agent.resume('pay');
      expect(scopes, name).toEqual([scope]);

      expect(opened.status).toBe('interrupted');
      expect(opened.pendingApprovals).toEqual([]);
      expect(agent.pendingApprovals()).toEqual([]);
      expect(opened.interrupted).toEqual([{ callId: paid[0].id, name: 'pay.invoice', input: { invoice: 'INV-7' }, rerun: false }]);
      await expect(agent.approve(paid[0].id)).rejects.toSatisfy(UnknownApprovalError.isInstance);

      const after = await agent.continue();
      expect(after.status).toBe('settled');
      const results = model.requests[0].messages.flatMap((t) => t.blocks).filter((b) => b.kind === 'tool_result');
      expect(results).toEqual([{ kind: 'tool_result', callId: paid[0].id, content: INTERRUPTED_RESULT, isError: true }]);
      expect(runs).toEqual([]);
      await agent.close();
      expect(markers(base.markerFile)).toHaveLength(1);
    },
  );

  it('still waits for approval when the process died while waiting, and runs once approved', async () => {
    const base = {
      storeDir: join(dir, 'wait-sessions'),
      sessionId: 'wait',
      markerFile: join(dir, 'wait-markers.log'),
      violationsFile: join(dir, 'wait-violations.log'),
      mode: 'approval',
    };
    const child = start(base);
    await child.waitFor(/^waiting$/);
    await kill(child);

    const runs: string[] = [];
    const model = finishingModel();
    const agent = createConductor(
      { ...agentConfig, tools: localTools(runs) },
      { invokeModel: model.invoke, store: new SessionStore(base.storeDir) },
    );
    const opened = await agent.resume('wait');
    expect(opened.status).toBe('waiting');
    expect(opened.pendingApprovals.map((p) => p.name)).toEqual(['pay.invoice']);
    await agent.approve(opened.pendingApprovals[0].approvalId);
    expect(runs).toEqual([`pay ${opened.pendingApprovals[0].callId}`]);
    expect(markers(base.markerFile)).toEqual([]);
    await agent.close();
  });
});

describe('killed while condensing', () => {
  it('loses only the summary in flight: the session resumes as it was, and condenses on the next try', async () => {
    const base = {
      storeDir: join(dir, 'condense-sessions'),
      sessionId: 'condense',
      markerFile: join(dir, 'c-markers.log'),
      violationsFile: join(dir, 'c-violations.log'),
      mode: 'condense',
      steps: 0,
    };
    const child = start(base);
    await child.waitFor(/^summarizing$/);
    await kill(child);

    const model = finishingModel();
    const agent = createConductor(
      { ...agentConfig, tools: localTools([]) },
      { invokeModel: model.invoke, store: new SessionStore(base.storeDir) },
    );
    const opened = await agent.resume('condense');
    expect(opened.status).toBe('settled');
    expect(opened.messages).toHaveLength(16);
    const condensed = await agent.condense();
    expect(condensed.compacted?.removed).toBe(10);
    await agent.close();
  });
});

describe('killed inside a persist', () => {
  it('at every byte of the last step, the next run answers every open call, re-runs only idempotent ones, and puts results before a new prompt', async () => {
    const root = join(dir, 'torn');
    const store = new SessionStore(join(root, 'sessions'));
    const sizes: number[] = [];
    const file = join(root, 'sessions', 't.jsonl');
    const measured: SessionStoreLike = {
      acquire: (id) => store.acquire(id),
      read: (id) => store.read(id),
      readLivePath: (id) => store.readLivePath(id),
      append: async (lease, records) => {
        const written = await store.append(lease, records);
        sizes.push((await stat(file)).size);
        return written;
      },
      release: (lease) => store.release(lease),
    };
    const script: Turn['blocks'][] = [
      [
        { kind: 'tool_call', id: 'r1', name: 'ledger_read', input: {} },
        { kind: 'tool_call', id: 'b1', name: 'counter_bump', input: {} },
      ],
      [{ kind: 'text', text: 'Done.' }],
    ];
    const first = createConductor(
      { ...agentConfig, tools: localTools([]), sessionId: 't' },
      { store: measured, invokeModel: async () => ({ turn: { role: 'assistant', blocks: script.shift()! }, stopReason: 'end_turn' }) },
    );
    await first.submit('count');
    await first.close();
    // Appends: the prompt, the reply with its calls, their results, the answer. The last step is the results and the answer.
    expect(sizes).toHaveLength(4);
    const whole = await readFile(file);
    const from = sizes[1];

    for (let cut = from; cut <= whole.length; cut++) {
      const copy = join(root, `cut-${cut}`);
      await mkdir(copy, { recursive: true });
      await copyFile(file, join(copy, 't.jsonl'));
      await truncate(join(copy, 't.jsonl'), cut);
      const runs: string[] = [];
      const model = finishingModel();
      const agent = createConductor(
        { ...agentConfig, tools: localTools(runs) },
        { invokeModel: model.invoke, store: new SessionStore(copy) },
      );
      const opened = await agent.resume('t');
      const resultsLost = !opened.messages.some((t) => t.blocks.some((b) => b.kind === 'tool_result'));
      await agent.submit('and now?');
      await agent.close();

      expect(model.unanswered, `cut at ${cut}`).toEqual([]);
      expect(runs, `cut at ${cut}`).toEqual(resultsLost ? ['read r1'] : []);
      const sent = model.requests.at(-1)!.messages;
      if (resultsLost) {
        expect(opened.status).toBe('interrupted');
        expect(sent.slice(-3).map((t) => `${t.role}:${t.blocks.map((b) => b.kind).join('+')}`)).toEqual([
          'assistant:tool_call+tool_call',
          'user:tool_result+tool_result',
          'user:text',
        ]);
        const bump = sent.at(-2)!.blocks.find((b) => b.kind === 'tool_result' && b.callId === 'b1');
        expect(bump).toMatchObject({ content: INTERRUPTED_RESULT, isError: true });
      }
      await rm(copy, { recursive: true, force: true });
    }
  }, 300_000);
});
