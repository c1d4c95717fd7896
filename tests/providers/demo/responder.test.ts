import { describe, expect, it } from 'vitest';
import { DEMO_BANNER, DEMO_TOOLS, DemoRequestError, respond, type DemoReply } from '../../../src/providers/demo/index.js';
import { IndusagiError } from '../../../src/errors/index.js';
import { buildSummaryRequest } from '../../../src/runtime/compaction/index.js';
import type { Turn } from '../../../src/runtime/contract/index.js';

const tools = Object.values(DEMO_TOOLS).map((name) => ({ name, description: name, input_schema: { type: 'object' } }));

function ask(prompt: string, extra: Record<string, unknown> = {}): DemoReply {
  return respond({ model: 'demo', max_tokens: 2_000, tools, messages: [{ role: 'user', content: prompt }], ...extra });
}

function toolCall(reply: DemoReply) {
  const call = reply.content.find((b) => b.type === 'tool_use');
  if (!call || call.type !== 'tool_use') throw new Error(`no tool_use in ${JSON.stringify(reply.content)}`);
  return call;
}

function textOf(reply: DemoReply): string {
  return reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

describe('demo responder: prompts that call tools', () => {
  it.each([
    ['list files in src', DEMO_TOOLS.list, { path: 'src' }],
    ['please list the files', DEMO_TOOLS.list, { path: '.' }],
    ['read `package.json`.', DEMO_TOOLS.read, { path: 'package.json' }],
    ['read @src/cli/main.ts', DEMO_TOOLS.read, { path: 'src/cli/main.ts' }],
    ['What time is it?', DEMO_TOOLS.time, {}],
    ['remember that my cat is called Tom.', DEMO_TOOLS.remember, { fact: 'my cat is called Tom' }],
    ['What do you remember about my cat?', DEMO_TOOLS.recall, { query: 'my cat' }],
    ['write "hello there" to notes/today.txt', DEMO_TOOLS.write, { path: 'notes/today.txt', content: 'hello there' }],
    [
      'replace "hello there" with goodbye in notes/today.txt',
      DEMO_TOOLS.edit,
      { path: 'notes/today.txt', old_string: 'hello there', new_string: 'goodbye' },
    ],
    ['run ls -la', DEMO_TOOLS.bash, { command: 'ls -la' }],
    ['run "echo remember that; sleep 1"', DEMO_TOOLS.bash, { command: 'echo remember that; sleep 1' }],
  ])('%s -> %s', (prompt, name, input) => {
    const reply = ask(prompt);
    expect(reply.stopReason).toBe('tool_use');
    expect(toolCall(reply)).toMatchObject({ name, input });
    expect(toolCall(reply).id).toMatch(/^toolu_/);
  });

  it('says so instead of calling a tool the request does not offer', () => {
    const reply = ask('list files in src', { tools: [] });
    expect(reply.stopReason).toBe('end_turn');
    expect(reply.content.every((b) => b.type === 'text')).toBe(true);
    expect(textOf(reply)).toContain(`offers no such tool`);
  });
});

describe('demo responder: sub-agents and handoffs', () => {
  const agents = [
    ...tools,
    { name: 'researcher', description: 'R.', input_schema: { type: 'object' } },
    { name: 'transfer_to_writer', description: 'W.', input_schema: { type: 'object' } },
  ];

  it('asks the agent a prompt names, with the task as its prompt; several at once, one per line', () => {
    const one = ask('ask the researcher to read tides.md', { tools: agents });
    expect(one.content.filter((b) => b.type === 'tool_use')).toEqual([
      expect.objectContaining({ name: 'researcher', input: { prompt: 'read tides.md' } }),
    ]);
    const two = ask('ask the researcher to read a.md\nask researcher to read b.md', { tools: agents });
    const calls = two.content.filter((b) => b.type === 'tool_use');
    expect(calls.map((c) => c.type === 'tool_use' && c.input)).toEqual([{ prompt: 'read a.md' }, { prompt: 'read b.md' }]);
    expect(new Set(calls.map((c) => c.type === 'tool_use' && c.id)).size).toBe(2);
    expect(textOf(ask('ask the painter to paint', { tools: agents }))).toContain('offers no such agent');
  });

  it('hands the conversation to the agent a prompt names, through its transfer tool', () => {
    expect(toolCall(ask('hand me to the writer', { tools: agents }))).toMatchObject({ name: 'transfer_to_writer', input: {} });
    expect(textOf(ask('hand me to the painter', { tools: agents }))).toContain('no handoff to such an agent');
  });
});

describe('demo responder: answers', () => {
  it('answers a tool result with a text that uses it', () => {
    const call = toolCall(ask('list files in src'));
    const reply = respond({
      model: 'demo',
      max_tokens: 2_000,
      tools,
      messages: [
        { role: 'user', content: 'list files in src' },
        { role: 'assistant', content: [call] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: [{ type: 'text', text: 'cli/\ndemo/' }] }] },
      ],
    });
    expect(reply.stopReason).toBe('end_turn');
    expect(textOf(reply)).toBe(`${DEMO_BANNER} src holds:\ncli/\ndemo/`);
  });

  it('reports a failed or rejected tool call as such', () => {
    const call = toolCall(ask('write hi to a.txt'));
    const reply = respond({
      model: 'demo',
      max_tokens: 2_000,
      tools,
      messages: [
        { role: 'user', content: 'write hi to a.txt' },
        { role: 'assistant', content: [call] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'rejected by the user', is_error: true }] },
      ],
    });
    expect(textOf(reply)).toContain('did not go through: rejected by the user');
  });

  it('states that it is the offline demo model in every plain answer', () => {
    for (const prompt of ['hello', 'help', 'tell me a long story', '']) {
      const text = textOf(ask(prompt));
      expect(text.startsWith(DEMO_BANNER)).toBe(true);
    }
    expect(textOf(ask('hello'))).toContain('offline demo model, a scripted stand-in');
  });

  it('gives a long answer for trying interruption, cut at max_tokens like the real API', () => {
    const full = ask('tell me a long story');
    expect(textOf(full).length).toBeGreaterThan(3_000);
    expect(full.stopReason).toBe('end_turn');
    const cut = ask('tell me a long story', { max_tokens: 50 });
    expect(cut.stopReason).toBe('max_tokens');
    expect(textOf(cut)).toBe(textOf(full).slice(0, 200));
  });

  it('is pure: the same body gives the same reply', () => {
    expect(ask('read README.md')).toEqual(ask('read README.md'));
  });
});

