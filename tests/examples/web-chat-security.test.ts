import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startDemoModel } from '../../src/demo/index.js';
import type { DemoModel } from '../../src/demo/index.js';
import type { WebChat } from '../../examples/web-chat/server/app.js';
import { decisionsBody, promptBody, standInPage, startExampleChat } from '../support/web-chat-api.js';

// The web example's server against what another site, a DNS-rebinding page or a second visitor can
// send it: real HTTP requests (node:http, so Host can be forged) to the real server (the agent server
// under /api, each browser its own tenant) and demo model.
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
const pwn = JSON.stringify(promptBody('web-x', 'write pwned to x.txt'));
const approveIt = (conversation: string, call: string) => JSON.stringify(decisionsBody(conversation, [{ call, approved: true }]));

/** A browser's first visit: loading the page hands out its cookie. */
async function newBrowser(): Promise<{ cookie: string; setCookie: string }> {
  const reply = await send('GET', '/');
  expect(reply.status).toBe(200);
  const setCookie = String(reply.headers['set-cookie']);
  return { cookie: setCookie.split(';')[0], setCookie };
}

/** What the page's own fetches look like: same origin, JSON, the browser's cookie. */
const fromPage = (cookie: string) => ({ ...json, cookie, origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' });

/** Every session file the server keeps, whichever browser's (each tenant's under server/tenants). */
async function storedSessions(): Promise<string[]> {
  const server = join(dir, 'server');
  if (!existsSync(server)) return [];
  return (await readdir(server, { recursive: true })).filter((name) => name.endsWith('.jsonl'));
}

/** What a refusal says: `{ error: { kind, message } }`. */
const refusal = (reply: Reply) => (JSON.parse(reply.body) as { error: { kind: string; message: string } }).error;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-web-chat-security-'));
  await standInPage(dir);
  await mkdir(join(dir, 'workspace'));
  demo = await startDemoModel({ chunkDelayMs: 0 });
  chat = await startExampleChat(dir, demo);
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
        ['GET', '/api/threads', undefined],
        ['GET', '/api/chat/web-x/messages', undefined],
        ['POST', '/api/chat', pwn],
        ['POST', '/api/chat', approveIt('web-x', 'toolu_x')],
        ['POST', '/api/threads', '{"id":"web-x"}'],
        ['POST', '/api/chat/web-x/version', '{"messageId":"x"}'],
        ['PATCH', '/api/threads/web-x', '{"metadata":{"title":"x"}}'],
        ['DELETE', '/api/threads/web-x', undefined],
      ] as const) {
        const reply = await send(method, path, { headers: { ...json, ...headers }, body });
        expect(reply.status).toBe(403);
        expect(refusal(reply)).toMatchObject({ kind: 'forbidden_host' });
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
      expect((await send('GET', '/api/threads', { headers })).status).toBe(403);
      const chatReply = await send('POST', '/api/chat', { headers, body: pwn });
      expect(chatReply.status).toBe(403);
      expect(refusal(chatReply)).toMatchObject({ kind: 'forbidden_origin' });
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
      expect(refusal(reply)).toMatchObject({ kind: 'unsupported_media_type' });
      expect(await readdir(join(dir, 'workspace'))).toEqual([]);
    });
  }

  it('accepts JSON from the page itself, with a charset or in capitals', async () => {
    const { cookie } = await newBrowser();
    for (const type of ['application/json', 'Application/JSON; charset=utf-8']) {
      const reply = await send('POST', '/api/chat', {
        headers: { ...fromPage(cookie), 'content-type': type },
        body: JSON.stringify(promptBody(randomUUID(), 'help')),
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
    const conversation = randomUUID();
    const asked = await send('POST', '/api/chat', {
      headers: fromPage(first.cookie),
      body: JSON.stringify(promptBody(conversation, 'write secret plans to plans.txt')),
    });
    const approvalId = /"approvalId":"([^"]+)"/.exec(asked.body)![1];
    const messages = `/api/chat/${conversation}/messages`;
    expect((await send('GET', messages, { headers: fromPage(first.cookie) })).body).toContain('secret plans');

    const second = await newBrowser();
    expect(second.cookie).not.toBe(first.cookie);
    expect(JSON.parse((await send('GET', messages, { headers: fromPage(second.cookie) })).body)).toEqual({ messages: [], problems: [] });
    expect(JSON.parse((await send('GET', '/api/threads', { headers: fromPage(second.cookie) })).body)).toEqual({ threads: [] });
    const stolen = await send('POST', '/api/chat', { headers: fromPage(second.cookie), body: approveIt(conversation, approvalId) });
    expect([stolen.status, refusal(stolen).kind]).toEqual([409, 'approval_not_pending']);
    expect(existsSync(join(dir, 'workspace', 'plans.txt'))).toBe(false);
    // The first browser's call still waits for its own decision.
    const state = JSON.parse((await send('GET', `/api/threads/${conversation}`, { headers: fromPage(first.cookie) })).body) as {
      thread: { pendingApprovals: Array<{ approvalId: string }> };
    };
    expect(state.thread.pendingApprovals.map((p) => p.approvalId)).toEqual([approvalId]);

    // A made-up cookie is just another new browser, not a way into someone's conversation.
    const forged = fromPage('indusagi_web_chat=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(JSON.parse((await send('GET', messages, { headers: forged })).body)).toEqual({ messages: [], problems: [] });
    expect(JSON.parse((await send('GET', '/api/threads', { headers: forged })).body)).toEqual({ threads: [] });
  });

  it("a browser can neither open, change nor list another browser's conversations, whatever id it names", async () => {
    const owner = await newBrowser();
    const id = randomUUID();
    const started = await send('POST', '/api/threads', {
      headers: fromPage(owner.cookie),
      body: JSON.stringify({ id, metadata: { title: 'private notes' } }),
    });
    expect(started.status).toBe(201);
    await send('POST', '/api/chat', { headers: fromPage(owner.cookie), body: JSON.stringify(promptBody(id, 'private notes')) });
    const ownerList = async () =>
      (
        JSON.parse((await send('GET', '/api/threads', { headers: fromPage(owner.cookie) })).body) as {
          threads: Array<{ id: string; metadata: { title?: string } }>;
        }
      ).threads.map((c) => [c.id, c.metadata.title]);
    expect(await ownerList()).toEqual([[id, 'private notes']]);
    const ownerThread = (await send('GET', `/api/chat/${id}/messages`, { headers: fromPage(owner.cookie) })).body;

    const other = await newBrowser();
    // Ids the other browser has no thread by answer 404; names no thread can have, 400: never another tenant's thread.
    for (const [named, status] of [
      [id, 404],
      [`${id}-x`, 404],
      [encodeURIComponent('../sessions/x'), 400],
      [encodeURIComponent('web-../../etc'), 400],
    ] as const) {
      const as = fromPage(other.cookie);
      const shown = await send('GET', `/api/chat/${named}/messages`, { headers: as });
      if (status === 404) expect(JSON.parse(shown.body), named).toEqual({ messages: [], problems: [] });
      else expect(shown.status, named).toBe(400);
      for (const [method, path, body] of [
        ['GET', `/api/threads/${named}`, undefined],
        ['GET', `/api/threads/${named}/history`, undefined],
        ['PATCH', `/api/threads/${named}`, { metadata: { title: 'mine now' } }],
        ['DELETE', `/api/threads/${named}`, undefined],
        ['POST', `/api/chat/${named}/version`, { messageId: 'x' }],
      ] as const) {
        const refused = await send(method, path, { headers: as, body: body === undefined ? undefined : JSON.stringify(body) });
        expect([refused.status, refusal(refused).kind], `${method} ${path}`).toEqual([
          status,
          status === 404 ? 'not_found' : 'bad_request',
        ]);
      }
    }
    // Prompting the owner's id makes a conversation of the other browser's own: the owner's is untouched.
    const prompt = await send('POST', '/api/chat', { headers: fromPage(other.cookie), body: JSON.stringify(promptBody(id, 'hi')) });
    expect(prompt.status).toBe(200);
    expect(prompt.body).not.toContain('private notes');
    expect((await send('GET', `/api/chat/${id}/messages`, { headers: fromPage(owner.cookie) })).body).toBe(ownerThread);
    expect(await ownerList()).toEqual([[id, 'private notes']]);
    const otherList = JSON.parse((await send('GET', '/api/threads', { headers: fromPage(other.cookie) })).body) as {
      threads: Array<{ id: string; metadata: Record<string, unknown> }>;
    };
    expect(otherList.threads.map((c) => [c.id, c.metadata])).toEqual([[id, {}]]);
  });

  it('refuses every API call from a browser that has no cookie yet', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/threads', undefined],
      ['POST', '/api/chat', pwn],
      ['POST', '/api/chat', approveIt('web-x', 'x')],
      ['POST', '/api/threads', '{}'],
      ['POST', '/api/chat/web-x/version', '{"messageId":"x"}'],
      ['PATCH', '/api/threads/web-x', '{"metadata":{"title":"x"}}'],
      ['DELETE', '/api/threads/web-x', undefined],
    ] as const) {
      const reply = await send(method, path, { headers: { ...json, origin: `http://127.0.0.1:${port}` }, body });
      expect(reply.status, `${method} ${path}`).toBe(401);
      expect(refusal(reply)).toMatchObject({ kind: 'unauthorized' });
    }
    expect(await readdir(join(dir, 'workspace'))).toEqual([]);
  });
});

