// `useChat` with `resume: true` against the agent server, in headless Chromium: a page reloaded in the
// middle of a reply reconnects to it and the reply goes on to its end, once, with nothing doubled. The
// page is the real `@ai-sdk/react` built by Vite, served from the same origin as the server's routes
// (the server's fetch handler mounted behind a static-file route, as a team mounts it in its own app).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import react from '@vitejs/plugin-react';
import type { Browser } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicInvoker } from '../../src/providers/anthropic/invoker.js';
import { bearerTokens, createServer, type AgentServer } from '../../src/server/index.js';
import { listen, type Listening } from '../../src/server/listen.js';
import type { AnthropicTestServer } from '../../src/testing/index.js';
import agentOf from './fixtures/agent.js';
import { startScriptedModel, storyWords } from '../support/agent-server.js';
import { haveChromium, launchChromium } from '../support/chromium.js';

const TOKEN = 'browser-token-0123456789abcdef';
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
let dir: string;
let model: AnthropicTestServer;
let server: AgentServer;
let site: Listening;
let browser: Browser;

describe.skipIf(!haveChromium('useChat resume'))('useChat resume against the agent server', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'indusagi-use-chat-resume-'));
    [browser] = await Promise.all([
      launchChromium(),
      build({
        root: join(import.meta.dirname, 'chat-page'),
        configFile: false,
        plugins: [react()],
        build: { outDir: join(dir, 'page'), emptyOutDir: true },
        logLevel: 'error',
      }),
    ]);
    // Slow enough that a reload lands in the middle of the reply.
    model = await startScriptedModel({ delayMs: 25 });
    const invokeModel = createAnthropicInvoker(model.client());
    server = await createServer({
      dataDir: join(dir, 'data'),
      authenticate: bearerTokens([{ token: TOKEN, tenant: 'web', user: 'visitor' }]),
      agent: (context) => agentOf({ ...context, model: { invokeModel, model: 'claude-test', offline: false } }),
    });
    site = await listen(async (request) => {
      const path = new URL(request.url).pathname;
      if (request.method !== 'GET' || !(path === '/' || path.startsWith('/assets/'))) return server.fetch(request);
      const file = path === '/' ? '/index.html' : path;
      const body = await readFile(join(dir, 'page', file)).catch(() => null);
      return new Response(body, {
        status: body === null ? 404 : 200,
        headers: { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' },
      });
    });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await server?.close(1_000);
    await model?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a reload mid-reply reconnects to the running reply, which goes on to its end once', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(180_000);
    await page.goto(`${site.url}/#chat=reload-me&token=${TOKEN}`);
    await page.getByLabel('Message').fill('story 300');
    await page.getByRole('button', { name: 'Send' }).click();
    const assistant = page.locator('section[data-role="assistant"] [data-part="text"]');
    await assistant.filter({ hasText: 'w10 ' }).waitFor();

    await page.reload();
    // The thread as it stood when the reply began (the prompt), then the reply, replayed and followed live.
    await page.locator('section[data-role="user"]', { hasText: 'story 300' }).waitFor();
    await page.locator('main[data-status="streaming"]').waitFor();
    const whole = storyWords(300).join('');
    await page.locator('main[data-status="ready"]').waitFor();
    await expect.poll(() => assistant.allTextContents()).toEqual([whole]);
    expect(await page.locator('section[data-role="user"]').count()).toBe(1);
    expect(await page.locator('section[data-role="assistant"]').count()).toBe(1);
    // The model answered once: the reload reconnected to the reply, it did not ask again.
    expect(model.requests.filter((r) => JSON.stringify(r.body.messages).includes('story 300'))).toHaveLength(1);

    // After the reply, a reload shows the finished thread, with nothing left to resume.
    await page.reload();
    await page.locator('section[data-role="assistant"]').waitFor();
    expect(await assistant.allTextContents()).toEqual([whole]);
    expect(await page.locator('main').getAttribute('data-status')).toBe('ready');
    await page.close();
  });
});
