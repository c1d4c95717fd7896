import Anthropic from '@anthropic-ai/sdk';
import { request as httpRequest } from 'node:http';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL_ID, startDemoModel } from '../../src/demo/index.js';
import type { DemoModel } from '../../src/demo/index.js';
import { startWebChat } from '../../examples/web-chat/server/app.js';
import type { WebChat } from '../../examples/web-chat/server/app.js';
import { decisionsBody, events, promptBody } from '../support/web-chat-api.js';

// The web example's server against what another site, a DNS-rebinding page or a second visitor can
// send it: real HTTP requests (node:http, so Host can be forged) to the real server and demo model.
let dir: string;
let demo: DemoModel;
let chat: WebChat;
let port: number;

type Reply = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

function send(
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: string; setHost?: boolean } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: opts.headers, setHost: opts.setHost }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const json = { 'content-type': 'application/json' };
/** What a page would post to make the chat write a file: a prompt, and the approval of a call. */
const pwn = JSON.stringify(promptBody('', 'write pwned to x.txt'));
const approveIt = (conversation: string, call: string) => JSON.stringify(decisionsBody(conversation, [{ call, approved: true }]));

/** A browser's first visit: the thread call the page makes, which hands out the session cookie. */
async function newBrowser(): Promise<{ cookie: string; setCookie: string }> {
  const reply = await send('GET', '/api/thread');
  expect(reply.status).toBe(200);
  const setCookie = String(reply.headers['set-cookie']);
  return { cookie: setCookie.split(';')[0], setCookie };
}