describe('demo responder: condensation requests', () => {
  const history = [
    { role: 'user', content: 'remember that the build runs on Fridays' },
    { role: 'assistant', content: `${DEMO_BANNER} Saving that to memory.` },
    { role: 'user', content: 'tell me a long story' },
    { role: 'assistant', content: 'x'.repeat(4_000) },
  ];

  it('returns a short summary when the summarizer asks through the system prompt', () => {
    const reply = respond({
      model: 'demo',
      max_tokens: 1_000,
      system: 'You summarize conversations so they fit a smaller window.',
      messages: [...history, { role: 'user', content: 'Go ahead.' }],
    });
    const text = textOf(reply);
    expect(reply.content).toHaveLength(1);
    expect(text).toContain('Summary of the earlier conversation');
    expect(text).toContain('remember that the build runs on Fridays');
    expect(text.length).toBeLessThan(200);
  });

  it('returns a summary when the last user message asks for one over a transcript', () => {
    const transcript = 'Summarize this conversation.\n\nuser: read package.json\nassistant: it reads {...}\nuser: what time is it?';
    const text = textOf(respond({ model: 'demo', max_tokens: 1_000, messages: [{ role: 'user', content: transcript }] }));
    expect(text).toContain('- user: read package.json');
    expect(text).toContain('- user: what time is it?');
    expect(text).not.toContain('assistant: it reads');
  });

  it("recognises the runtime's own summarizer request and keeps the user's points, earlier summary included", () => {
    const say = (role: Turn['role'], text: string): Turn => ({ role, blocks: [{ kind: 'text', text }] });
    const turns: Turn[] = [
      say('user', '[condensed earlier context]\n- User: read package.json'),
      say('user', 'remember that the build runs on Fridays'),
      say('assistant', 'Noted. ' + 'words '.repeat(300)),
      say('user', 'tell me a long story'),
      say('assistant', 'Once upon a time. '.repeat(80)),
    ];
    const request = buildSummaryRequest(turns, { model: 'indusagi-offline-demo' });
    const reply = respond({
      model: request.model,
      max_tokens: request.maxOutputTokens,
      system: request.system,
      messages: request.messages.map((t) => ({
        role: t.role,
        content: t.blocks.map((b) => ({ type: 'text', text: (b as { text: string }).text })),
      })),
    });
    expect(reply.stopReason).toBe('end_turn');
    expect(textOf(reply).split('\n').slice(1)).toEqual([
      '- User: read package.json',
      '- User: remember that the build runs on Fridays',
      '- User: tell me a long story',
    ]);
  });

  it('keeps the first and the latest points of a long conversation, bounded', () => {
    const transcript = Array.from({ length: 12 }, (_, i) => `User: prompt ${i + 1}`).join('\n');
    const text = textOf(
      respond({ model: 'demo', max_tokens: 1_000, system: 'Write a summary.', messages: [{ role: 'user', content: transcript }] }),
    );
    expect(text.split('\n')).toEqual([
      '(offline demo model) Summary of the earlier conversation:',
      '- User: prompt 1',
      '- User: prompt 2',
      '- …7 more in between…',
      '- User: prompt 10',
      '- User: prompt 11',
      '- User: prompt 12',
    ]);
  });

  it('treats a chat request with tools as chat even when it mentions a summary', () => {
    expect(isSummary(ask('summarize our chat'))).toBe(false);
  });

  function isSummary(reply: DemoReply) {
    return textOf(reply).includes('Summary of the earlier conversation');
  }
});

describe('demo responder: bad bodies', () => {
  it.each([
    ['not an object', 'hello', 'the request body'],
    ['no messages', { model: 'demo', max_tokens: 10, messages: [] }, 'messages'],
    ['an unknown role', { model: 'demo', max_tokens: 10, messages: [{ role: 'system', content: 'x' }] }, 'messages[0].role'],
    ['no max_tokens', { model: 'demo', messages: [{ role: 'user', content: 'x' }] }, 'max_tokens'],
    ['an assistant message last', { model: 'demo', max_tokens: 10, messages: [{ role: 'assistant', content: 'x' }] }, 'last message'],
    [
      'a tool result that answers nothing',
      {
        model: 'demo',
        max_tokens: 10,
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nope', content: 'x' }] }],
      },
      'answers no tool_use',
    ],
  ])('refuses %s with a DemoRequestError', (_label, body, fragment) => {
    let caught: unknown;
    try {
      respond(body);
    } catch (error) {
      caught = error;
    }
    expect(DemoRequestError.isInstance(caught)).toBe(true);
    expect(IndusagiError.isInstance(caught)).toBe(true);
    expect((caught as DemoRequestError).kind).toBe('demo_bad_request');
    expect((caught as Error).message).toContain(fragment);
  });
});
