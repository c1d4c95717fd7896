// The chat routes over a thread that is a tree: a regenerate answers a prompt again beside the first
// answer, an edit branches before the prompt it replaces (before the first turn for a thread's first
// prompt), `POST /chat/{id}/version` shows another branch, and messages carry the node ids and versions
// a page acts on; a thread's metadata is changed in place (a title). All of it within the tenant.
// The model is the scripted loopback server; files, sessions and the server are real.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicInvoker } from '../../src/providers/anthropic/invoker.js';
import { bearerTokens, createServer, type AgentServer } from '../../src/server/index.js';
import type { AnthropicTestServer } from '../../src/testing/index.js';
import agentOf from './fixtures/agent.js';
import { Client, sseReader, startScriptedModel, storyWords, waitForEvent } from '../support/agent-server.js';

type Message = { id: string; role: 'user' | 'assistant'; parts: Array<{ type: string; text?: string }>; metadata?: any };

const ANA = 'token-of-ana-at-acme-0123456789';
const BO = 'token-of-bo-at-globex-0123456789';
let dir: string;
let model: AnthropicTestServer;
let slowModel: AnthropicTestServer;
let server: AgentServer;
let acme: Client;
let globex: Client;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-server-branches-'));
  model = await startScriptedModel({ delayMs: 0 });
  // Threads named slow-… stream a word every 20 ms, so a reply is surely still streaming when it is stopped.
  slowModel = await startScriptedModel({ delayMs: 20 });
  const fast = createAnthropicInvoker(model.client());
  const slow = createAnthropicInvoker(slowModel.client());
  server = await createServer({
    dataDir: join(dir, 'data'),
    authenticate: bearerTokens([
      { token: ANA, tenant: 'acme', user: 'ana' },
      { token: BO, tenant: 'globex', user: 'bo' },
    ]),
    agent: (context) =>
      agentOf({
        ...context,
        model: { invokeModel: context.threadId.startsWith('slow') ? slow : fast, model: 'claude-test', offline: false },
      }),
  });
  acme = new Client('http://server.test', ANA, server.fetch);
  globex = new Client('http://server.test', BO, server.fetch);
});

afterAll(async () => {
  await server?.close(1_000);
  await model?.close();
  await slowModel?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Sends what `useChat` sends and reads the reply's stream to its end; answers the thread's messages after it. */
async function chat(client: Client, thread: string, text: string, extra: Record<string, unknown> = {}): Promise<Message[]> {
  const response = await client.post('/chat', {
    id: thread,
    messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text }] }],
    ...extra,
  });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`POST /chat: ${response.status} ${body}`);
  expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
  return messages(client, thread);
}

async function messages(client: Client, thread: string): Promise<Message[]> {
  return (await client.read<{ messages: Message[] }>(`/chat/${thread}/messages`)).messages;
}

/**
 * Asks acme's thread for a long story, and once `word` has streamed stops it as a page does: the chat
 * response dropped, then `POST /runs/{id}/cancel`. Answers the cancel's status and the run as it ended.
 */
async function stopStory(thread: string, word: string): Promise<{ run: string; canceled: number; ended: any }> {
  const response = await acme.post('/chat', { id: thread, messages: [{ role: 'user', parts: [{ type: 'text', text: 'story 5000' }] }] });
  const run = response.headers.get('x-run-id')!;
  const stream = sseReader(await acme.get(`/runs/${run}/stream`));
  await waitForEvent(stream, (e) => e.data.kind === 'text_delta' && e.data.delta.includes(word));
  await response.body!.cancel();
  const canceled = (await acme.post(`/runs/${run}/cancel`)).status;
  const ended = await acme.read(`/runs/${run}/wait`);
  await stream.cancel();
  return { run, canceled, ended };
}

