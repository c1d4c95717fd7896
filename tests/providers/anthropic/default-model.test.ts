// The default model, Claude through `new Anthropic()`: without credentials in the environment it is a
// clear typed error when the agent is created (naming ANTHROPIC_API_KEY and the other providers' way
// in), not the SDK's message on the first call; with any credential the SDK would use, or a client, or
// another model, the agent is created as before.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAgent } from '../../../src/entries/runtime.js';
import { AgentConfigError } from '../../../src/entries/errors.js';
import { MissingApiKeyError } from '../../../src/entries/anthropic.js';
import { anthropic, anthropicCredentials, runAgent } from '../../../src/providers/anthropic/index.js';
import { demoModel } from '../../../src/entries/testing.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../../src/testing/index.js';
import type { ModelInvoker } from '../../../src/runtime/contract/model.js';

const CREDENTIAL_VARIABLES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_PROFILE',
  'ANTHROPIC_FEDERATION_RULE_ID',
  'ANTHROPIC_CONFIG_DIR',
  'APPDATA',
];

let home: string;
beforeEach(async () => {
  // An environment with no Anthropic credential at all: every variable empty, config folders in an empty home.
  home = await mkdtemp(join(tmpdir(), 'indusagi-no-credentials-'));
  for (const name of CREDENTIAL_VARIABLES) vi.stubEnv(name, '');
  vi.stubEnv('HOME', home);
  vi.stubEnv('XDG_CONFIG_HOME', '');
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(home, { recursive: true, force: true });
});

describe('without Anthropic credentials', () => {
  it('createAgent on the default model throws MissingApiKeyError, naming the key and the other ways in', () => {
    const attempt = () => createAgent({ model: 'claude-sonnet-5-5' });
    expect(attempt).toThrow(MissingApiKeyError);
    expect(attempt).toThrow(AgentConfigError);
    const error = (() => {
      try {
        attempt();
      } catch (caught) {
        return caught as MissingApiKeyError;
      }
    })()!;
    expect(error.kind).toBe('invalid_config');
    expect(error.variable).toBe('ANTHROPIC_API_KEY');
    expect(error.message).toMatch(/needs ANTHROPIC_API_KEY/);
    expect(error.message).toMatch(/deps\.client/);
    expect(error.message).toMatch(
      /createOpenAIInvoker\(new OpenAI\(\), \{ model: 'gpt-5\.4-mini' \}\) from indusagi\/openai \(reads OPENAI_API_KEY\)/,
    );
    expect(() => anthropic('claude-sonnet-5-5')).toThrow(/needs ANTHROPIC_API_KEY.*pass `\{ client \}`/);
  });

  it('an agent with a client, an invoker of its own or another model as `model` needs none', async () => {
    const server: AnthropicTestServer = await startAnthropicServer();
    try {
      server.enqueue(reply.text('through the client'), reply.text('through the invoker'));
      expect((await createAgent({ model: 'claude-sonnet-5-5' }, { client: server.client() }).submit('hi')).text).toBe('through the client');
      const model = anthropic('claude-sonnet-5-5', { client: server.client() });
      expect((await createAgent({ model }).submit('hi')).text).toBe('through the invoker');
    } finally {
      await server.close();
    }
  });

  it('a client beside another model is refused rather than ignored', async () => {
    const server = await startAnthropicServer();
    try {
      const model = anthropic('claude-sonnet-5-5', { client: server.client() });
      expect(() => createAgent({ model }, { client: server.client() })).toThrow(/`deps.client` is for Claude, the default model/);
    } finally {
      await server.close();
    }
  });
});

describe('any credential new Anthropic() would use is enough', () => {
  it.each([
    ['ANTHROPIC_API_KEY', 'sk-test'],
    ['ANTHROPIC_AUTH_TOKEN', 'token'],
    ['ANTHROPIC_PROFILE', 'work'],
    ['ANTHROPIC_FEDERATION_RULE_ID', 'rule'],
  ])('%s', (name, value) => {
    vi.stubEnv(name, value);
    expect(anthropicCredentials(process.env)).toBeNull();
    expect(() => createAgent({ model: 'claude-sonnet-5-5' })).not.toThrow();
  });

  it('a profile folder in the Anthropic config directory, and a blank key is no key', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '   ');
    expect(anthropicCredentials(process.env)).toBe('ANTHROPIC_API_KEY');
    await mkdir(join(home, '.config', 'anthropic', 'configs'), { recursive: true });
    expect(anthropicCredentials(process.env)).toBeNull();
  });
});

