// The web example's HTTP API as its page calls it (same origin, JSON, the browser's cookie), and what
// a test checks of the session a conversation left behind.
import Anthropic from '@anthropic-ai/sdk';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startWebChat, type WebChat } from '../../examples/web-chat/server/app.js';
import { DEMO_MODEL_ID } from '../../src/demo/index.js';
import type { Turn } from '../../src/runtime/contract/turn.js';
import type { SessionGraph } from '../../src/runtime/store/index.js';
import type { PartFrame } from '../../src/transport/index.js';

/** The example's server in this process, on files under `dir` (page/, sessions/, workspace/), talking to a demo model. */
export function startExampleChat(dir: string, model: { baseURL: string }): Promise<WebChat> {
  return startWebChat({
    pageDir: join(dir, 'page'),
    sessionsDir: join(dir, 'sessions'),
    workspaceDir: join(dir, 'workspace'),
    client: new Anthropic({ baseURL: model.baseURL, apiKey: 'offline-demo', maxRetries: 0 }),
    model: DEMO_MODEL_ID,
  });
}

/** The headers the page's own fetches carry: its origin, JSON, the browser's cookie. */
export function fromPage(url: string, cookie: string): Record<string, string> {
  return { origin: new URL(url).origin, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json', cookie };
}

export function post(server: { url: string }, cookie: string, path: string, body: unknown): Promise<Response> {
  return fetch(new URL(path, server.url), { method: 'POST', headers: fromPage(server.url, cookie), body: JSON.stringify(body) });
}

async function frames(response: Response): Promise<PartFrame[]> {
  expect(response.status).toBe(200);
  const text = await response.text();
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as PartFrame);
}

/** A streamed reply, read whole; it must have ended with its `end` frame, not an error. */
export async function reply(response: Response): Promise<Array<Extract<PartFrame, { frame: 'part' }>['part']>> {
  const all = await frames(response);
  expect(all.at(-1)).toEqual({ frame: 'end' });
  return all.flatMap((frame) => (frame.frame === 'part' ? [frame.part] : []));
}

export async function thread(server: { url: string }, cookie: string, conversation: string): Promise<{ status: number; body: any }> {
  const response = await fetch(new URL(`/api/thread?conversation=${conversation}`, server.url), { headers: fromPage(server.url, cookie) });
  return { status: response.status, body: await response.json() };
}

/** A new browser's first visit: the thread call the page makes, which hands out its cookie and names its conversation. */
export async function newBrowser(server: { url: string }): Promise<{ cookie: string; conversation: string }> {
  const response = await fetch(new URL('/api/thread', server.url), { headers: { origin: new URL(server.url).origin } });
  expect(response.status).toBe(200);
  const cookie = response.headers.get('set-cookie')!.split(';')[0];
  return { cookie, conversation: ((await response.json()) as { conversation: string }).conversation };
}

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
