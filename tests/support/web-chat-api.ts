// The web example's HTTP API as its page calls it (same origin, JSON, the browser's cookie), and what
// a test checks of the session a conversation left behind.
import Anthropic from '@anthropic-ai/sdk';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startWebChat, type WebChat } from '../../examples/web-chat/server/app.js';
import { DEMO_MODEL_ID } from '../../src/demo/index.js';
import type { Turn } from '../../src/runtime/contract/turn.js';
import type { SessionGraph } from '../../src/runtime/store/index.js';

/**
 * The example's server in this process, talking to a demo model: on files under `dir` (page/, server/,
 * workspace/), or with `database` on PostgreSQL (migrated by the caller), executing runs itself.
 */
export function startExampleChat(dir: string, model: { baseURL: string }, database?: { url: string; schema: string }): Promise<WebChat> {
  return startWebChat({
    pageDir: join(dir, 'page'),
    dataDir: join(dir, 'server'),
    workspaceDir: join(dir, 'workspace'),
    client: new Anthropic({ baseURL: model.baseURL, apiKey: 'offline-demo', maxRetries: 0 }),
    model: DEMO_MODEL_ID,
    ...(database !== undefined && { database: database.url, schema: database.schema }),
  });
}

/**
 * A stand-in for the built page under `dir/page`, for tests that call the API only: loading the page is
 * what hands a browser its cookie, and building it with Vite would take seconds they do not need.
 */
export async function standInPage(dir: string): Promise<void> {
  await mkdir(join(dir, 'page'), { recursive: true });
  await writeFile(join(dir, 'page', 'index.html'), '<!doctype html><title>web chat</title>');
}

/** The headers the page's own fetches carry: its origin, JSON, the browser's cookie. */
export function fromPage(url: string, cookie: string): Record<string, string> {
  return { origin: new URL(url).origin, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json', cookie };
}

export function post(server: { url: string }, cookie: string, path: string, body: unknown): Promise<Response> {
  return fetch(new URL(path, server.url), { method: 'POST', headers: fromPage(server.url, cookie), body: JSON.stringify(body) });
}

/** A chunk of the UI message stream, as `useChat` reads it (`type` and its fields). */
export type Chunk = { type: string; [field: string]: any };

/** The body `useChat` posts for a prompt (only the last message, as the page's transport sends it). */
export function promptBody(conversation: string, text: string, extra: { trigger?: string; messageId?: string } = {}): unknown {
  return {
    id: conversation,
    messages: [{ id: 'typed', role: 'user', parts: [{ type: 'text', text }] }],
    trigger: 'submit-message',
    ...extra,
  };
}

/** The body `useChat` posts after `addToolApprovalResponse`: the assistant message with its answered calls. */
export function decisionsBody(conversation: string, decisions: Array<{ call: string; approved: boolean; reason?: string }>): unknown {
  const parts = decisions.map(({ call, approved, reason }) => ({
    type: 'dynamic-tool',
    toolName: 'files.write',
    toolCallId: call,
    state: 'approval-responded',
    input: {},
    approval: { id: call, approved, ...(reason !== undefined && { reason }) },
  }));
  return { id: conversation, messages: [{ id: 'reply', role: 'assistant', parts }], trigger: 'submit-message' };
}

export function prompt(
  server: { url: string },
  cookie: string,
  conversation: string,
  text: string,
  extra?: { trigger?: string; messageId?: string },
) {
  return post(server, cookie, '/api/chat', promptBody(conversation, text, extra));
}

/** The SSE `data:` payloads of a UI message stream, in order. */
export function events(body: string): string[] {
  return body
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      expect(frame.startsWith('data: ')).toBe(true);
      return frame.slice('data: '.length);
    });
}

/** A streamed reply, read whole; it must have ended with `finish` and `[DONE]`, not an error. */
export async function reply(response: Response): Promise<Chunk[]> {
  expect(response.status).toBe(200);
  const data = events(await response.text());
  expect(data.at(-1)).toBe('[DONE]');
  const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Chunk);
  expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
  return chunks;
}

/** What became of each tool call a reply made, by call id: its name, input and last state. */
export type CallOutcome = { name: string; input: unknown; state: 'running' | 'waiting' | 'done' | 'failed' | 'denied'; output?: unknown };

export function calls(chunks: Chunk[]): Map<string, CallOutcome> {
  const seen = new Map<string, CallOutcome>();
  for (const chunk of chunks) {
    const call = seen.get(chunk.toolCallId);
    if (chunk.type === 'tool-input-available') seen.set(chunk.toolCallId, { name: chunk.toolName, input: chunk.input, state: 'running' });
    else if (call === undefined) continue;
    else if (chunk.type === 'tool-approval-request') call.state = 'waiting';
    else if (chunk.type === 'tool-output-available') Object.assign(call, { state: 'done', output: chunk.output });
    else if (chunk.type === 'tool-output-error') Object.assign(call, { state: 'failed', output: chunk.errorText });
    else if (chunk.type === 'tool-output-denied') call.state = 'denied';
  }
  return seen;
}

/** The text a reply streamed, joined. */
export const textOf = (chunks: Chunk[]) =>
  chunks
    .filter((chunk) => chunk.type === 'text-delta')
    .map((chunk) => chunk.delta as string)
    .join('');

/** A thread as the page reads it (`GET /api/chat/{id}/messages`): `{ messages, problems }`. */
export async function thread(server: { url: string }, cookie: string, conversation: string): Promise<{ status: number; body: any }> {
  const response = await fetch(new URL(`/api/chat/${conversation}/messages`, server.url), { headers: fromPage(server.url, cookie) });
  return { status: response.status, body: await response.json() };
}

/** A new browser's first visit: loading the page hands out its cookie; its first conversation gets a fresh id, as the page picks one. */
export async function newBrowser(server: { url: string }): Promise<{ cookie: string; conversation: string }> {
  const response = await fetch(server.url);
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  const cookie = response.headers.get('set-cookie')!.split(';')[0];
  return { cookie, conversation: randomUUID() };
}

/** The tenant (and user) the example's server names a browser: a hash of its cookie's token. */
export function browserName(cookie: string): string {
  const token = cookie.slice(cookie.indexOf('=') + 1);
  return `web-${createHash('sha256').update(token).digest('hex').slice(0, 32)}`;
}

/** Where a browser's session files are, on files. */
export function browserSessions(dir: string, cookie: string): string {
  return join(dir, 'server', 'tenants', browserName(cookie), 'sessions');
}

/** The prompts a thread shows, in order. */
export const shownPrompts = (body: { messages: Array<{ role: string; parts: Array<{ type: string; text?: string }> }> }) =>
  body.messages.filter((message) => message.role === 'user').map((message) => message.parts.map((part) => part.text ?? '').join(''));

export const userTexts = (turns: Turn[]) =>
  turns
    .filter((turn) => turn.role === 'user')
    .flatMap((turn) => turn.blocks.flatMap((block) => (block.kind === 'text' ? [block.text] : [])));

/** The stored session is one line: every node has at most one child, one tip, and every node is on its path. */
export function expectLinear(graph: SessionGraph): Turn[] {
  const nodes = [...graph.allNodes()];
  for (const node of nodes) expect(graph.children(node.id).length).toBeLessThanOrEqual(1);
  expect(graph.children(null)).toHaveLength(1);
  expect(graph.tips()).toHaveLength(1);
  const path = graph.pathTo(graph.tips()[0].id);
  expect(path).toHaveLength(nodes.length);
  return path;
}
