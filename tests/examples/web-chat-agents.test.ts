// How long the web example keeps a conversation's agent (and so its session's writer lock) open: only
// while requests use it. Real HTTP to the real server over session files, with the demo model.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoModel, type DemoModel } from '../../src/demo/index.js';
import { SessionStore } from '../../src/runtime/store/index.js';
import type { WebChat } from '../../examples/web-chat/server/app.js';
import { expectLinear, newBrowser, prompt, reply, shownPrompts, startExampleChat, thread, userTexts } from '../support/web-chat-api.js';

let dir: string;
let demo: DemoModel;

const startChat = (): Promise<WebChat> => startExampleChat(dir, demo);

/** Reads a streamed reply until its first text, so the run is under way; the rest stays unread. */
async function untilText(response: Response): Promise<ReadableStreamDefaultReader<string>> {
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let streamed = '';
  while (!streamed.includes('"type":"text-delta"')) {
    const { value, done } = await reader.read();
    expect(done).toBe(false);
    streamed += value;
  }
  return reader;
}

async function rest(reader: ReadableStreamDefaultReader<string>): Promise<string> {
  let streamed = '';
  for (let step = await reader.read(); !step.done; step = await reader.read()) streamed += step.value;
  return streamed;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-web-chat-agents-'));
  await mkdir(join(dir, 'page'));
  await writeFile(join(dir, 'page', 'index.html'), '<!doctype html><title>page</title>');
  await mkdir(join(dir, 'workspace'));
  // Slow enough that a long story is still streaming while the test sends its other requests.
  demo = await startDemoModel({ chunkDelayMs: 10 });
});

afterAll(async () => {
  await demo?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the web example holds a conversation only while requests use it', () => {
  it('requests that overlap on one server share the agent: a prompt sent while a reply streams is answered after it, not refused', async () => {
    const chat = await startChat();
    try {
      const { cookie, conversation } = await newBrowser(chat);
      const story = await untilText(await prompt(chat, cookie, conversation, 'tell me a long story'));
      const second = prompt(chat, cookie, conversation, 'list files');
      const shown = thread(chat, cookie, conversation);
      expect(await rest(story)).toMatch(/data: \{"type":"finish","finishReason":"stop"\}\n\ndata: \[DONE\]\n\n$/);
      await reply(await second);
      expect((await shown).status).toBe(200);

      const path = expectLinear(await new SessionStore(join(dir, 'sessions')).loadSession(conversation));
      expect(userTexts(path)).toEqual(['tell me a long story', 'list files']);
    } finally {
      await chat.close();
    }
  });

  it('between requests the session is free; while another writer holds it, a prompt gets 409 conversation_busy and nothing is stored', async () => {
    const chat = await startChat();
    const other = new SessionStore(join(dir, 'sessions'));
    try {
      const { cookie, conversation } = await newBrowser(chat);
      await reply(await prompt(chat, cookie, conversation, 'list files'));

      // Another writer (the CLI, another server on these files) can take the session right away.
      const lease = await other.acquire(conversation);
      const refused = await prompt(chat, cookie, conversation, 'write x to y.txt');
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ kind: 'conversation_busy' });
      // The thread still shows, read without the lock.
      const shown = await thread(chat, cookie, conversation);
      expect(shown.status).toBe(200);
      expect(shownPrompts(shown.body)).toEqual(['list files']);
      await other.release(lease);

      await reply(await prompt(chat, cookie, conversation, 'list files again'));
      const path = expectLinear(await other.loadSession(conversation));
      expect(userTexts(path)).toEqual(['list files', 'list files again']);
    } finally {
      await chat.close();
    }
  });

  it('close() ends a reply still streaming and lets go of its session', async () => {
    const chat = await startChat();
    const { cookie, conversation } = await newBrowser(chat);
    const story = await untilText(await prompt(chat, cookie, conversation, 'tell me a long story'));
    await chat.close();
    // The connection was cut: the reply never got its end.
    await expect(rest(story)).rejects.toThrow();

    const other = new SessionStore(join(dir, 'sessions'));
    await other.release(await other.acquire(conversation));
  });
});
