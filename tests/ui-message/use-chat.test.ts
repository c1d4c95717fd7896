import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import react from '@vitejs/plugin-react';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/entries/runtime.js';
import { maxPromptSize } from '../../src/runtime/guardrails/index.js';
import type { Agent } from '../../src/runtime/agent/index.js';
import { ToolError } from '../../src/entries/errors.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';
import { readChatRequest, sendUIMessageStream } from '../../src/ui-message/index.js';
import { haveChromium, launchChromium } from '../support/chromium.js';

// The real `useChat` from `@ai-sdk/react`, built by Vite and run in headless Chromium, driving an
// indusagi agent through sendUIMessageStream: text, tool calls and results, approvals, errors, stop.
// The model is the scripted loopback server, through the real Anthropic SDK.

let dir: string;
let model: AnthropicTestServer;
let agent: Agent;
let server: Server;
let url: string;
let browser: Browser;
let page: Page;
const written: string[] = [];

const tools = [
  { name: 'clock.now', description: 'The time.', inputSchema: { type: 'object', properties: {} }, execute: () => '12:00' },
  {
    name: 'files.read',
    description: 'Reads.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    execute: () => {
      throw new ToolError('disk on fire');
    },
  },
  {
    name: 'files.write',
    description: 'Writes.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    needsApproval: true,
    execute: (input: unknown) => {
      written.push((input as { path: string }).path);
      return 'written';
    },
  },
];

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

