// workingMemory end to end through the conductor, the model scripted at the ModelInvoker seam: the
// block in every turn's system prompt with its version, the model's updates through the tool (patches
// and whole replacements), the refusals it gets back as tool errors, and the block kept in a SQLite
// file across a reopen.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createContextManager, ContextInputError, workingMemory, WorkingMemoryUpdateError } from '../../src/context/index.js';
import type { WorkingMemoryOptions } from '../../src/context/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import type { WorkingMemoryStore } from '../../src/memory/index.js';
import { openSqliteMemoryStore } from '../../src/memory-sqlite/index.js';
import { createConductor } from '../../src/runtime/index.js';
import type { ModelRequest, RunEvent, ToolContext } from '../../src/runtime/index.js';
import type { ToolResultBlock } from '../../src/runtime/contract/turn.js';
import { call, say, scriptedModel, type Step } from '../runtime/agent/helpers.js';

const root = mkdtempSync(join(tmpdir(), 'indusagi-working-memory-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ana = { resource: 'ana' };

/** An agent whose context is the working memory block alone, and whose one tool is its update tool. */
function agentOver(store: WorkingMemoryStore, steps: Step[], options: Partial<WorkingMemoryOptions> = {}) {
  const memory = workingMemory(store, { scope: ana, ...options });
  const context = createContextManager({ budget: { maxTokens: 100_000, count: (t) => Math.ceil(t.length / 4) }, sources: [memory.source] });
  const model = scriptedModel(...steps);
  const agent = createConductor({ model: 'test', tools: [memory.tool], context }, { invokeModel: model.invoke });
  const events: RunEvent[] = [];
  agent.subscribe((event) => events.push(event));
  return { agent, model, events, memory };
}

/** The results the model was sent in a request's last message. */
const resultsIn = (request: ModelRequest): ToolResultBlock[] =>
  request.messages.at(-1)!.blocks.filter((b): b is ToolResultBlock => b.kind === 'tool_result');

const blockShown = (request: ModelRequest) => request.volatileSystem ?? '';

describe('workingMemory through the conductor', () => {
  it('shows the block every turn with its version; the model patches it in one turn and sees the patch the next', async () => {
    const store = createMemoryStore();
    const { agent, model, events } = agentOver(store, [
      call({ name: 'update_working_memory', id: 'c1', input: { patch: { name: 'Ana', units: 'metric' } } }),
      say('Noted.'),
      call({ name: 'update_working_memory', id: 'c2', input: { patch: { units: 'imperial', city: 'Lyon' } } }),
      say('Updated.'),
      say('You prefer imperial units.'),
    ]);
    await agent.submit('I am Ana and I use metric units.');
    await agent.submit('Actually imperial, and I moved to Lyon.');
    await agent.submit('Which units do I use?');

    const [t1, t1after, t2, t2after, t3] = model.requests;
    // The instructions are stable (cached); the block changes, so it is sent after them.
    expect(t1.system).toContain('Working memory "working_memory" is a small JSON block');
    expect(t1.system).toContain('update_working_memory');
    expect(blockShown(t1)).toBe('Working memory "working_memory" (version 0): empty.');
    expect(t1.tools?.map((t) => t.name)).toEqual(['update_working_memory']);
    expect(JSON.parse(resultsIn(t1after)[0].content)).toEqual({ version: 1, content: { name: 'Ana', units: 'metric' } });
    expect(blockShown(t2)).toBe('Working memory "working_memory" (version 1):\n{"name":"Ana","units":"metric"}');
    expect(resultsIn(t2after)[0].isError).toBeFalsy();
    expect(blockShown(t3)).toBe('Working memory "working_memory" (version 2):\n{"name":"Ana","units":"imperial","city":"Lyon"}');
    expect(await store.getWorking(ana)).toEqual({ content: { name: 'Ana', units: 'imperial', city: 'Lyon' }, version: 2 });
    expect(events.filter((e) => e.kind === 'context').map((e) => `${e.source}:${e.op}`)).toEqual([
      'working_memory:recalled',
      'working_memory:recalled',
      'working_memory:recalled',
    ]);
  });

  it('replaces the whole block at the version shown; a stale version comes back as a conflict error with the block as it is now', async () => {
    const store = createMemoryStore();
    await store.setWorking(ana, { todo: ['call the bank'] }, { expectedVersion: 0 });
    const { agent, model } = agentOver(store, [
      // Another writer (a second session of Ana's) moves the block on before the model's replace lands.
      async () => {
        await store.setWorking(ana, { todo: ['call the bank', 'pay rent'] }, { expectedVersion: 1 });
        return call({ name: 'update_working_memory', id: 'c1', input: { content: { todo: [] }, version: 1 } });
      },
      call({ name: 'update_working_memory', id: 'c2', input: { content: { todo: ['pay rent'] }, version: 2 } }),
      say('Done.'),
    ]);
    await agent.submit('I called the bank.');
    const [shown, afterConflict, afterReplace] = model.requests;
    expect(blockShown(shown)).toContain('(version 1):\n{"todo":["call the bank"]}');
    const [conflict] = resultsIn(afterConflict);
    expect(conflict.isError).toBe(true);
    expect(conflict.content).toContain('changed since version 1 was shown');
    expect(conflict.content).toContain('at version 2 and holds {"todo":["call the bank","pay rent"]}');
    expect(JSON.parse(resultsIn(afterReplace)[0].content)).toEqual({ version: 3, content: { todo: ['pay rent'] } });
    expect(await store.getWorking(ana)).toEqual({ content: { todo: ['pay rent'] }, version: 3 });
  });

  it('tells the model why content was refused (schema, maxChars, malformed calls) as tool errors; the run goes on and nothing is written', async () => {
    const store = createMemoryStore();
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, units: { enum: ['metric', 'imperial'] } },
      additionalProperties: false,
    };
    const { agent, model } = agentOver(
      store,
      [
        call(
          { name: 'update_working_memory', id: 'schema', input: { patch: { units: 'furlongs' } } },
          { name: 'update_working_memory', id: 'long', input: { patch: { name: 'A'.repeat(80) } } },
          { name: 'update_working_memory', id: 'both', input: { patch: { name: 'Ana' }, content: {}, version: 0 } },
          { name: 'update_working_memory', id: 'noversion', input: { content: { name: 'Ana' } } },
          { name: 'update_working_memory', id: 'nul', input: { patch: { name: 'A\u0000na' } } },
        ),
        call({ name: 'update_working_memory', id: 'ok', input: { patch: { name: 'Ana', units: 'metric' } } }),
        say('Saved.'),
      ],
      { schema, maxChars: 60 },
    );
    await agent.submit('I am Ana.');
    expect(model.requests[0].system).toContain(`Its content must match this JSON Schema: ${JSON.stringify(schema)}`);
    expect(model.requests[0].system).toContain('at most 60 characters of JSON');
    const results = new Map(resultsIn(model.requests[1]).map((r) => [r.callId, r]));
    for (const r of results.values()) expect(r.isError, r.callId).toBe(true);
    expect(results.get('schema')!.content).toMatch(/would not match its schema[\s\S]*- \/units: /);
    expect(results.get('long')!.content).toContain('would be 91 characters of JSON; it holds at most 60');
    expect(results.get('both')!.content).toContain('Send either { "patch": ... }');
    expect(results.get('noversion')!.content).toContain('needs the "version" shown with the block');
    expect(results.get('nul')!.content).toContain('NUL character');
    expect(JSON.parse(resultsIn(model.requests[2])[0].content)).toEqual({ version: 1, content: { name: 'Ana', units: 'metric' } });
    expect(await store.getWorking(ana)).toEqual({ content: { name: 'Ana', units: 'metric' }, version: 1 });
  });

  it('keeps the block in a SQLite file: an agent over the reopened store sees what the last one wrote', async () => {
    const path = join(root, 'working.db');
    const first = await openSqliteMemoryStore(path);
    const one = agentOver(first, [
      call({ name: 'update_working_memory', id: 'c1', input: { patch: { name: 'Ana', plan: { step: 1 } } } }),
      say('Noted.'),
      call({ name: 'update_working_memory', id: 'c2', input: { patch: { plan: { step: 2, done: [1] } } } }),
      say('Next step.'),
    ]);
    await one.agent.submit('Start the plan.');
    await one.agent.submit('Step one is done.');
    first.close();

    const reopened = await openSqliteMemoryStore(path);
    const two = agentOver(reopened, [say('You are on step 2.')]);
    await two.agent.submit('Where am I?');
    expect(blockShown(two.model.requests[0])).toBe(
      'Working memory "working_memory" (version 2):\n{"name":"Ana","plan":{"step":2,"done":[1]}}',
    );
    reopened.close();
  });
});

