// An agent defined once and opened per conversation (`defineConductor`): what is resolved is resolved
// when it is defined (bad config refused there, tools compiled there, once), every conversation opened
// from it is its own (session, events, history), and `run` is one conversation, opened and closed.
import { describe, expect, it } from 'vitest';
import { AgentConfigError, MemorySessionStore, RunFault, createConductor, defineConductor } from '../../../src/runtime/index.js';
import type { ModelInvoker, ModelRequest, RunEvent, ToolDefinition } from '../../../src/runtime/index.js';
import { call, say } from './helpers.js';

/** The last user prompt's text of a request, or undefined when the request ends with tool results. */
function lastPrompt(request: ModelRequest): string | undefined {
  const last = request.messages.at(-1)!;
  const text = last.blocks.find((block) => block.kind === 'text');
  return last.role === 'user' && text?.kind === 'text' ? text.text : undefined;
}

/** A model that looks a prompt `look <word>` up with the `dict.look` tool, then answers with the tool's result. */
const lookingModel: ModelInvoker = async (request) => {
  const prompt = lastPrompt(request);
  if (prompt?.startsWith('look ')) return call({ name: 'dict_look', id: `call-${prompt.slice(5)}`, input: { word: prompt.slice(5) } });
  if (prompt === 'fail') throw new Error('the model is down');
  const last = request.messages.at(-1)!.blocks.find((block) => block.kind === 'tool_result');
  return say(last?.kind === 'tool_result' ? `found: ${JSON.stringify(last.content)}` : `heard ${prompt}`);
};

/** The dictionary tool, counting how often its input schema is read (read to compile it). */
function dictionary(): { tool: ToolDefinition; schemaReads: () => number } {
  let reads = 0;
  const schema = { type: 'object', properties: { word: { type: 'string' } }, required: ['word'], additionalProperties: false };
  const tool: ToolDefinition = {
    name: 'dict.look',
    description: 'Looks a word up.',
    get inputSchema() {
      reads++;
      return schema;
    },
    execute: (input: { word: string }) => `${input.word} means ${input.word.length} letters`,
  };
  return { tool, schemaReads: () => reads };
}

describe('defineConductor: an agent defined once, opened per conversation', () => {
  it('opens many conversations of one definition, each its own session and events, with its tools compiled once', async () => {
    const { tool, schemaReads } = dictionary();
    const store = new MemorySessionStore();
    const definition = defineConductor({ model: 'test', tools: [tool] }, { invokeModel: lookingModel, store });
    const compiled = schemaReads();
    expect(compiled).toBeGreaterThan(0);
    expect(definition).toMatchObject({ name: 'main', model: 'test' });
    expect(Object.isFrozen(definition)).toBe(true);

    const words = ['cat', 'horse', 'ox'];
    const conversations = words.map((word) => {
      const agent = definition.open({ sessionId: `talk-${word}` });
      const events: RunEvent[] = [];
      agent.subscribe((event) => events.push(event));
      return { word, agent, events };
    });
    // All at once: nothing one conversation holds is another's.
    const snapshots = await Promise.all(conversations.map(({ agent, word }) => agent.submit(`look ${word}`)));
    snapshots.forEach((snapshot, i) => expect(snapshot.text).toBe(`found: "${words[i]} means ${words[i].length} letters"`));
    for (const { word, agent, events } of conversations) {
      expect(agent.sessionId).toBe(`talk-${word}`);
      const started = events.filter((event) => event.kind === 'tool_started');
      expect(started.map((event) => event.callId)).toEqual([`call-${word}`]);
      expect(new Set(events.filter((event) => event.kind === 'run_started').map((event) => event.sessionId))).toEqual(
        new Set([`talk-${word}`]),
      );
      await agent.close();
    }
    // Opening and running conversations compiled nothing again.
    expect(schemaReads()).toBe(compiled);

    // A conversation opened again later picks its session up from the store.
    const again = definition.open({ sessionId: 'talk-ox' });
    const standing = await again.resume('talk-ox');
    expect(standing.messages.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect((await again.submit('thanks')).text).toBe('heard thanks');
    await again.close();
  });

  it('runs one prompt in a conversation of its own with run(), which it closes, so the session can be run again', async () => {
    const store = new MemorySessionStore();
    const definition = defineConductor({ model: 'test' }, { invokeModel: lookingModel, store });
    const first = await definition.run('hello', { sessionId: 'once' });
    expect(first).toMatchObject({ status: 'settled', text: 'heard hello' });
    // Closed: the store's writer lock is free, so the same session takes another run.
    const second = await definition.run('again', { sessionId: 'once' });
    expect(second.messages.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    // Without a session id, each run starts a session of its own.
    const a = await definition.run('one');
    const b = await definition.run('two');
    expect(a.messages).toHaveLength(2);
    expect(b.messages).toHaveLength(2);
  });

  it('rejects run() with the run fault, after closing the session', async () => {
    const store = new MemorySessionStore();
    const definition = defineConductor({ model: 'test' }, { invokeModel: lookingModel, store });
    const failed = await definition.run('fail', { sessionId: 'broken' }).catch((error: unknown) => error);
    expect(RunFault.isInstance(failed)).toBe(true);
    expect((failed as RunFault).kind).toBe('model_error');
    // Closed: another conversation can take the session.
    expect((await definition.run('hello', { sessionId: 'broken' })).status).toBe('settled');
  });

  it('refuses a config that cannot work when it is defined, and options that cannot work when a conversation opens', () => {
    expect(() => defineConductor({ model: 'test', maxSteps: 0 }, { invokeModel: lookingModel })).toThrow(AgentConfigError);
    const definition = defineConductor({ model: 'test' }, { invokeModel: lookingModel, store: new MemorySessionStore() });
    expect(() => definition.open({ sessionId: '' })).toThrow(AgentConfigError);
    expect(() => definition.open({ messages: [] })).toThrow(/either `messages`/);
    expect(() => definition.open(null as never)).toThrow(AgentConfigError);
  });

  it('is what createConductor opens: the same agent, its session the config’s', async () => {
    const agent = createConductor({ model: 'test', sessionId: 'named' }, { invokeModel: lookingModel });
    expect(agent.sessionId).toBe('named');
    expect((await agent.submit('hi')).text).toBe('heard hi');
    await agent.close();
  });
});