describe('what a page can name in a request', () => {
  const thread = async (cookie: string, conversation: string) =>
    JSON.parse((await send('GET', `/api/chat/${conversation}/messages`, { headers: fromPage(cookie) })).body) as {
      messages: Array<{ role: string; metadata: { node?: string } }>;
    };

  it("a decision whose approval id is not its call's is refused with 400, and nothing runs", async () => {
    const { cookie } = await newBrowser();
    const conversation = randomUUID();
    const asked = await send('POST', '/api/chat', {
      headers: fromPage(cookie),
      body: JSON.stringify(promptBody(conversation, 'write owned to owned.txt')),
    });
    const call = /"approvalId":"([^"]+)"/.exec(asked.body)![1];
    for (const [toolCallId, id] of [
      ['a_call_the_page_never_showed', call],
      [call, 'a_call_the_page_never_showed'],
    ]) {
      const body = JSON.stringify({
        id: conversation,
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
      expect(refusal(refused)).toMatchObject({ kind: 'bad_request', message: expect.stringContaining('names another call') });
    }
    expect(existsSync(join(dir, 'workspace', 'owned.txt'))).toBe(false);
  });

  it("an edit, a regenerate or a version switch naming another conversation's message is refused with 404, and moves nothing", async () => {
    const owner = await newBrowser();
    const ownerConversation = randomUUID();
    for (const text of ['list files', 'what time is it?'])
      await send('POST', '/api/chat', { headers: fromPage(owner.cookie), body: JSON.stringify(promptBody(ownerConversation, text)) });
    const owners = (await thread(owner.cookie, ownerConversation)).messages.map((message) => message.metadata.node!);
    expect(owners).toHaveLength(4);

    const other = await newBrowser();
    const conversation = randomUUID();
    await send('POST', '/api/chat', { headers: fromPage(other.cookie), body: JSON.stringify(promptBody(conversation, 'help')) });
    const before = await thread(other.cookie, conversation);
    for (const node of [...owners, 'after-x', '../x']) {
      const edit = await send('POST', '/api/chat', {
        headers: fromPage(other.cookie),
        body: JSON.stringify(promptBody(conversation, 'hi', { messageId: node })),
      });
      const again = await send('POST', '/api/chat', {
        headers: fromPage(other.cookie),
        body: JSON.stringify(promptBody(conversation, 'help', { trigger: 'regenerate-message', messageId: node })),
      });
      const shown = await send('POST', `/api/chat/${conversation}/version`, {
        headers: fromPage(other.cookie),
        body: JSON.stringify({ messageId: node }),
      });
      for (const refused of [edit, again, shown]) expect([refused.status, refusal(refused).kind], node).toEqual([404, 'not_found']);
    }
    expect(await thread(other.cookie, conversation)).toEqual(before);
  });

  it.each([
    ['an empty title', ''],
    ['a title that is not text', 42],
    ['a title of 201 characters', 'x'.repeat(201)],
  ])('refuses to name or rename a conversation with %s', async (_, title) => {
    const { cookie } = await newBrowser();
    const conversation = randomUUID();
    const named = await send('POST', '/api/threads', {
      headers: fromPage(cookie),
      body: JSON.stringify({ id: conversation, metadata: { title } }),
    });
    expect([named.status, refusal(named).kind]).toEqual([400, 'bad_request']);
    expect(JSON.parse((await send('GET', '/api/threads', { headers: fromPage(cookie) })).body)).toEqual({ threads: [] });
    await send('POST', '/api/threads', {
      headers: fromPage(cookie),
      body: JSON.stringify({ id: conversation, metadata: { title: 'fine' } }),
    });
    const refused = await send('PATCH', `/api/threads/${conversation}`, {
      headers: fromPage(cookie),
      body: JSON.stringify({ metadata: { title } }),
    });
    expect([refused.status, refusal(refused).kind]).toEqual([400, 'bad_request']);
    const [kept] = (
      JSON.parse((await send('GET', '/api/threads', { headers: fromPage(cookie) })).body) as { threads: Array<{ metadata: unknown }> }
    ).threads;
    expect(kept.metadata).toEqual({ title: 'fine' });
  });
});