/** What the page's own fetches look like: same origin, JSON, the browser's cookie. */
const fromPage = (cookie: string) => ({ ...json, cookie, origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' });

async function storedSessions(): Promise<string[]> {
  return existsSync(join(dir, 'sessions')) ? (await readdir(join(dir, 'sessions'))).filter((n) => n.endsWith('.jsonl')) : [];
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-web-chat-security-'));
  await mkdir(join(dir, 'page'));
  await writeFile(join(dir, 'page', 'index.html'), '<!doctype html><title>page</title>');
  await mkdir(join(dir, 'workspace'));
  demo = await startDemoModel({ chunkDelayMs: 0 });
  chat = await startWebChat({
    pageDir: join(dir, 'page'),
    sessionsDir: join(dir, 'sessions'),
    workspaceDir: join(dir, 'workspace'),
    client: new Anthropic({ baseURL: demo.baseURL, apiKey: 'offline-demo', maxRetries: 0 }),
    model: DEMO_MODEL_ID,
  });
  port = Number(new URL(chat.url).port);
});

afterAll(async () => {
  await chat?.close();
  await demo?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('DNS rebinding: a Host that is not this server', () => {
  for (const host of ['evil.example', 'evil.example:PORT', '127.0.0.1.evil.example:PORT', 'localhost:1', '127.0.0.1']) {
    it(`refuses Host ${JSON.stringify(host)} on the page and the API, and runs nothing`, async () => {
      const headers = { host: host.replace('PORT', String(port)) };
      for (const [method, path, body] of [
        ['GET', '/', undefined],
        ['GET', '/api/thread', undefined],
        ['POST', '/api/chat', pwn],
        ['POST', '/api/chat', approveIt('', 'toolu_x')],
        ['POST', '/api/branch', '{"conversation":"web-x","message":"x"}'],
        ['POST', '/api/conversations/rename', '{"conversation":"web-x","title":"x"}'],
        ['POST', '/api/conversations/delete', '{"conversation":"web-x"}'],
      ] as const) {
        const reply = await send(method, path, { headers: { ...json, ...headers }, body });
        expect(reply.status).toBe(403);
        expect(JSON.parse(reply.body)).toMatchObject({ kind: 'forbidden_host' });
      }
      expect(await storedSessions()).toEqual([]);
    });
  }

  it('refuses a request without any Host', async () => {
    const reply = await send('POST', '/api/chat', { headers: json, body: pwn, setHost: false });
    expect([400, 403]).toContain(reply.status);
    expect(await storedSessions()).toEqual([]);
  });

  it('serves the names it is reached by: 127.0.0.1 and localhost on its port', async () => {
    expect((await send('GET', '/', { headers: { host: `127.0.0.1:${port}` } })).status).toBe(200);
    expect((await send('GET', '/', { headers: { host: `localhost:${port}` } })).status).toBe(200);
  });
});

describe('cross-site requests', () => {
  for (const origin of [
    'http://evil.example',
    'null',
    'http://localhost:1',
    'https://127.0.0.1:PORT',
    'http://127.0.0.1:PORT.evil.example',
  ]) {
    it(`refuses Origin ${origin} on every API call, even with this browser's cookie`, async () => {
      const { cookie } = await newBrowser();
      const headers = { ...fromPage(cookie), origin: origin.replace('PORT', String(port)) };
      expect((await send('GET', '/api/thread', { headers })).status).toBe(403);
      const chatReply = await send('POST', '/api/chat', { headers, body: pwn });
      expect(chatReply.status).toBe(403);
      expect(JSON.parse(chatReply.body)).toMatchObject({ kind: 'forbidden_origin' });
      expect(await readdir(join(dir, 'workspace'))).toEqual([]);
    });
  }

  it('refuses a request the browser marks cross-site or same-site (another port) even without an Origin', async () => {
    const { cookie } = await newBrowser();
    for (const site of ['cross-site', 'same-site']) {
      const reply = await send('POST', '/api/chat', { headers: { ...json, cookie, 'sec-fetch-site': site }, body: pwn });
      expect(reply.status).toBe(403);
    }
  });

  for (const type of [
    'text/plain',
    'text/plain;charset=UTF-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    undefined,
  ]) {
    it(`refuses a ${type ?? 'missing'} content type: only JSON, which no page can send cross-site without a preflight`, async () => {
      const { cookie } = await newBrowser();
      const headers: Record<string, string> = { cookie, origin: `http://127.0.0.1:${port}` };
      if (type !== undefined) headers['content-type'] = type;
      const reply = await send('POST', '/api/chat', { headers, body: pwn });
      expect(reply.status).toBe(415);
      expect(JSON.parse(reply.body)).toMatchObject({ kind: 'unsupported_media_type' });
      expect(await readdir(join(dir, 'workspace'))).toEqual([]);
    });
  }

  it('accepts JSON from the page itself, with a charset or in capitals', async () => {
    const { cookie } = await newBrowser();
    for (const type of ['application/json', 'Application/JSON; charset=utf-8']) {
      const reply = await send('POST', '/api/chat', {
        headers: { ...fromPage(cookie), 'content-type': type },
        body: JSON.stringify(promptBody('', 'help')),
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toContain('offline demo model');
    }
  });
});

describe('one conversation per browser', () => {
  it('hands each browser an unguessable HttpOnly, SameSite=Strict cookie', async () => {
    const a = await newBrowser();
    const b = await newBrowser();
    expect(a.setCookie).toMatch(/^[\w-]+=[\w-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    expect(a.cookie).not.toBe(b.cookie);
  });

  it("a second browser without the cookie sees none of the first one's conversation, and cannot approve its calls", async () => {
    const first = await newBrowser();
    const asked = await send('POST', '/api/chat', {
      headers: fromPage(first.cookie),
      body: JSON.stringify(promptBody('', 'write secret plans to plans.txt')),
    });
    const approvalId = /"approvalId":"([^"]+)"/.exec(asked.body)![1];
    const firstThread = JSON.parse((await send('GET', '/api/thread', { headers: fromPage(first.cookie) })).body) as { messages: unknown[] };
    expect(JSON.stringify(firstThread)).toContain('secret plans');

    const second = await newBrowser();
    expect(second.cookie).not.toBe(first.cookie);
    const secondThread = await send('GET', '/api/thread', { headers: fromPage(second.cookie) });
    expect(JSON.parse(secondThread.body)).toEqual({
      conversation: expect.stringMatching(/^web-[0-9a-f]{32}$/),
      messages: [],
      problems: [],
    });
    const stolen = await send('POST', '/api/chat', { headers: fromPage(second.cookie), body: approveIt('', approvalId) });
    const ended = events(stolen.body)
      .slice(0, -1)
      .map((data) => JSON.parse(data) as { type: string; errorText?: string });
    expect(ended.find((chunk) => chunk.type === 'error')?.errorText).toBe(`No pending tool call with approval id "${approvalId}".`);
    expect(existsSync(join(dir, 'workspace', 'plans.txt'))).toBe(false);

    // A made-up cookie is just another new browser, not a way into someone's conversation.
    const forged = await send('GET', '/api/thread', {
      headers: { ...fromPage('indusagi_web_chat=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') },
    });
    expect(JSON.parse(forged.body)).toEqual({
      conversation: expect.stringMatching(/^web-[0-9a-f]{32}$/),
      messages: [],
      problems: [],
    });
  });

  it("a browser can neither open, prompt nor list another browser's conversations, whatever id it names", async () => {
    const owner = await newBrowser();
    const started = await send('POST', '/api/conversations', { headers: fromPage(owner.cookie), body: '{}' });
    const { id } = JSON.parse(started.body) as { id: string };
    expect(id).toMatch(/^web-[0-9a-f]{32}-[0-9a-f]{16}$/);
    await send('POST', '/api/chat', { headers: fromPage(owner.cookie), body: JSON.stringify(promptBody(id, 'private notes')) });
    const ownerList = JSON.parse((await send('GET', '/api/conversations', { headers: fromPage(owner.cookie) })).body) as {
      conversations: Array<{ id: string; title: string }>;
    };
    expect(ownerList.conversations.map((c) => [c.id, c.title])).toEqual([[id, 'private notes']]);

    const other = await newBrowser();
    const ownersFirst = id.slice(0, -17);
    for (const named of [id, ownersFirst, '../sessions/x', 'web-../../etc', `${id}-x`]) {
      const query = `conversation=${encodeURIComponent(named)}`;
      const thread = await send('GET', `/api/thread?${query}`, { headers: fromPage(other.cookie) });
      expect([thread.status, JSON.parse(thread.body).kind], named).toEqual([404, 'unknown_conversation']);
      const prompt = await send('POST', '/api/chat', { headers: fromPage(other.cookie), body: JSON.stringify(promptBody(named, 'hi')) });
      expect(prompt.status, named).toBe(404);
      for (const [path, body] of [
        ['/api/conversations/rename', { conversation: named, title: 'mine now' }],
        ['/api/conversations/delete', { conversation: named }],
        ['/api/branch', { conversation: named, message: 'x' }],
      ] as const) {
        const refused = await send('POST', path, { headers: fromPage(other.cookie), body: JSON.stringify(body) });
        expect([refused.status, JSON.parse(refused.body).kind], `${path} ${named}`).toEqual([404, 'unknown_conversation']);
      }
    }
    const otherList = JSON.parse((await send('GET', '/api/conversations', { headers: fromPage(other.cookie) })).body) as {
      conversations: unknown[];
    };
    expect(otherList.conversations).toEqual([]);
  });

  it('refuses a chat, an approval or a change to the list from a browser that has no session yet', async () => {
    for (const [path, body] of [
      ['/api/chat', pwn],
      ['/api/chat', approveIt('', 'x')],
      ['/api/branch', '{"conversation":"","message":"x"}'],
      ['/api/conversations/rename', '{"conversation":"","title":"x"}'],
      ['/api/conversations/delete', '{"conversation":""}'],
    ]) {
      const reply = await send('POST', path, { headers: { ...json, origin: `http://127.0.0.1:${port}` }, body });
      expect(reply.status).toBe(401);
      expect(JSON.parse(reply.body)).toMatchObject({ kind: 'no_session' });
    }
  });
});

describe('what a page can name in a request', () => {
  const thread = async (cookie: string, conversation = '') =>
    JSON.parse((await send('GET', `/api/thread?conversation=${conversation}`, { headers: fromPage(cookie) })).body) as {
      conversation: string;
      messages: Array<{ role: string; metadata: { node?: string } }>;
    };

  it("a decision whose approval id is not its call's is refused with 400, and nothing runs", async () => {
    const { cookie } = await newBrowser();
    const asked = await send('POST', '/api/chat', {
      headers: fromPage(cookie),
      body: JSON.stringify(promptBody('', 'write owned to owned.txt')),
    });
    const call = /"approvalId":"([^"]+)"/.exec(asked.body)![1];
    for (const [toolCallId, id] of [
      ['a_call_the_page_never_showed', call],
      [call, 'a_call_the_page_never_showed'],
    ]) {
      const body = JSON.stringify({
        messages: [
          {
            role: 'assistant',
            parts: [
              {
                type: 'dynamic-tool',
                toolName: 'files.write',
                toolCallId,
                state: 'approval-responded',
                input: {},
                approval: { id, approved: true },
              },
            ],
          },
        ],
      });
      const refused = await send('POST', '/api/chat', { headers: fromPage(cookie), body });
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body)).toMatchObject({ kind: 'bad_request', message: expect.stringContaining('names another call') });
    }
    expect(existsSync(join(dir, 'workspace', 'owned.txt'))).toBe(false);
  });

  it("an edit, a regenerate or a version switch naming another conversation's message is refused with 404, and moves nothing", async () => {
    const owner = await newBrowser();
    for (const text of ['list files', 'what time is it?'])
      await send('POST', '/api/chat', { headers: fromPage(owner.cookie), body: JSON.stringify(promptBody('', text)) });
    const owners = (await thread(owner.cookie)).messages.map((message) => message.metadata.node!);
    expect(owners).toHaveLength(4);

    const other = await newBrowser();
    await send('POST', '/api/chat', { headers: fromPage(other.cookie), body: JSON.stringify(promptBody('', 'help')) });
    const before = await thread(other.cookie);
    for (const node of [...owners, 'after-x', '../x']) {
      const edit = await send('POST', '/api/chat', {
        headers: fromPage(other.cookie),
        body: JSON.stringify(promptBody('', 'hi', { messageId: node })),
      });
      const again = await send('POST', '/api/chat', {
        headers: fromPage(other.cookie),
        body: JSON.stringify(promptBody('', 'help', { trigger: 'regenerate-message', messageId: node })),
      });
      const shown = await send('POST', '/api/branch', {
        headers: fromPage(other.cookie),
        body: JSON.stringify({ conversation: before.conversation, message: node }),
      });
      for (const refused of [edit, again, shown])
        expect([refused.status, JSON.parse(refused.body).kind], node).toEqual([404, 'unknown_message']);
    }
    expect(await thread(other.cookie)).toEqual(before);
  });

  it.each([
    ['an empty title', ''],
    ['a title that is not text', 42],
    ['a title of 201 characters', 'x'.repeat(201)],
  ])('refuses to rename a conversation to %s', async (_, title) => {
    const { cookie } = await newBrowser();
    const { conversation } = await thread(cookie);
    const refused = await send('POST', '/api/conversations/rename', {
      headers: fromPage(cookie),
      body: JSON.stringify({ conversation, title }),
    });
    expect([refused.status, JSON.parse(refused.body).kind]).toEqual([400, 'bad_request']);
  });
});

describe('static paths that cannot name a file of the page', () => {
  for (const [path, status] of [
    ['/%E0%A4%A', 400],
    ['/%', 400],
    ['/%00', 404],
    ['/index.html%00.js', 404],
    ['/index.html/x', 404],
    [`/${'n'.repeat(300)}`, 404],
  ] as const) {
    it(`answers ${path.slice(0, 20)} with ${status}, not 500`, async () => {
      expect((await send('GET', path)).status).toBe(status);
    });
  }
});
