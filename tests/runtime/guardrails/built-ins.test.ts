// The two built-in guardrails, asked directly as the conductor asks them.
import { describe, expect, it } from 'vitest';
import { GuardrailDefinitionError, denyToolArguments, maxPromptSize } from '../../../src/runtime/guardrails/index.js';
import type { PromptBlock } from '../../../src/entries/runtime.js';
import type { InputGuardrailArgs, OutputGuardrailArgs } from '../../../src/entries/guardrails.js';

const context = { sessionId: 's', runId: 'r', signal: new AbortController().signal };
const prompt = (content: PromptBlock[]): InputGuardrailArgs => ({
  ...context,
  prompt: content.flatMap((block) => (block.kind === 'text' ? [block.text] : [])).join('\n'),
  content,
  messages: [{ role: 'user', blocks: content }],
});
const toolCall = (name: string, input: unknown): OutputGuardrailArgs => ({
  ...context,
  stage: 'tool_call',
  call: { callId: 'c1', name, input },
  messages: [],
});
const answer = (text: string): OutputGuardrailArgs => ({ ...context, stage: 'answer', text, messages: [] });

describe('maxPromptSize', () => {
  it('trips on a prompt over its characters, runs before the model call, and passes one at the limit', async () => {
    const guardrail = maxPromptSize({ maxChars: 10 });
    expect(guardrail).toMatchObject({ name: 'max_prompt_size', runInParallel: false });
    expect(await guardrail.execute(prompt([{ kind: 'text', text: '0123456789' }]))).toEqual({ tripwireTriggered: false });
    expect(await guardrail.execute(prompt([{ kind: 'text', text: '0123456789!' }]))).toEqual({
      tripwireTriggered: true,
      message: 'The prompt has 11 characters; at most 10 are allowed.',
      outputInfo: { chars: 11, maxChars: 10 },
    });
  });

  it('counts images and documents toward its tokens, which a character limit does not see', async () => {
    const image: PromptBlock = { kind: 'image', source: { type: 'base64', mediaType: 'image/png', data: 'A'.repeat(400_000) } };
    const guardrail = maxPromptSize({ maxTokens: 1_000, maxChars: 1_000, name: 'size' });
    expect(await guardrail.execute(prompt([{ kind: 'text', text: 'what is this?' }]))).toEqual({ tripwireTriggered: false });
    const result = await guardrail.execute(prompt([{ kind: 'text', text: 'what is this?' }, image]));
    expect(result).toMatchObject({ tripwireTriggered: true, outputInfo: { maxTokens: 1_000 } });
    expect(result.message).toMatch(/^The prompt comes to about \d+ tokens; at most 1000 are allowed\.$/);
  });

  it('refuses options that cannot work', () => {
    for (const options of [{}, { maxChars: 0 }, { maxTokens: 1.5 }, { maxChars: 10, name: '' }, null]) {
      expect(() => maxPromptSize(options as never)).toThrow(GuardrailDefinitionError);
    }
  });
});

describe('denyToolArguments', () => {
  const guardrail = denyToolArguments([
    { tools: ['shell.run'], path: 'command', match: /rm\s+-rf/gi, reason: 'no recursive deletes' },
    { match: '/etc/passwd' },
    { tools: ['http.get'], path: 'request.url', match: 'internal.example' },
  ]);

  it('trips on an argument matching an entry, naming the argument and the entry but not the value', async () => {
    const result = await guardrail.execute(toolCall('shell.run', { command: 'sudo RM  -RF /' }));
    expect(result).toEqual({
      tripwireTriggered: true,
      message: 'Argument "command" of shell.run matches the deny-list entry /rm\\s+-rf/i: no recursive deletes',
      outputInfo: { tool: 'shell.run', argument: 'command', entry: '/rm\\s+-rf/i' },
    });
    expect(result.message).not.toContain('sudo');
  });

  it('matches the same way every time: a global pattern keeps no position between calls', async () => {
    for (let i = 0; i < 3; i++)
      expect((await guardrail.execute(toolCall('shell.run', { command: 'rm -rf x' }))).tripwireTriggered).toBe(true);
  });

  it('looks everywhere in the input without a path, inside arrays and nested objects, numbers included', async () => {
    const deep = { files: [{ name: 'a.txt' }, { name: 'x', path: ['/home', '/etc/passwd'] }] };
    expect(await guardrail.execute(toolCall('files.read', deep))).toMatchObject({
      tripwireTriggered: true,
      outputInfo: { argument: 'files.1.path.1' },
    });
    expect(await guardrail.execute(toolCall('files.read', '/etc/passwd'))).toMatchObject({
      tripwireTriggered: true,
      outputInfo: { argument: '' },
    });
    const ports = denyToolArguments([{ path: 'port', match: '22' }]);
    expect((await ports.execute(toolCall('net.open', { port: 22 }))).tripwireTriggered).toBe(true);
    const cyclic: Record<string, unknown> = { name: 'ok' };
    cyclic.self = cyclic;
    expect(await guardrail.execute(toolCall('files.read', cyclic))).toEqual({ tripwireTriggered: false });
  });

  it('keeps an entry to its tools and its path, and lets answers through', async () => {
    expect((await guardrail.execute(toolCall('notes.add', { text: 'rm -rf is dangerous' }))).tripwireTriggered).toBe(false);
    expect((await guardrail.execute(toolCall('shell.run', { cwd: 'rm -rf' }))).tripwireTriggered).toBe(false);
    expect((await guardrail.execute(toolCall('http.get', { request: { url: 'https://internal.example/admin' } }))).tripwireTriggered).toBe(
      true,
    );
    expect((await guardrail.execute(toolCall('http.get', { request: 'internal.example' }))).tripwireTriggered).toBe(false);
    expect((await guardrail.execute(answer('try rm -rf /etc/passwd'))).tripwireTriggered).toBe(false);
  });

  it('refuses a list that cannot work', () => {
    const bad: unknown[] = [
      [],
      'rm',
      [{}],
      [{ match: '' }],
      [{ match: 'x', tools: [] }],
      [{ match: 'x', tools: 'shell' }],
      [{ match: 'x', path: 'a..b' }],
      [{ match: 'x', reason: 3 }],
      [null],
    ];
    for (const list of bad) expect(() => denyToolArguments(list as never)).toThrow(GuardrailDefinitionError);
    expect(() => denyToolArguments([{ match: 'x' }], { name: '' })).toThrow(GuardrailDefinitionError);
  });
});
