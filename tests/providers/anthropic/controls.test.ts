// Model controls (temperature, topP, stopSequences, toolChoice, thinking) on the config and per submit,
// end to end through the real @anthropic-ai/sdk and the loopback server: what each request body
// carries, what is refused before any request, and thinking blocks kept verbatim through a tool loop,
// the session file and a resume.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../../src/entries/runtime.js';
import { AgentConfigError, ModelControlsError } from '../../../src/entries/errors.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../../src/testing/index.js';

let server: AnthropicTestServer;
let dir: string;
beforeEach(async () => {
  server = await startAnthropicServer();
  dir = await mkdtemp(join(tmpdir(), 'indusagi-controls-'));
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const weather = {
  name: 'weather.today',
  description: 'Today’s weather for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: ({ city }: { city: string }) => `clear in ${city}`,
};
const bodies = () => server.requests.map((request) => request.body);

describe('model controls in request bodies', () => {
  it('sends the config’s controls on every request of a run', async () => {
    server.enqueue(
      reply.tools([{ name: 'weather_today', input: { city: 'Pune' } }]),
      reply.text('Clear.', { stopReason: 'stop_sequence' }),
    );
    const agent = createAgent(
      { model: 'claude-test', tools: [weather], temperature: 0.3, topP: 0.9, stopSequences: ['\nEND'], toolChoice: 'auto' },
      { client: server.client() },
    );

    await agent.submit('Weather?');

    for (const body of bodies()) {
      expect(body).toMatchObject({ temperature: 0.3, top_p: 0.9, stop_sequences: ['\nEND'], tool_choice: { type: 'auto' } });
      expect(body.thinking).toBeUndefined();
    }
  });

  it('lets one submit override the config’s controls for its run only', async () => {
    server.enqueue(reply.text('One.'), reply.text('Two.'));
    const agent = createAgent({ model: 'claude-test', temperature: 0.7, stopSequences: ['STOP'] }, { client: server.client() });

    await agent.submit('first', { temperature: 0.1, stopSequences: ['HALT', 'END'] });
    await agent.submit('second');

    expect(bodies()[0]).toMatchObject({ temperature: 0.1, stop_sequences: ['HALT', 'END'] });
    expect(bodies()[1]).toMatchObject({ temperature: 0.7, stop_sequences: ['STOP'] });
  });

  it('forces a named tool (by the name the model sees) on the first call only, then lets the model answer', async () => {
    server.enqueue(reply.tools([{ name: 'weather_today', input: { city: 'Pune' } }]), reply.text('Clear in Pune.'));
    const agent = createAgent({ model: 'claude-test', tools: [weather] }, { client: server.client() });

    const snapshot = await agent.submit('Pune?', { toolChoice: { tool: 'weather.today' } });

    expect(snapshot.text).toBe('Clear in Pune.');
    expect(bodies()[0].tool_choice).toEqual({ type: 'tool', name: 'weather_today' });
    expect(bodies()[1].tool_choice).toBeUndefined();
  });

  it('sends toolChoice "none" and "any" as the API spells them, and no tool_choice without tools', async () => {
    server.enqueue(
      reply.text('No tools.'),
      reply.tools([{ name: 'weather_today', input: { city: 'Goa' } }]),
      reply.text('Goa is clear.'),
      reply.text('Plain.'),
    );
    const agent = createAgent({ model: 'claude-test', tools: [weather], toolChoice: 'none' }, { client: server.client() });
    await agent.submit('a');
    await agent.submit('b', { toolChoice: 'any' });
    const bare = createAgent({ model: 'claude-test', toolChoice: 'none' }, { client: server.client() });
    await bare.submit('c');

    expect(bodies().map((body) => body.tool_choice)).toEqual([{ type: 'none' }, { type: 'any' }, undefined, undefined]);
  });

  it('turns thinking on with its budget, and one submit can turn it off', async () => {
    server.enqueue(reply.text('Thought.'), reply.text('Quick.'));
    const agent = createAgent(
      { model: 'claude-test', maxOutputTokens: 8192, thinking: { budgetTokens: 2048 } },
      { client: server.client() },
    );

    await agent.submit('deep');
    await agent.submit('quick', { thinking: false });

    expect(bodies()[0]).toMatchObject({ max_tokens: 8192, thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(bodies()[1].thinking).toBeUndefined();
  });
});

describe('controls that cannot work are refused before any request', () => {
  it('at createAgent, naming the problem', () => {
    const make = (config: object) => () => createAgent({ model: 'claude-test', tools: [weather], ...config }, { client: server.client() });
    expect(make({ temperature: 3 })).toThrow(AgentConfigError);
    expect(make({ temperature: 3 })).toThrow(/`temperature` must be a number from 0 to 2, got 3/);
    expect(make({ temperature: 1.5 })).toThrow(/Claude takes a `temperature` from 0 to 1, got 1.5/);
    expect(make({ topP: 0 })).toThrow(/`topP` must be a number above 0 and at most 1/);
    expect(make({ stopSequences: ['ok', ''] })).toThrow(/`stopSequences` must be an array of non-empty strings/);
    expect(make({ toolChoice: { tool: 'weather.tomorrow' } })).toThrow(/names the tool "weather.tomorrow", which the agent does not have/);
    expect(make({ toolChoice: 'required' })).toThrow(/`toolChoice` must be "auto", "any", "none" or \{ tool: name \}/);
    expect(make({ thinking: { budgetTokens: 500 } })).toThrow(/at least 1024 tokens, got 500/);
    expect(make({ maxOutputTokens: 4096, thinking: { budgetTokens: 4096 } })).toThrow(
      /must be below the output cap \(maxOutputTokens 4096\)/,
    );
    expect(make({ thinking: { budgetTokens: 2048 }, temperature: 0.5 })).toThrow(/does not take a `temperature` with thinking on/);
    expect(make({ thinking: { budgetTokens: 2048 }, toolChoice: 'any' })).toThrow(/cannot be forced to call a tool/);
    expect(server.requests).toHaveLength(0);
  });

  it('at submit, as ModelControlsError, leaving the agent usable', async () => {
    server.enqueue(reply.text('Fine.'));
    const agent = createAgent({ model: 'claude-test', thinking: { budgetTokens: 2048 } }, { client: server.client() });

    const refused = await agent.submit('hot', { temperature: 0.9 }).catch((error: unknown) => error);
    expect(ModelControlsError.isInstance(refused)).toBe(true);
    expect((refused as ModelControlsError).kind).toBe('invalid_request');
    expect(server.requests).toHaveLength(0);
    // Without thinking for this run, the temperature is fine.
    await agent.submit('warm', { thinking: false, temperature: 0.9 });
    expect(bodies()[0]).toMatchObject({ temperature: 0.9 });
  });
});

describe('thinking through a tool loop', () => {
  it('sends the reply’s thinking and redacted thinking back unchanged, signatures intact, and keeps them in the session file for a resume', async () => {
    server.enqueue(
      reply.message([
        { type: 'thinking', thinking: 'I should look the weather up.', signature: 'EqQBCkYIBxgCKkD-signature' },
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT-encrypted' },
        { type: 'tool_use', name: 'weather_today', input: { city: 'Pune' }, id: 'toolu_w' },
      ]),
      reply.message([
        { type: 'thinking', thinking: 'It is clear.', signature: 'sig-final' },
        { type: 'text', text: 'Clear in Pune.' },
      ]),
      reply.text('Still clear.'),
    );
    const config = { model: 'claude-test', maxOutputTokens: 16_000, tools: [weather], thinking: { budgetTokens: 4096 } };
    const agent = createAgent(config, { client: server.client(), store: new SessionStore(dir) });

    const snapshot = await agent.submit('Weather in Pune?');
    await agent.close();

    const replayed = [
      { type: 'thinking', thinking: 'I should look the weather up.', signature: 'EqQBCkYIBxgCKkD-signature' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT-encrypted' },
      { type: 'tool_use', id: 'toolu_w', name: 'weather_today', input: { city: 'Pune' } },
    ];
    expect(bodies()[1].messages[1]).toEqual({ role: 'assistant', content: replayed });
    expect(bodies()[1].thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
    expect(snapshot.messages[1].blocks.slice(0, 2)).toEqual([
      { kind: 'thinking', text: 'I should look the weather up.', signature: 'EqQBCkYIBxgCKkD-signature' },
      { kind: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT-encrypted' },
    ]);
    const file = await readFile(join(dir, `${snapshot.sessionId}.jsonl`), 'utf8');
    expect(file).toContain('"signature":"EqQBCkYIBxgCKkD-signature"');
    expect(file).toContain('"kind":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT-encrypted"');

    // Another agent resumes from the file and sends the same blocks, byte for byte.
    const again = createAgent(config, { client: server.client(), store: new SessionStore(dir) });
    await again.resume(snapshot.sessionId);
    await again.submit('And now?');
    await again.close();
    expect(bodies()[2].messages[1]).toEqual({ role: 'assistant', content: replayed });
    expect(bodies()[2].messages[3].content[0]).toEqual({ type: 'thinking', thinking: 'It is clear.', signature: 'sig-final' });
  });
});
