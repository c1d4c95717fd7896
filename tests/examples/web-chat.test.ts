import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoModel } from '../../src/demo/index.js';
import type { DemoModel } from '../../src/demo/index.js';
import { longStory } from '../../src/providers/demo/story.js';
import { haveChromium, launchChromium } from '../support/chromium.js';
import { startExampleChat } from '../support/web-chat-api.js';
import type { WebChat } from '../../examples/web-chat/server/app.js';

// The example end to end: the Vite-built React page (useChat) in headless Chromium, the agent server
// (indusagi/server) the example's start script runs, streaming the AI SDK's UI message stream of its
// runs, the real SDK, and the offline demo model. web-chat-page.test.ts covers what makes it a chat app people use daily.
const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const exampleDir = join(repo, 'examples/web-chat');

let dir: string;
let demo: DemoModel;
let slowDemo: DemoModel | undefined;
let chat: WebChat;
let browser: Browser;
let page: Page;

const startChat = (model: DemoModel = demo): Promise<WebChat> => startExampleChat(dir, model);

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
    // A guard against a hang, not a deadline: the page waits on what it shows.
    page.setDefaultTimeout(180_000);
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
  const messageBox = (on: Page = page) => on.getByRole('textbox', { name: 'Message', exact: true });
  const sendButton = (on: Page = page) => on.getByRole('button', { name: 'Send', exact: true });

  async function say(text: string, on: Page = page): Promise<void> {
    await messageBox(on).fill(text);
    await sendButton(on).click();
  }

  /** Waits until the turn is over: Send is back, and the thread was read back from the server. */
  async function settled(on: Page = page): Promise<void> {
    await sendButton(on).waitFor();
    await expect
      .poll(() => on.locator('li[data-role="user"]:not([data-synced]), li[data-role="assistant"]:not([data-synced])').count())
      .toBe(0);
  }

  it('streams a reply with a tool rendered by its own component', async () => {
    await say('list files');
    await expect.poll(() => page.locator('li[data-role="user"]').last().textContent()).toBe('list files');
    const card = page.locator('[data-tool="files.list"]');
    await card.waitFor();
    await settled();
    expect(await card.textContent()).toContain('seed.txt');
    expect(await replies().last().textContent()).toMatch(/Listing \..*holds:/s);
    expect(await messageBox().inputValue()).toBe('');
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

  it('renders the reply as markdown, and HTML a reply quotes from a file never reaches the page', async () => {
    await writeFile(
      join(dir, 'workspace', 'evil.md'),
      '# Plans\n\n**bold move**\n\n<img src="x" onerror="window.__pwned = 1">\n\n<script>window.__pwned = 2</script>\n\n[click me](javascript:window.__pwned=3)\n',
    );
    await say('read evil.md');
    await page.locator('[data-tool="files.read"]').waitFor();
    await settled();
    const reply = replies().last();
    expect(await reply.locator('.text strong').first().textContent()).toBe('bold move');
    expect(await reply.locator('.text h1').textContent()).toBe('Plans');
    expect(await page.locator('.thread img, .thread script, .thread [onerror]').count()).toBe(0);
    expect(await reply.locator('.text a').getAttribute('href')).not.toMatch(/^javascript:/i);
    await reply.locator('.text a').click();
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
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
    const api = (path: string, body: string) =>
      fetch(`${chat.url}${path}`, { method: 'POST', body, headers: { cookie, 'content-type': 'application/json' } });
    const noPrompt = await api(
      'api/chat',
      JSON.stringify({ id: 'probe', messages: [{ role: 'user', parts: [{ type: 'text', text: '  ' }] }] }),
    );
    expect(noPrompt.status).toBe(400);
    expect(await noPrompt.json()).toEqual({ error: { kind: 'bad_request', message: 'The last user message has no text.' } });
    const notJson = await api('api/chat', 'approve it');
    expect(notJson.status).toBe(400);
    const unknown = await api(
      'api/chat',
      JSON.stringify({
        id: 'probe',
        messages: [
          {
            role: 'assistant',
            parts: [{ type: 'dynamic-tool', toolCallId: 'nope', state: 'approval-responded', approval: { id: 'nope', approved: true } }],
          },
        ],
      }),
    );
    expect(unknown.status).toBe(409);
    expect((await unknown.json()).error).toMatchObject({ kind: 'approval_not_pending' });
  });

  it('a second browser starts its own conversation and sees nothing of the first', async () => {
    const before = await thread().innerText();
    expect(before).toContain('write hello to notes.txt');
    const other = await browser.newContext();
    try {
      const stranger = await other.newPage();
      // The page is built in development mode under the test runner, so StrictMode runs its effects
      // twice: every API call still goes out as this browser, with the one cookie the page handed it.
      const refused: string[] = [];
      stranger.on('response', (response) => {
        if (response.url().includes('/api/') && response.status() === 401) refused.push(response.url());
      });
      await stranger.goto(chat.url);
      await messageBox(stranger).waitFor();
      expect(refused).toEqual([]);
      expect((await other.cookies(chat.url)).map((c) => c.name)).toEqual(['indusagi_web_chat']);
      expect(await stranger.locator('ol.thread li').count()).toBe(0);
      await say('list files', stranger);
      await stranger.locator('[data-tool="files.list"]').waitFor();
      await settled(stranger);
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
      const thread = await rebound.evaluate(async () => (await fetch('/api/threads')).status);
      expect(thread).toBe(403);
    } finally {
      await rebound.close();
    }
  });

  it('tells the user when the session store could not read part of the conversation back', async () => {
    const context = await browser.newContext();
    try {
      const visitor = await context.newPage();
      await visitor.goto(chat.url);
      await messageBox(visitor).waitFor();
      await say('list files', visitor);
      await visitor.locator('[data-tool="files.list"]').waitFor();
      await settled(visitor);
      expect(await visitor.locator('[data-load-problems]').count()).toBe(0);

      // Damage a middle line of this visitor's session file while the server is down.
      const token = (await context.cookies(chat.url))[0].value;
      const tenant = `web-${createHash('sha256').update(token).digest('hex').slice(0, 32)}`;
      const sessions = join(dir, 'server', 'tenants', tenant, 'sessions');
      const [session] = (await readdir(sessions)).filter((name) => name.endsWith('.jsonl'));
      const file = join(sessions, session);
      await chat.close();
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines[1] = '{"this line": "was damaged';
      await writeFile(file, lines.join('\n'));
      chat = await startChat();

      await visitor.goto(chat.url);
      const notice = visitor.locator('[data-load-problems]');
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(/could not be read back.*damaged line\(s\) were skipped: line 2/s);
    } finally {
      await context.close();
    }
    await page.goto(chat.url);
    await thread().waitFor();
  });

  it('Stop ends a streaming reply at once, marks it stopped (also after a reload), and the chat goes on; the thread follows the reply unless the user scrolled up', async () => {
    // A model slow enough (the long story would take a quarter of a minute) that the reply is surely still streaming.
    slowDemo = await startDemoModel({ chunkDelayMs: 60 });
    await chat.close();
    chat = await startChat(slowDemo);
    await page.setViewportSize({ width: 800, height: 500 });
    await page.goto(chat.url);
    await thread().waitFor();
    const repliesBefore = await replies().count();

    await say('tell me a long story');
    await expect
      .poll(async () => (await replies().count()) > repliesBefore && ((await replies().last().textContent()) ?? '').length > 0)
      .toBe(true);
    const scroller = () => page.locator('.scroller');
    const view = () =>
      scroller().evaluate((box) => ({
        top: box.scrollTop,
        gap: box.scrollHeight - box.scrollTop - box.clientHeight,
        length: box.textContent!.length,
      }));
    // Following: as the reply grows past the screen, the newest line stays in view.
    await expect.poll(async () => (await view()).top, { timeout: 180_000 }).toBeGreaterThan(100);
    expect((await view()).gap).toBeLessThan(60);
    // The user scrolls up to read: new text arrives and the view stays where they put it.
    await scroller().evaluate((box) => box.scrollTo({ top: 0 }));
    const readingAt = (await view()).length;
    await expect.poll(async () => (await view()).length).toBeGreaterThan(readingAt + 40);
    expect((await view()).top).toBe(0);

    await page.getByRole('button', { name: 'Stop' }).click();
    // Once stopped, the reply stays as far as it was shown, marked stopped (the server keeps it too: see the reload below).
    await replies().last().locator('[data-stopped]').waitFor();
    await settled();
    const cut = (await replies().last().locator('.text').textContent()) ?? '';
    expect(cut.startsWith('(offline demo model)')).toBe(true);
    expect(cut.length).toBeLessThan(longStory().length);
    expect(await replies().last().locator('[data-stopped]').textContent()).toBe('Stopped');
    expect(await page.locator('[role="alert"]').count()).toBe(0);

    // The stopped reply and its marker come back after a reload, where they were.
    const shown = await replies().count();
    await page.reload();
    await thread().waitFor();
    expect(await replies().count()).toBe(shown);
    expect(await replies().last().locator('[data-stopped]').count()).toBe(1);
    expect(await replies().last().locator('.text').textContent()).toBe(cut);

    await say('list files');
    await page.locator('[data-tool="files.list"]').last().waitFor();
    await settled();
    expect(await page.locator('[data-tool="files.list"]').last().textContent()).toContain('late.txt');
  });

  it('New conversation starts an empty thread; the list switches between conversations, each with its own history, also after a reload', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(chat.url);
    await thread().waitFor();
    const first = await thread().innerText();
    const nav = page.getByRole('navigation', { name: 'Conversations' });
    await expect.poll(() => nav.getByRole('link').count()).toBe(1);

    await nav.getByRole('button', { name: 'New conversation' }).click();
    await expect
      .poll(() => page.evaluate(() => location.hash))
      .toMatch(/^#c=[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await expect.poll(() => page.locator('ol.thread li').count()).toBe(0);
    await say('what time is it?');
    await page.locator('[data-tool="clock.now"]').waitFor();
    await settled();
    await expect.poll(() => nav.getByRole('link').count()).toBe(2);
    expect(await nav.getByRole('link', { name: 'what time is it?' }).getAttribute('aria-current')).toBe('page');
    const second = await thread().innerText();
    expect(second).not.toContain('list files');

    await nav.getByRole('link', { name: 'list files' }).click();
    await expect.poll(() => thread().innerText()).toBe(first);
    await page.reload();
    await thread().waitFor();
    expect(await thread().innerText()).toBe(first);
    await nav.getByRole('link', { name: 'what time is it?' }).click();
    await expect.poll(() => thread().innerText()).toBe(second);
    expect(await nav.getByRole('link', { name: 'what time is it?' }).getAttribute('aria-current')).toBe('page');
  });

  it('fits a phone screen: no sideways scrolling, the input in view; screenshots of both layouts', async () => {
    const shots = process.env.INDUSAGI_SCREENSHOTS ?? join(repo, 'test-results', 'web-chat');
    await mkdir(shots, { recursive: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(chat.url);
    await thread().waitFor();
    await page.screenshot({ path: join(shots, 'web-chat-desktop.png') });

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(chat.url);
    await thread().waitFor();
    const layout = await page.evaluate(() => ({ wide: document.documentElement.scrollWidth, width: window.innerWidth }));
    expect(layout.wide).toBeLessThanOrEqual(layout.width);
    const input = (await messageBox().boundingBox())!;
    expect(input.y + input.height).toBeLessThanOrEqual(844);
    expect(input.x).toBeGreaterThanOrEqual(0);
    expect(input.x + input.width).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(shots, 'web-chat-phone.png') });
    for (const name of ['web-chat-desktop.png', 'web-chat-phone.png']) {
      expect((await readFile(join(shots, name))).subarray(1, 4).toString()).toBe('PNG');
    }
  });
});