describe('a chunked naming body past the 16 KB cap', () => {
  it('is refused with 413 once the cap is passed, not after reading all of it', async () => {
    const { cookie } = await newBrowser();
    // Chunked (no content-length to refuse up front), produced only as fast as the server reads it:
    // what the client had to produce by the time the answer came is what the server read, plus what
    // the sockets buffer between them.
    const TOTAL = 256 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let produced = 0;
    let answered = false;
    const body = new Readable({
      read() {
        if (answered || produced >= TOTAL) return void this.push(null);
        produced += chunk.length;
        this.push(chunk);
      },
    });
    const reply = await new Promise<{ status: number; body: string; producedThen: number }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'PATCH',
          path: '/api/threads/web-big',
          headers: { ...fromPage(cookie), 'transfer-encoding': 'chunked' },
        },
        (res) => {
          answered = true;
          const producedThen = produced;
          let text = '';
          res.setEncoding('utf8').on('data', (part: string) => (text += part));
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode!, body: text, producedThen });
          });
        },
      );
      // Once answered, the server may close the connection on the rest of the body.
      req.on('error', (error) => (answered ? undefined : reject(error)));
      req.write('{"metadata":{"title":"');
      body.pipe(req);
    });
    expect([reply.status, JSON.parse(reply.body).error.kind]).toEqual([413, 'body_too_large']);
    expect(reply.producedThen).toBeLessThan(TOTAL / 8);
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
