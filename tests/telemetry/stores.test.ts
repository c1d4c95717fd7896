// Spans of the session store (a resume reads back what the runs wrote, records and bytes) and of the
// memory store (the conventions' memory operations), nested under the run that used them.
import { SpanStatusCode } from '@opentelemetry/api';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createContextManager, memorySource, SessionStore } from '../../src/index.js';
import { createConductor } from '../../src/runtime/agent/index.js';
import type { ModelInvoker, ToolDefinition } from '../../src/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import type { MemoryStore } from '../../src/memory/index.js';
import { createTelemetry, TelemetryOptionsError } from '../../src/telemetry/index.js';
import { memoryStoreContract } from '../memory/store-contract.js';
import { workingMemoryContract } from '../memory/working-contract.js';
import { openSqliteMemoryStore } from '../../src/memory-sqlite/index.js';
import { workingMemory } from '../../src/context/index.js';
import { startOtel, type Otel } from './otel-sdk.js';

let otel: Otel;
beforeAll(() => void (otel = startOtel()));
afterAll(() => otel.shutdown());
beforeEach(() => otel.reset());

let root: string;
beforeEach(async () => void (root = await mkdtemp(join(tmpdir(), 'indusagi-telemetry-'))));
afterEach(() => rm(root, { recursive: true, force: true }));

const answer: ModelInvoker = async () => ({
  turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'noted' }] },
  stopReason: 'end_turn',
});
const named = (name: string) => otel.spans().filter((span) => span.name === name);

describe('the session store, traced', () => {
  it('names the session and counts the records and bytes each append wrote and a resume read back', async () => {
    const telemetry = createTelemetry();
    const writer = createConductor({ model: 'm', sessionId: 'kept' }, { invokeModel: answer, store: new SessionStore(root), telemetry });
    await writer.submit('one');
    await writer.submit('two');
    await writer.close();
    const written = named('indusagi.session.append');
    expect(written.length).toBeGreaterThanOrEqual(2);
    const records = written.reduce((sum, span) => sum + (span.attributes['indusagi.session.records'] as number), 0);
    const bytes = written.reduce((sum, span) => sum + (span.attributes['indusagi.session.bytes'] as number), 0);
    for (const span of written) expect(span.attributes['gen_ai.conversation.id']).toBe('kept');

    otel.reset();
    const reader = createConductor({ model: 'm' }, { invokeModel: answer, store: new SessionStore(root), telemetry });
    const resumed = await reader.resume('kept');
    await reader.close();

    expect(resumed.messages).toHaveLength(4);
    const [acquired] = named('indusagi.session.acquire');
    expect(acquired.parentSpanContext).toBeUndefined();
    expect(acquired.attributes).toEqual({ 'gen_ai.conversation.id': 'kept' });
    // The resume reads the whole of this small file (it has no checkpoint yet): every record it holds.
    const [read] = named('indusagi.session.read');
    expect(read.attributes).toEqual({
      'gen_ai.conversation.id': 'kept',
      'indusagi.session.records': records,
      'indusagi.session.bytes': bytes,
      'indusagi.session.lines': records,
      'indusagi.session.skipped_lines': 0,
      'indusagi.session.truncated_tail': false,
      'indusagi.session.live_path': false,
    });
    expect(named('indusagi.session.release')).toHaveLength(1);
  });

  it('fails the span of an operation the store refused, with the store’s error', async () => {
    const telemetry = createTelemetry();
    const first = createConductor({ model: 'm', sessionId: 'locked' }, { invokeModel: answer, store: new SessionStore(root), telemetry });
    await first.submit('hold the lock');
    const second = createConductor({ model: 'm' }, { invokeModel: answer, store: new SessionStore(root), telemetry });
    await expect(second.resume('locked')).rejects.toMatchObject({ name: 'SessionLockedError' });
    await first.close();
    const refused = named('indusagi.session.acquire').find((span) => span.status.code === SpanStatusCode.ERROR)!;
    expect(refused.attributes).toMatchObject({ 'gen_ai.conversation.id': 'locked', 'error.type': 'SessionLockedError' });
    // Content capture is off: the status names the error, not the lock file's path or the process holding it.
    expect(refused.status.message).toMatch(/^SessionLockedError \(\w+\)$/);
  });
});

