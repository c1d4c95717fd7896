import Anthropic from '@anthropic-ai/sdk';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL_ID, startDemoModel } from '../../src/demo/index.js';
import type { DemoModel } from '../../src/demo/index.js';
import { longStory } from '../../src/demo/story.js';
import { startWebChat } from '../../examples/web-chat/server/app.js';
import { haveChromium, launchChromium } from '../support/chromium.js';
import type { WebChat } from '../../examples/web-chat/server/app.js';

// The example end to end: the Vite-built React page in headless Chromium, the example's node:http
// server streaming NDJSON parts from createAgent, the real SDK, and the offline demo model.
const exampleDir = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../examples/web-chat');

let dir: string;
let demo: DemoModel;
let slowDemo: DemoModel | undefined;
let chat: WebChat;
let browser: Browser;
let page: Page;

async function startChat(model: DemoModel = demo): Promise<WebChat> {
  return startWebChat({
    pageDir: join(dir, 'page'),
    sessionsDir: join(dir, 'sessions'),
    workspaceDir: join(dir, 'workspace'),
    client: new Anthropic({ baseURL: model.baseURL, apiKey: 'offline-demo', maxRetries: 0 }),
    model: DEMO_MODEL_ID,
  });
}

describe.skipIf(!haveChromium('web-chat'))('the web-chat example in Chromium', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'indusagi-web-chat-'));
    await mkdir(join(dir, 'workspace'));
    await writeFile(join(dir, 'workspace', 'seed.txt'), 'planted by the test');
    const [browserReady] = await Promise.all([
      // A DNS-rebinding attacker's name, already re-pointed at this machine.
      launchChromium(['--host-resolver-rules=MAP rebind.test 127.0.0.1']),
      build({ configFile: join(exampleDir, 'vite.config.ts'), build: { outDir: join(dir, 'page'), emptyOutDir: true }, logLevel: 'error' }),
    ]);
    browser = browserReady;
    demo = await startDemoModel({ chunkDelayMs: 2 });
    chat = await startChat();
    page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(chat.url);
  });

  afterAll(async () => {
    await browser?.close();
    await chat?.close();
    await demo?.close();
    await slowDemo?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const thread = () => page.locator('ol.thread');
  const replies = () => page.locator('li[data-role="assistant"]');

  async function say(text: string): Promise<void> {
    await page.getByLabel('Message').fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
  }

  /** Waits until the turn is over: the Send button is back. */
  async function settled(): Promise<void> {
    await page.getByRole('button', { name: 'Send' }).waitFor();
  }

    it('streams a reply with a tool rendered by its own component', async () => {
      await say('list files');
      await expect.poll(() => page.locator('li[data-role="user"]').last().textContent()).toBe('list files');
      const card = page.locator('[data-tool="files.list"]');
      await card.waitFor();
      await settled();
      expect(await card.textContent()).toContain('seed.txt');
      expect(await replies().last().textContent()).toMatch(/Listing \..*holds:/s);
      expect(await page.getByLabel('Message').inputValue()).toBe('');
    });

    it('approve: the pending card turns into the written result in place, and the file is written', async () => {
      await say('write hello to notes.txt');
      await page.getByRole('button', { name: 'Approve' }).waitFor();
      await settled();
      expect(existsSync(join(dir, 'workspace', 'notes.txt'))).toBe(false);

      await page.getByRole('button', { name: 'Approve' }).click();
      await page.locator('[data-tool="files.write"] [data-outcome="written"]').waitFor();
      await settled();
      expect(await readFile(join(dir, 'workspace', 'notes.txt'), 'utf8')).toBe('hello');
      expect(await replies().last().locator('[data-tool="files.write"]').count()).toBe(1);
      expect(await replies().last().textContent()).toContain('Done.');
      expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    });

    it('reject: the card says so and nothing is written', async () => {
      await say('write bye to other.txt');
      await page.getByRole('button', { name: 'Reject' }).click();
      await page.locator('[data-outcome="rejected"]').waitFor();
      await settled();
      expect(existsSync(join(dir, 'workspace', 'other.txt'))).toBe(false);
      expect(await replies().last().textContent()).toContain('did not go through');
    });

    it('a reload restores the thread from the session store, exactly as it was shown', async () => {
      const before = await thread().innerText();
      await page.reload();
      await thread().waitFor();
      expect(await thread().innerText()).toBe(before);
    });

    it('after a server restart, the thread and a waiting approval come back and the approval still works', async () => {
      await say('write later to late.txt');
      await page.getByRole('button', { name: 'Approve' }).waitFor();
      await settled();
      const before = await thread().innerText();

      await chat.close();
      chat = await startChat();
      await page.goto(chat.url);
      await thread().waitFor();
      expect(await thread().innerText()).toBe(before);

      await page.getByRole('button', { name: 'Approve' }).click();
      await page.locator('[data-outcome="written"]').last().waitFor();
      await settled();
      expect(await readFile(join(dir, 'workspace', 'late.txt'), 'utf8')).toBe('later');
    });

    it('the server refuses paths outside the page and malformed API calls with clear answers', async () => {
      for (const path of ['..%2F..%2Fpackage.json', '%2e%2e/%2e%2e/package.json', 'web/../../../package.json']) {
        expect((await fetch(`${chat.url}${path}`)).status).toBe(404);
      }
      // Sent as the page sends them: this browser's session cookie, a JSON body.
      const cookie = (await page.context().cookies(chat.url)).map((c) => `${c.name}=${c.value}`).join('; ');
      const api = (path: string, body: string) => fetch(`${chat.url}${path}`, { method: 'POST', body, headers: { cookie, 'content-type': 'application/json' } });
      const noPrompt = await api('api/chat', '{"prompt":"  "}');
      expect(noPrompt.status).toBe(400);
      expect(await noPrompt.json()).toEqual({ kind: 'bad_request', message: '"prompt" must be a non-empty string.' });
      const notJson = await api('api/approve', 'approve it');
      expect(notJson.status).toBe(400);
      const unknown = await api('api/approve', '{"approvalId":"nope","approved":true}');
      const frames = (await unknown.text()).trim().split('\n').map((line) => JSON.parse(line) as { frame: string; error?: { kind: string } });
      expect(frames).toEqual([{ frame: 'error', error: { kind: 'unknown_approval', message: expect.stringContaining('nope') } }]);
    });

    it('a second browser starts its own conversation and sees nothing of the first', async () => {
      const before = await thread().innerText();
      expect(before).toContain('write hello to notes.txt');
      const other = await browser.newContext();
      try {
        const stranger = await other.newPage();
        // The page is built in development mode under the test runner, so StrictMode runs its effects twice.
        const threadRequests: string[] = [];
        stranger.on('request', (request) => {
          if (request.url().endsWith('/api/thread')) threadRequests.push(request.url());
        });
        await stranger.goto(chat.url);
        await stranger.getByLabel('Message').waitFor();
        // One first request, one session: two at once would mint two cookies and split the conversation.
        expect(threadRequests).toHaveLength(1);
        expect((await other.cookies(chat.url)).map((c) => c.name)).toEqual(['indusagi_web_chat']);
        await stranger.getByLabel('Message').waitFor();
        expect(await stranger.locator('ol.thread li').count()).toBe(0);
        await stranger.getByLabel('Message').fill('list files');
        await stranger.getByRole('button', { name: 'Send' }).click();
        await stranger.locator('[data-tool="files.list"]').waitFor();
        await stranger.getByRole('button', { name: 'Send' }).waitFor();
      } finally {
        await other.close();
      }
      await page.reload();
      await thread().waitFor();
      expect(await thread().innerText()).toBe(before);
    });

    it('a page on another port of this host cannot prompt the chat, with a no-cors fetch or a form, though it is same-site', async () => {
      const before = await thread().innerText();
      const target = `${chat.url}api/chat`;
      const attacker = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<!doctype html>
          <form id="f" method="POST" action="${target}" enctype="text/plain"><input name='{"prompt":"write pwned to pwned.txt","x":"' value='"}'></form>
          <script>
            fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{"prompt":"write pwned to pwned.txt"}' })
              .finally(() => document.getElementById('f').submit());
          </script>`);
      });
      await new Promise<void>((done) => attacker.listen(0, '127.0.0.1', done));
      const evil = await browser.newPage();
      try {
        const refused: number[] = [];
        evil.on('response', (response) => {
          if (response.url() === target) refused.push(response.status());
        });
        await evil.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
        await expect.poll(() => refused.length).toBe(2);
        expect(refused.every((status) => status === 403 || status === 415)).toBe(true);
      } finally {
        await evil.close();
        await new Promise((done) => attacker.close(done));
      }
      await page.reload();
      await thread().waitFor();
      expect(await thread().innerText()).toBe(before);
      expect(existsSync(join(dir, 'workspace', 'pwned.txt'))).toBe(false);
    });

    it('a DNS-rebinding page (another name for 127.0.0.1) gets neither the page nor the thread', async () => {
      const rebound = await browser.newPage();
      try {
        const port = new URL(chat.url).port;
        const response = await rebound.goto(`http://rebind.test:${port}/`);
        expect(response?.status()).toBe(403);
        const thread = await rebound.evaluate(async () => (await fetch('/api/thread')).status);
        expect(thread).toBe(403);
      } finally {
        await rebound.close();
      }
    });

    it('Stop ends a streaming reply at once and the chat goes on', async () => {
      // A model slow enough (the long story would take a quarter of a minute) that the reply is surely still streaming.
      slowDemo = await startDemoModel({ chunkDelayMs: 60 });
      await chat.close();
      chat = await startChat(slowDemo);
      await page.goto(chat.url);
      await thread().waitFor();
      const repliesBefore = await replies().count();

      await say('tell me a long story');
      await expect.poll(async () => (await replies().count()) > repliesBefore && ((await replies().last().textContent()) ?? '').length > 0).toBe(true);
      await page.getByRole('button', { name: 'Stop' }).click();
      await settled();
      const cut = (await replies().last().textContent()) ?? '';
      expect(cut.startsWith('(offline demo model)')).toBe(true);
      expect(cut.length).toBeLessThan(longStory().length);
      expect(await page.locator('[role="alert"]').count()).toBe(0);

      await say('list files');
      await page.locator('[data-tool="files.list"]').last().waitFor();
      await settled();
      expect(await page.locator('[data-tool="files.list"]').last().textContent()).toContain('late.txt');
    });
});