describe.skipIf(!haveChromium('useChat'))('useChat from @ai-sdk/react, against sendUIMessageStream', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'indusagi-use-chat-'));
    const root = join(import.meta.dirname, 'page');
    [browser] = await Promise.all([
      launchChromium(),
      build({ root, configFile: false, plugins: [react()], build: { outDir: join(dir, 'page'), emptyOutDir: true }, logLevel: 'error' }),
    ]);
    model = await startAnthropicServer();
    server = createServer((req, res) => {
      void (async () => {
        if (req.method === 'POST' && req.url === '/api/chat') {
          const chunks: Buffer[] = [];
          for await (const chunk of req) chunks.push(chunk as Buffer);
          return sendUIMessageStream(res, agent, readChatRequest(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        }
        const path = req.url === '/' ? '/index.html' : (req.url ?? '/');
        const body = await readFile(join(dir, 'page', path)).catch(() => null);
        res.writeHead(body ? 200 : 404, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
        res.end(body);
      })().catch((error: unknown) => {
        console.error(error);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await agent?.close();
    await model?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    await agent?.close();
    agent = createAgent({ model: 'claude-test', tools }, { client: model.client() });
    written.length = 0;
    page = await browser.newPage();
    // A guard against a hang, not a deadline: the page waits on what it shows.
    page.setDefaultTimeout(180_000);
    await page.goto(url);
  });

  async function say(text: string): Promise<void> {
    await page.getByLabel('Message').fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
  }
  const ready = () => page.locator('main[data-status="ready"]').waitFor();
  const assistant = () => page.locator('section[data-role="assistant"]').last();

  it('streams text, a tool call with its result, and the answer after it, as separate parts of one message', async () => {
    model.enqueue(
      reply.tools([{ name: 'clock_now', input: {} }], { text: 'Checking the clock.' }),
      reply.text('It is noon.', { chunks: ['It is ', 'noon.'] }),
    );
    await say('What time is it?');
    await page.locator('[data-tool="clock.now"][data-state="output-available"]').waitFor();
    await assistant().locator('[data-part="text"]', { hasText: 'It is noon.' }).waitFor();
    await ready();
    expect(await page.locator('section[data-role="user"]').textContent()).toBe('What time is it?');
    expect(await assistant().locator('[data-part="text"]').allTextContents()).toEqual(['Checking the clock.', 'It is noon.']);
    expect(await assistant().locator('[data-tool="clock.now"] output').textContent()).toBe('"12:00"');
    expect(await page.locator('section[data-role="assistant"]').count()).toBe(1);
  });

  it('shows a failed tool as output-error with the message the model got', async () => {
    model.enqueue(reply.tools([{ name: 'files_read', input: { path: 'x' } }]), reply.text('That failed.'));
    await say('read x');
    await page.locator('[data-tool="files.read"][data-state="output-error"]').waitFor();
    await ready();
    expect(await page.locator('[data-error-text]').textContent()).toBe('disk on fire');
  });

  it('approve: the card asks, addToolApprovalResponse sends the decision, the tool runs and the run goes on in the same message', async () => {
    model.enqueue(reply.tools([{ name: 'files_write', input: { path: 'notes.txt' } }], { text: 'Writing.' }), reply.text('Done.'));
    await say('write notes');
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    await ready();
    expect(written).toEqual([]);

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('[data-tool="files.write"][data-state="output-available"]').waitFor();
    await assistant().locator('[data-part="text"]', { hasText: 'Done.' }).waitFor();
    await ready();
    expect(written).toEqual(['notes.txt']);
    expect(await page.locator('section[data-role="assistant"]').count()).toBe(1);
    expect(await page.locator('[data-tool="files.write"]').count()).toBe(1);
  });

  it('deny: the card turns output-denied, nothing runs, and the model hears the reason', async () => {
    model.enqueue(reply.tools([{ name: 'files_write', input: { path: 'secret.txt' } }]), reply.text('Understood.'));
    await say('write secret');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.locator('[data-tool="files.write"][data-state="output-denied"]').waitFor();
    await assistant().locator('[data-part="text"]', { hasText: 'Understood.' }).waitFor();
    await ready();
    expect(written).toEqual([]);
    const result = model.requests.at(-1)!.body.messages.at(-1).content[0];
    expect(result).toMatchObject({ type: 'tool_result', is_error: true, content: 'The user rejected this tool call. Reason: not today' });
  });

  it("a failed run reaches useChat as its error, with the typed error's message", async () => {
    model.enqueue(reply.httpError(400, { message: 'prompt is malformed' }));
    await say('hello');
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('prompt is malformed');
    expect(await page.locator('main').getAttribute('data-status')).toBe('error');
  });

  it('a tripped run shows where it stopped (its data-guardrail part) and its error, and the next prompt works', async () => {
    await agent.close();
    agent = createAgent({ model: 'claude-test', tools, inputGuardrails: [maxPromptSize({ maxChars: 20 })] }, { client: model.client() });
    const requests = model.requests.length;
    await say('please read this very long prompt');
    await page.getByRole('alert').waitFor();
    expect(await assistant().locator('[data-part="guardrail"]').textContent()).toBe(
      'Stopped by max_prompt_size: The prompt has 33 characters; at most 20 are allowed.',
    );
    expect(await page.getByRole('alert').textContent()).toContain('Guardrail "max_prompt_size" tripped on the prompt');
    expect(model.requests.length).toBe(requests);

    model.enqueue(reply.text('Short and sweet.'));
    await say('short');
    await assistant().locator('[data-part="text"]', { hasText: 'Short and sweet.' }).waitFor();
    await ready();
  });

  it('stop() aborts the run on the server: the model call is cut, and the next prompt works', async () => {
    model.enqueue(reply.text('word '.repeat(200), { chunks: Array(200).fill('word '), frameDelayMs: 30 }));
    await say('talk');
    await assistant().locator('[data-part="text"]', { hasText: 'word word' }).waitFor();
    const requests = model.requests.length;
    await page.getByRole('button', { name: 'Stop' }).click();
    await ready();
    await expect.poll(() => model.requests[requests - 1].clientClosedEarly).toBe(true);

    model.enqueue(reply.text('Still here.'));
    await say('again');
    await assistant().locator('[data-part="text"]', { hasText: 'Still here.' }).waitFor();
    await ready();
  });
});