describe('a memory store, traced', () => {
  it('makes create_memory, search_memory and delete_memory spans under the run that used it', async () => {
    const telemetry = createTelemetry({ agentName: 'rememberer' });
    const memory = telemetry.memoryStore(createMemoryStore(), { id: 'notes' });
    const saved = await memory.save('The build runs on Fridays.');
    const remember: ToolDefinition = {
      name: 'memory.remember',
      description: 'Saves a fact.',
      inputSchema: { type: 'object' },
      execute: async (input: { fact: string }) => (await memory.save(input.fact)).id,
    };
    let step = 0;
    const invoke: ModelInvoker = async () =>
      step++ === 0
        ? {
            turn: {
              role: 'assistant',
              blocks: [{ kind: 'tool_call', id: 'm1', name: 'memory_remember', input: { fact: 'Deploys need approval.' } }],
            },
            stopReason: 'tool_use',
          }
        : { turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'Saved.' }] }, stopReason: 'end_turn' };
    const agent = createConductor(
      {
        model: 'm',
        tools: [remember],
        context: createContextManager({
          budget: { maxTokens: 50_000, count: (t: string) => Math.ceil(t.length / 4) },
          sources: [memorySource(memory)],
        }),
      },
      { invokeModel: invoke, telemetry },
    );
    await agent.submit('When does the build run?');
    expect(await memory.forget(saved.id)).toBe(true);

    const [run] = named('invoke_agent rememberer');
    const [outside, inTool] = named('create_memory');
    expect(outside.parentSpanContext).toBeUndefined();
    expect(outside.attributes).toEqual({
      'gen_ai.operation.name': 'create_memory',
      'gen_ai.memory.store.id': 'notes',
      'gen_ai.memory.record.count': 1,
      'gen_ai.memory.record.id': saved.id,
    });
    const [toolSpan] = named('execute_tool memory.remember');
    expect(inTool.parentSpanContext?.spanId).toBe(toolSpan.spanContext().spanId);
    const [recall] = named('search_memory');
    expect(recall.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    expect(recall.attributes).toEqual({
      'gen_ai.operation.name': 'search_memory',
      'gen_ai.memory.store.id': 'notes',
      'gen_ai.memory.record.count': 1,
    });
    const [forget] = named('delete_memory');
    expect(forget.attributes).toEqual({
      'gen_ai.operation.name': 'delete_memory',
      'gen_ai.memory.store.id': 'notes',
      'gen_ai.memory.record.id': saved.id,
      'gen_ai.memory.record.count': 1,
      'indusagi.memory.forgotten': true,
    });
  });

  it('records the query and the records only with captureContent', async () => {
    const memory = createTelemetry({ captureContent: true }).memoryStore(createMemoryStore());
    const record = await memory.save('Fridays are for builds.', { kind: 'fact' });
    await memory.search('builds');
    const [search] = named('search_memory');
    expect(search.attributes['gen_ai.memory.query.text']).toBe('builds');
    expect(JSON.parse(search.attributes['gen_ai.memory.records'] as string)).toEqual([
      { id: record.id, content: 'Fridays are for builds.', score: expect.any(Number) },
    ]);
  });

  it('refuses what is not a memory store', () => {
    expect(() => createTelemetry().memoryStore({} as MemoryStore)).toThrow(TelemetryOptionsError);
  });
});

// A traced store is the store: the whole contract (scopes on every member, supersede, edit, ranking)
// holds through the decorator, or an application that turns tracing on would change what users see.
memoryStoreContract('createTelemetry().memoryStore(createMemoryStore())', async () =>
  createTelemetry({ captureContent: true }).memoryStore(createMemoryStore()),
);