const texts = (list: Message[]) => list.map((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(''));

describe('agent server: chat branches', () => {
  it('names each message by its session node; a regenerate answers the prompt again as a second version of the reply', async () => {
    await chat(acme, 'regen', 'first');
    const before = await chat(acme, 'regen', 'second');
    expect(texts(before)).toEqual(['first', 'ok: first', 'second', 'ok: second']);
    expect(before.every((m) => m.metadata.node === m.id)).toBe(true);
    const reply = before[3];
    const after = await chat(acme, 'regen', 'second', { trigger: 'regenerate-message', messageId: reply.id });
    expect(texts(after)).toEqual(['first', 'ok: first', 'second', 'ok: second']);
    // The new reply is the second version; the first stays, under the same prompt.
    expect(after[3].id).not.toBe(reply.id);
    expect(after[3].metadata.versions).toEqual({ index: 1, ids: [reply.id, after[3].id] });
    expect(after[2].id).toBe(before[2].id);
    const history = await acme.read(`/threads/regen/history`);
    expect(history.nodes).toHaveLength(5);
    // Back to the first version: the thread shows it, and the next prompt goes on from there.
    const switched = await acme.json<{ messages: Message[]; problems: string[] }>('/chat/regen/version', { messageId: reply.id });
    // The same shape as GET /chat/{id}/messages, so a page swaps one for the other.
    expect(switched.problems).toEqual([]);
    const shown = switched.messages;
    expect(shown[3].id).toBe(reply.id);
    expect(shown[3].metadata.versions).toEqual({ index: 0, ids: [reply.id, after[3].id] });
    expect(await messages(acme, 'regen')).toEqual(shown);
  });

  it('an edit of a past prompt branches before it; an edit of the first prompt starts a new root beside the old one', async () => {
    await chat(acme, 'edit', 'one');
    const before = await chat(acme, 'edit', 'two');
    const edited = await chat(acme, 'edit', 'two, edited', { messageId: before[2].id });
    expect(texts(edited)).toEqual(['one', 'ok: one', 'two, edited', 'ok: two, edited']);
    expect(edited[2].metadata.versions).toEqual({ index: 1, ids: [before[2].id, edited[2].id] });
    const first = await chat(acme, 'edit', 'zero', { messageId: before[0].id });
    expect(texts(first)).toEqual(['zero', 'ok: zero']);
    expect(first[0].metadata.versions).toEqual({ index: 1, ids: [before[0].id, first[0].id] });
    // The old root's newest branch comes back whole, the edited prompt included.
    const old = (await acme.json<{ messages: Message[] }>('/chat/edit/version', { messageId: before[0].id })).messages;
    expect(texts(old)).toEqual(['one', 'ok: one', 'two, edited', 'ok: two, edited']);
  });

  it('refuses what names no message of the thread, or the wrong kind of message, and changes nothing', async () => {
    const before = await chat(acme, 'refused', 'hello');
    const unknown = await acme.post('/chat', {
      id: 'refused',
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
      trigger: 'regenerate-message',
      messageId: 'no-such-node',
    });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.kind).toBe('not_found');
    const notReply = await acme.post('/chat', {
      id: 'refused',
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
      trigger: 'regenerate-message',
      messageId: before[0].id,
    });
    expect(notReply.status).toBe(400);
    const notPrompt = await acme.post('/chat', {
      id: 'refused',
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }],
      messageId: before[1].id,
    });
    expect(notPrompt.status).toBe(400);
    expect((await acme.post('/chat/refused/version', { messageId: 'no-such-node' })).status).toBe(404);
    expect((await acme.post('/chat/never-made/version', { messageId: before[0].id })).status).toBe(404);
    expect(await messages(acme, 'refused')).toEqual(before);
    expect((await acme.read('/threads/refused/history')).nodes).toHaveLength(2);
  });

  it("changes a thread's metadata in place (a title); another tenant can neither see nor change it", async () => {
    await acme.json('/threads', { id: 'titled', metadata: { pinned: true } }, 201);
    const patch = (client: Client, metadata: unknown) =>
      client.request('PATCH', '/threads/titled', { body: JSON.stringify({ metadata }), headers: { 'content-type': 'application/json' } });
    const renamed = await patch(acme, { title: 'Trip plans' });
    expect(renamed.status).toBe(200);
    expect((await renamed.json()).metadata).toEqual({ pinned: true, title: 'Trip plans' });
    expect((await (await patch(acme, { pinned: null })).json()).metadata).toEqual({ title: 'Trip plans' });
    const foreign = await patch(globex, { title: 'hijacked' });
    expect(foreign.status).toBe(404);
    expect((await patch(acme, 'not an object')).status).toBe(400);
    expect((await acme.read('/threads')).threads.find((t: { id: string }) => t.id === 'titled').metadata).toEqual({ title: 'Trip plans' });
    // Another tenant's thread by the same name is its own; its chat never shows acme's branches.
    expect((await globex.post('/chat/regen/version', { messageId: 'x' })).status).toBe(404);
    expect(await messages(globex, 'regen')).toEqual([]);
  });

  it('a reply canceled mid-text stays in the thread as far as it went, marked stopped; a regenerate answers the prompt again', async () => {
    const { canceled, ended } = await stopStory('slow-stop', 'w5 ');
    expect(canceled).toBe(202);
    expect(ended.status).toBe('canceled');
    const stopped = await messages(acme, 'slow-stop');
    expect(stopped.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(stopped[1].metadata).toEqual({ stopped: true });
    const said = texts(stopped)[1];
    expect(said.startsWith('w1 w2 w3 w4 w5 ')).toBe(true);
    expect(said.length).toBeLessThan(storyWords(5000).join('').length);
    // Read again, it is the same: the run's events are what it was made of.
    expect(await messages(acme, 'slow-stop')).toEqual(stopped);
    const again = await acme.post('/chat', {
      id: 'slow-stop',
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'story 5000' }] }],
      trigger: 'regenerate-message',
    });
    expect(again.status).toBe(200);
    const second = again.headers.get('x-run-id')!;
    const secondStream = sseReader(await acme.get(`/runs/${second}/stream`));
    await waitForEvent(secondStream, (e) => e.data.kind === 'text_delta' && e.data.delta.includes('w2 '));
    await acme.post(`/runs/${second}/cancel`);
    await again.text();
    await secondStream.cancel();
    // The newest run is the one shown: the second stopped reply, in place of the first.
    const after = await messages(acme, 'slow-stop');
    expect(after.map((m) => m.id)).toEqual([stopped[0].id, `${second}-stopped`]);
    expect(texts(after)[1].startsWith('w1 w2 ')).toBe(true);
  });

  it('a canceled run’s result is its own partial text, not the answer of the run before it', async () => {
    const earlier = await chat(acme, 'slow-result', 'hello');
    const answered = texts(earlier)[1];
    expect(answered.length).toBeGreaterThan(0);
    const { run, canceled, ended } = await stopStory('slow-result', 'w3 ');
    expect(canceled).toBe(202);
    expect(ended.status).toBe('canceled');
    expect(ended.result.text.startsWith('w1 w2 w3 ')).toBe(true);
    expect(ended.result.text).not.toContain(answered);
    expect((await acme.read(`/runs/${run}`)).result.text).toBe(ended.result.text);
  });

  it('says what the session store could not read back: a damaged line is skipped and named', async () => {
    await chat(acme, 'damaged', 'one');
    await chat(acme, 'damaged', 'two');
    expect((await acme.read('/chat/damaged/messages')).problems).toEqual([]);
    const file = join(dir, 'data', 'tenants', 'acme', 'sessions', 'damaged.jsonl');
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines[1] = '{"this line": "was damaged';
    await writeFile(file, lines.join('\n'));
    const { problems } = await acme.read('/chat/damaged/messages');
    expect(problems.join(' ')).toMatch(/damaged line\(s\) were skipped: line 2/);
  });
});