describe('the update_working_memory tool', () => {
  const ctx = { callId: 'direct' } as ToolContext;

  it('applies a JSON merge patch as RFC 7386 says (its appendix A examples)', async () => {
    // [target, patch, result]; a target of undefined is an empty block.
    const cases: Array<[unknown, unknown, unknown]> = [
      [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
      [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
      [{ a: 'b' }, { a: null }, {}],
      [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
      [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
      [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
      [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
      [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
      [
        ['a', 'b'],
        ['c', 'd'],
        ['c', 'd'],
      ],
      [{ a: 'b' }, ['c'], ['c']],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: 'b', c: null }, { a: 'b' }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
      [undefined, { a: 1 }, { a: 1 }],
      [{ a: 'b' }, 'text', 'text'],
    ];
    for (const [i, [target, patch, result]] of cases.entries()) {
      const store = createMemoryStore();
      const scope = { resource: `case-${i}` };
      if (target !== undefined) await store.setWorking(scope, target, { expectedVersion: 0 });
      const { tool } = workingMemory(store, { scope });
      expect(await tool.execute({ patch }, ctx), JSON.stringify([target, patch])).toEqual({
        version: target === undefined ? 1 : 2,
        content: result,
      });
      expect((await store.getWorking(scope))!.content).toEqual(result);
    }
  });

  it('keeps "__proto__" in a patch as data, never as the prototype', async () => {
    const store = createMemoryStore();
    const { tool } = workingMemory(store, { scope: ana });
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}');
    const written = (await tool.execute({ patch }, ctx)) as { content: Record<string, unknown> };
    expect(Object.getPrototypeOf(written.content)).toBe(Object.prototype);
    expect(Object.keys(written.content)).toEqual(['__proto__', 'ok']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('retries a patch when another writer got in between its read and its write, merging onto what that writer wrote', async () => {
    const real = createMemoryStore();
    await real.setWorking(ana, { name: 'Ana' }, { expectedVersion: 0 });
    let interleave = true;
    // The real store, with another session's write landing right after the tool's first read.
    const store: WorkingMemoryStore = {
      getWorking: async (scope) => {
        const read = await real.getWorking(scope);
        if (interleave) {
          interleave = false;
          await real.setWorking(scope, { name: 'Ana', city: 'Lyon' }, { expectedVersion: read!.version });
        }
        return read;
      },
      setWorking: (scope, content, opts) => real.setWorking(scope, content, opts),
      forgetWorking: (scope) => real.forgetWorking(scope),
    };
    const { tool } = workingMemory(store, { scope: ana });
    expect(await tool.execute({ patch: { units: 'metric' } }, ctx)).toEqual({
      version: 3,
      content: { name: 'Ana', city: 'Lyon', units: 'metric' },
    });
  });

  it('lets two blocks (a user’s and a thread’s) live side by side under their own names and tools', async () => {
    const store = createMemoryStore();
    const user = workingMemory(store, { scope: ana, name: 'user_profile' });
    const thread = workingMemory(store, { scope: { resource: 'ana', session: 't1' }, name: 'thread_task' });
    expect([user.tool.name, thread.tool.name, user.source.name, thread.source.name]).toEqual([
      'update_user_profile',
      'update_thread_task',
      'user_profile',
      'thread_task',
    ]);
    await user.tool.execute({ patch: { units: 'metric' } }, ctx);
    await thread.tool.execute({ content: { goal: 'book a flight' }, version: 0 }, ctx);
    const turn = { prompt: 'hi', messages: [] };
    const shown = async (source: typeof user.source) => (await source.select!(turn, { remaining: 1_000, count: (t) => t.length }))!.text;
    expect(await shown(user.source)).toBe('Working memory "user_profile" (version 1):\n{"units":"metric"}');
    expect(await shown(thread.source)).toBe('Working memory "thread_task" (version 1):\n{"goal":"book a flight"}');
  });

  it('refuses unusable options with ContextInputError and a schema that cannot work at once', async () => {
    const store = createMemoryStore();
    const bad: Array<() => unknown> = [
      () => workingMemory({} as never, { scope: ana }),
      () => workingMemory(store, undefined as never),
      () => workingMemory(store, {} as never),
      () => workingMemory(store, { scope: { resource: '' } }),
      () => workingMemory(store, { scope: ana, maxChars: 0 }),
      () => workingMemory(store, { scope: ana, maxChars: 1.5 }),
      () => workingMemory(store, { scope: ana, name: 'has space' }),
    ];
    for (const make of bad) expect(() => make()).toThrow(ContextInputError);
    expect(() => workingMemory(store, { scope: ana, schema: 'not a schema' as never })).toThrow(/schema/);
    const error = await Promise.resolve(workingMemory(store, { scope: ana }).tool.execute({}, ctx)).catch((e: unknown) => e);
    expect(WorkingMemoryUpdateError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: 'input' });
  });
});
