// The web example's conversation as a tree: regenerate a reply, edit a past prompt, switch between the
// versions, stop a reply, rename and delete conversations. Real HTTP to the example's agent server
// (indusagi/server over files) as the page calls it, with the demo model; what the browser's session
// store holds is checked beside what the thread shows.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoModel, type DemoModel } from '../../src/demo/index.js';
import { SessionStore } from '../../src/runtime/store/index.js';
import type { WebChat } from '../../examples/web-chat/server/app.js';
import type { ThreadMessage } from '../../src/server/http/chat-thread.js';
import {
  browserSessions,
  fromPage,
  newBrowser,
  post,
  prompt,
  reply,
  shownPrompts,
  standInPage,
  startExampleChat,
  textOf,
  thread,
} from '../support/web-chat-api.js';

let dir: string;
let demo: DemoModel;
let chat: WebChat;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-web-chat-branches-'));
  await mkdir(join(dir, 'workspace'));
  await standInPage(dir);
  // Slow enough that a long story is still streaming when the test stops it.
  demo = await startDemoModel({ chunkDelayMs: 5 });
  chat = await startExampleChat(dir, demo);
});

afterAll(async () => {
  await chat?.close();
  await demo?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Browser = { cookie: string; conversation: string };

/** The browser's own session store: what the server keeps for it as its tenant. */
const storeOf = (browser: Browser) => new SessionStore(browserSessions(dir, browser.cookie));

async function shown(browser: Browser): Promise<ThreadMessage[]> {
  const { status, body } = await thread(chat, browser.cookie, browser.conversation);
  expect(status).toBe(200);
  return body.messages as ThreadMessage[];
}

const textOfMessage = (message: ThreadMessage) => message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');

async function switchTo(browser: Browser, message: string): Promise<ThreadMessage[]> {
  const response = await post(chat, browser.cookie, `/api/chat/${browser.conversation}/version`, { messageId: message });
  expect(response.status).toBe(200);
  return ((await response.json()) as { messages: ThreadMessage[] }).messages;
}

describe('regenerate', () => {
  it('answers the prompt again as a second version of the reply; the first stays, and either can be shown', async () => {
    const browser = await newBrowser(chat);
    await reply(await prompt(chat, browser.cookie, browser.conversation, 'list files'));
    await reply(await prompt(chat, browser.cookie, browser.conversation, 'what time is it?'));
    const before = await shown(browser);
    const [, , asked, first] = before;
    expect(first.role).toBe('assistant');
    expect(first.metadata).toEqual({ node: first.id });

    const again = await reply(
      await prompt(chat, browser.cookie, browser.conversation, 'what time is it?', { trigger: 'regenerate-message', messageId: first.id }),
    );
    expect(textOf(again)).toContain('Checking the clock.');
    const after = await shown(browser);
    expect(shownPrompts({ messages: after })).toEqual(['list files', 'what time is it?']);
    const second = after[3];
    expect(second.id).not.toBe(first.id);
    expect(second.metadata.versions).toEqual({ index: 1, ids: [first.id, second.id] });
    // The prompt was not stored a second time: both replies hang off the one prompt node.
    const graph = await storeOf(browser).loadSession(browser.conversation);
    expect(graph.children(asked.id).map((node) => node.id)).toEqual([first.id, second.id]);

    const back = await switchTo(browser, first.id);
    expect(back.map((message) => message.id)).toEqual(before.map((message) => message.id));
    expect(back[3].metadata.versions).toEqual({ index: 0, ids: [first.id, second.id] });
    expect((await shown(browser)).map(textOfMessage)).toEqual(back.map(textOfMessage));
  });
});

describe('edit a past prompt', () => {
  it('branches before the prompt and sends the new text; the old prompt and what followed stay on their branch', async () => {
    const browser = await newBrowser(chat);
    for (const text of ['list files', 'what time is it?', 'help'])
      await reply(await prompt(chat, browser.cookie, browser.conversation, text));
    const before = await shown(browser);
    const timePrompt = before[2];
    expect(timePrompt.metadata).toEqual({ node: timePrompt.id });

    await reply(await prompt(chat, browser.cookie, browser.conversation, 'read nothing.txt', { messageId: timePrompt.id }));
    const edited = await shown(browser);
    expect(shownPrompts({ messages: edited })).toEqual(['list files', 'read nothing.txt']);
    expect(edited[2].metadata.versions).toEqual({ index: 1, ids: [timePrompt.id, edited[2].id] });
    // The first exchange is the same nodes on both branches.
    expect(edited.slice(0, 2)).toEqual(before.slice(0, 2));

    const old = await switchTo(browser, timePrompt.id);
    expect(shownPrompts({ messages: old })).toEqual(['list files', 'what time is it?', 'help']);
    expect(old.map(textOfMessage)).toEqual(before.map(textOfMessage));
    expect(old[2].metadata.versions).toEqual({ index: 0, ids: [timePrompt.id, edited[2].id] });

    // The next prompt continues the branch on screen.
    await reply(await prompt(chat, browser.cookie, browser.conversation, 'list files again'));
    expect(shownPrompts({ messages: await shown(browser) })).toEqual(['list files', 'what time is it?', 'help', 'list files again']);
  });

  it("edits a conversation's first prompt as a new root beside the old one, each version shown with its reply", async () => {
    const browser = await newBrowser(chat);
    await reply(await prompt(chat, browser.cookie, browser.conversation, 'list files'));
    const [first] = await shown(browser);
    expect(first.metadata).toEqual({ node: first.id });

    await reply(await prompt(chat, browser.cookie, browser.conversation, 'help', { messageId: first.id }));
    const edited = await shown(browser);
    expect(shownPrompts({ messages: edited })).toEqual(['help']);
    expect(edited[0].metadata.versions).toEqual({ index: 1, ids: [first.id, edited[0].id] });

    const old = await switchTo(browser, first.id);
    expect(shownPrompts({ messages: old })).toEqual(['list files']);
    expect(old[0].metadata.versions).toEqual({ index: 0, ids: [first.id, edited[0].id] });
  });
});

describe('a reply the user stopped', () => {
  it('shows where it was cut off, marked stopped, once its run is canceled; regenerating it answers the prompt afresh', async () => {
    const browser = await newBrowser(chat);
    await reply(await prompt(chat, browser.cookie, browser.conversation, 'list files'));
    const story = await prompt(chat, browser.cookie, browser.conversation, 'tell me a long story');
    const run = story.headers.get('x-run-id')!;
    const reader = story.body!.pipeThrough(new TextDecoderStream()).getReader();
    let streamed = '';
    while (!streamed.includes('"type":"text-delta"')) streamed += (await reader.read()).value;
    await reader.cancel();

    // Leaving the stream does not stop the run (a reload resumes it): the page's Stop cancels it, as here.
    expect((await post(chat, browser.cookie, `/api/runs/${run}/cancel`, {})).status).toBe(202);
    const ended = await fetch(new URL(`/api/runs/${run}/wait`, chat.url), { headers: fromPage(chat.url, browser.cookie) });
    expect(((await ended.json()) as { status: string }).status).toBe('canceled');

    const messages = await shown(browser);
    expect(shownPrompts({ messages })).toEqual(['list files', 'tell me a long story']);
    const cut = messages[3];
    expect(cut.role).toBe('assistant');
    expect(cut.metadata.stopped).toBe(true);
    expect(textOfMessage(cut).startsWith('(offline demo model)')).toBe(true);
    // The same on every read (a reload): it is read back from the run's events.
    expect(await shown(browser)).toEqual(messages);

    // Regenerating the stopped reply (the page sends no message id: it has no node) answers its prompt again.
    const story2 = await reply(
      await prompt(chat, browser.cookie, browser.conversation, 'tell me a long story', { trigger: 'regenerate-message' }),
    );
    expect(textOf(story2).length).toBeGreaterThan(textOfMessage(cut).length);
    const regenerated = await shown(browser);
    expect(shownPrompts({ messages: regenerated })).toEqual(['list files', 'tell me a long story']);
    expect(regenerated[3].metadata.stopped).toBeUndefined();
    expect(textOfMessage(regenerated[3])).toBe(textOf(story2));
    expect(regenerated.slice(0, 3)).toEqual(messages.slice(0, 3));
  });
});

describe('the conversation list', () => {
  it('renames a conversation, and deleting one takes it off the list and out of reach', async () => {
    const browser = await newBrowser(chat);
    const list = async () =>
      (
        (await (await fetch(new URL('/api/threads', chat.url), { headers: fromPage(chat.url, browser.cookie) })).json()) as {
          threads: Array<{ id: string; metadata: { title?: string } }>;
        }
      ).threads;
    // As the page does: a conversation's thread is made before its first prompt, named after it.
    const start = async (conversation: string, text: string) => {
      expect((await post(chat, browser.cookie, '/api/threads', { id: conversation, metadata: { title: text } })).status).toBe(201);
      await reply(await prompt(chat, browser.cookie, conversation, text));
    };
    await start(browser.conversation, 'list files');
    const second = (await newBrowser(chat)).conversation;
    await start(second, 'what time is it?');
    expect((await list()).map((c) => c.metadata.title)).toEqual(['what time is it?', 'list files']);

    const renamed = await fetch(new URL(`/api/threads/${browser.conversation}`, chat.url), {
      method: 'PATCH',
      headers: fromPage(chat.url, browser.cookie),
      body: JSON.stringify({ metadata: { title: 'The files' } }),
    });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ id: browser.conversation, metadata: { title: 'The files' } });
    expect((await list()).map((c) => c.metadata.title).sort()).toEqual(['The files', 'what time is it?']);

    const remove = (conversation: string) =>
      fetch(new URL(`/api/threads/${conversation}`, chat.url), { method: 'DELETE', headers: fromPage(chat.url, browser.cookie) });
    expect((await remove(second)).status).toBe(204);
    expect((await list()).map((c) => c.id)).toEqual([browser.conversation]);
    // Nothing of it is left to read: its session went with it.
    expect(await thread(chat, browser.cookie, second)).toEqual({ status: 200, body: { messages: [], problems: [] } });
    expect((await remove(second)).status).toBe(404);

    expect((await remove(browser.conversation)).status).toBe(204);
    expect(await list()).toEqual([]);
    expect((await thread(chat, browser.cookie, browser.conversation)).body.messages).toEqual([]);
  });
});