describe('the memory store, traced, edited', () => {
  it('names an edit update_memory with the record id, and keeps the owner on every call', async () => {
    const memory = createTelemetry().memoryStore(createMemoryStore());
    const mine = await memory.save('Prefers tea', { scope: { resource: 'ana' } });
    expect(await memory.update(mine.id, { text: 'Prefers coffee' }, { scope: { resource: 'bo' } })).toBeUndefined();
    expect(await memory.forget(mine.id, { scope: { resource: 'bo' } })).toBe(false);
    expect(await memory.get(mine.id, { scope: { resource: 'bo' } })).toBeUndefined();
    expect((await memory.update(mine.id, { text: 'Prefers coffee' }, { scope: { resource: 'ana' } }))?.text).toBe('Prefers coffee');
    const updates = named('update_memory');
    expect(updates.map((span) => [span.attributes['gen_ai.memory.record.id'], span.attributes['gen_ai.memory.record.count']])).toEqual([
      [mine.id, 0],
      [mine.id, 1],
    ]);
  });
});

// Working memory through the decorator: a traced store keeps every block rule of the store it wraps.
workingMemoryContract('createTelemetry().memoryStore(createMemoryStore())', async () => {
  const store = createTelemetry().memoryStore(createMemoryStore());
  return { store, peer: store };
});

describe('the memory store, traced, keeps what the store has beyond MemoryStore', () => {
  it('traces working memory as search, update and delete spans marked working, with the version reached', async () => {
    const memory = createTelemetry({ captureContent: true }).memoryStore(createMemoryStore(), { id: 'blocks' });
    const ana = { resource: 'ana' };
    expect(await memory.getWorking(ana)).toBeUndefined();
    await memory.setWorking(ana, { city: 'Lisbon' }, { expectedVersion: 0 });
    expect(await memory.getWorking(ana)).toEqual({ content: { city: 'Lisbon' }, version: 1 });
    expect(await memory.forgetWorking(ana)).toBe(true);
    const working = otel.spans().filter((span) => span.attributes['indusagi.memory.working'] === true);
    expect(
      working.map((span) => [span.name, span.attributes['gen_ai.memory.record.count'], span.attributes['indusagi.memory.working.version']]),
    ).toEqual([
      ['search_memory', 0, undefined],
      ['update_memory', 1, 1],
      ['search_memory', 1, 1],
      ['delete_memory', undefined, undefined],
    ]);
    expect(working.every((span) => span.attributes['gen_ai.memory.store.id'] === 'blocks')).toBe(true);
    expect(JSON.parse(working[1].attributes['gen_ai.memory.records'] as string)).toEqual([{ content: { city: 'Lisbon' } }]);
    expect(working[3].attributes['indusagi.memory.forgotten']).toBe(true);
  });

  it('lets workingMemory (which needs getWorking and setWorking) take a traced store', async () => {
    const memory = createTelemetry().memoryStore(createMemoryStore());
    expect(() => workingMemory(memory, { scope: { resource: 'ana' } })).not.toThrow();
  });

  it("passes a SQLite store's path and close through, and a closed store stays closed through it", async () => {
    const path = join(root, 'memory.db');
    const store = await openSqliteMemoryStore(path);
    const memory = createTelemetry().memoryStore(store);
    expect(memory.path).toBe(path);
    await memory.save('The build runs on Fridays.');
    memory.close();
    await expect(store.search('build')).rejects.toThrow(/closed/);
  });

  it('leaves out what the store does not have', () => {
    const bare: MemoryStore = {
      save: async () => ({ id: 'x', text: 'x', createdAt: 0 }),
      search: async () => [],
      forget: async () => false,
    };
    const memory = createTelemetry().memoryStore(bare) as MemoryStore & Record<string, unknown>;
    expect(['getWorking', 'setWorking', 'forgetWorking', 'all', 'get', 'list', 'update'].filter((name) => name in memory)).toEqual([]);
  });
});