// The one switch for trying any agent with no key: INDUSAGI_MODEL=demo points every agent createAgent
// makes at the offline demo model, in process (no server, no network), whatever model it names.
describe('INDUSAGI_MODEL=demo', () => {
  it('runs the default model’s agent on the demo model with no credentials, its tools included', async () => {
    vi.stubEnv('INDUSAGI_MODEL', 'demo');
    const agent = createAgent({
      model: 'claude-sonnet-5-5',
      tools: [{ name: 'clock.now', description: 'The time.', inputSchema: { type: 'object', properties: {} }, execute: () => '12:00' }],
    });
    const result = await agent.submit('what time is it?');
    expect(result.status).toBe('settled');
    expect(result.text).toBe('(offline demo model) The clock tool says it is 12:00.');
    await agent.close();
  });

  it('replaces a model given as an invoker, which is never called; other values leave the model be', async () => {
    let calls = 0;
    const invoker = Object.assign(
      async () => {
        calls++;
        return { turn: { role: 'assistant' as const, blocks: [{ kind: 'text' as const, text: 'real' }] }, stopReason: 'end_turn' };
      },
      { modelId: 'gpt-real' },
    );
    vi.stubEnv('INDUSAGI_MODEL', 'offline');
    const demo = createAgent({ model: invoker });
    expect((await demo.submit('hello')).text).toMatch(/^\(offline demo model\)/);
    expect(calls).toBe(0);
    vi.stubEnv('INDUSAGI_MODEL', 'openai:gpt-5.4');
    const real = createAgent({ model: invoker });
    expect((await real.submit('hello')).text).toBe('real');
    expect(calls).toBe(1);
    await Promise.all([demo.close(), real.close()]);
  });

  it('lets anthropic() be made with no key for an agent, which runs on the demo model; a direct call still refuses', async () => {
    vi.stubEnv('INDUSAGI_MODEL', 'demo');
    const claude = anthropic('claude-sonnet-5-5', { cacheTtl: '1h' });
    const agent = createAgent({ model: claude });
    expect((await agent.submit('hello')).text).toMatch(/^\(offline demo model\)/);
    await agent.close();
    // Called by the program itself, it is still Claude with no key: the same typed error, on the call.
    const request = {
      model: 'claude-sonnet-5-5',
      messages: [{ role: 'user' as const, blocks: [{ kind: 'text' as const, text: 'hi' }] }],
      tools: [],
      maxOutputTokens: 16,
    };
    await expect(claude(request)).rejects.toThrow(MissingApiKeyError);
  });

  it('keeps a client or an invoker the program brought (a scripted server): the switch is for code without a model of its own', async () => {
    vi.stubEnv('INDUSAGI_MODEL', 'demo');
    const server = await startAnthropicServer();
    try {
      server.enqueue(reply.text('through the client'));
      const agent = createAgent({ model: 'claude-sonnet-5-5' }, { client: server.client() });
      expect((await agent.submit('hi')).text).toBe('through the client');
      await agent.close();
    } finally {
      await server.close();
    }
  });

  it('keeps a model that is the demo model already, wrapped as the program needs (a counter, a recording)', async () => {
    vi.stubEnv('INDUSAGI_MODEL', 'demo');
    const demo = demoModel();
    let calls = 0;
    const counted: ModelInvoker = Object.assign((request: Parameters<ModelInvoker>[0]) => (calls++, demo(request)), {
      modelId: demo.modelId,
      card: demo.card,
    });
    const agent = createAgent({ model: counted });
    expect((await agent.submit('hello')).text).toMatch(/^\(offline demo model\)/);
    expect(calls).toBe(1);
    await agent.close();
  });

  it("points runAgent's loop at the demo model in place of its client, which is never called", async () => {
    vi.stubEnv('INDUSAGI_MODEL', 'demo');
    const server = await startAnthropicServer();
    try {
      const parts: string[] = [];
      for await (const part of runAgent({ client: server.client(), model: 'claude-sonnet-5-5', prompt: 'hello' }))
        if (part.type === 'text') parts.push(part.text);
      expect(parts.join('')).toMatch(/^\(offline demo model\)/);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
