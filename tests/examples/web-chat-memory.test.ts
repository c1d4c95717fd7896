// What the web example's long-term memory keeps apart (issue 27, item 5): browser A says "remember my
// bank pin is 4321", browser B asks for it. Real HTTP to the real server (indusagi/server, each browser
// a tenant) and demo model, with the memory in this process (the file setup) and in PostgreSQL (two
// servers over one schema, each executing runs).
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoModel, type DemoModel } from '../../src/demo/index.js';
import { PostgresMemoryStore } from '../../src/postgres/index.js';
import { migrateServer } from '../../src/server/index.js';
import type { WebChat } from '../../examples/web-chat/server/app.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';
import { browserName, calls, newBrowser, prompt, reply, standInPage, startExampleChat } from '../support/web-chat-api.js';

let dir: string;
let demo: DemoModel;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-web-chat-memory-'));
  demo = await startDemoModel({ chunkDelayMs: 0 });
});

afterAll(async () => {
  await demo?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** What the recall tool gave `browser` for its question, and the reply's text. */
async function ask(chat: WebChat, browser: { cookie: string; conversation: string }, text: string): Promise<string> {
  const recalled = [...calls(await reply(await prompt(chat, browser.cookie, browser.conversation, text))).values()];
  expect(recalled.map(({ name, state }) => [name, state])).toEqual([['memory.recall', 'done']]);
  return String(recalled[0].output);
}

async function remember(chat: WebChat, browser: { cookie: string; conversation: string }, fact: string): Promise<void> {
  const saved = [...calls(await reply(await prompt(chat, browser.cookie, browser.conversation, `remember ${fact}`))).values()];
  expect(saved.map(({ name, state }) => [name, state])).toEqual([['memory.remember', 'done']]);
}

describe('memory in this process (the example on files)', () => {
  it("one browser's memories are its own: another browser asking gets nothing of them, in any of its conversations", async () => {
    await mkdir(join(dir, 'files', 'workspace'), { recursive: true });
    await standInPage(join(dir, 'files'));
    const chat = await startExampleChat(join(dir, 'files'), demo);
    try {
      const a = await newBrowser(chat);
      const b = await newBrowser(chat);
      await remember(chat, a, 'my bank pin is 4321');

      expect(await ask(chat, b, 'what do you remember about my bank pin?')).toBe('Nothing in memory matches "my bank pin".');
      const bLater = { cookie: b.cookie, conversation: randomUUID() };
      expect(await ask(chat, bLater, 'recall bank pin')).not.toContain('4321');
      // A finds it, in another conversation of its own too.
      const aLater = { cookie: a.cookie, conversation: randomUUID() };
      expect(await ask(chat, aLater, 'what do you remember about my bank pin?')).toBe('- my bank pin is 4321');
    } finally {
      await chat.close();
    }
  });
});

describe.skipIf(postgresUrl === undefined)('memory in PostgreSQL, two servers over one schema', () => {
  const pool = testPool();
  const schema = freshSchema('webmem');
  const chats: WebChat[] = [];

  beforeAll(async () => {
    await migrateServer(postgresUrl!, { schema });
    for (const name of ['one', 'two']) {
      await mkdir(join(dir, name, 'workspace'), { recursive: true });
      await standInPage(join(dir, name));
      chats.push(await startExampleChat(join(dir, name), demo, { url: postgresUrl!, schema }));
    }
  });

  afterAll(async () => {
    for (const chat of chats) await chat.close();
  });

  it("a browser's memories reach it on every server and no other browser on any, and are stored in its scope", async () => {
    const [one, two] = chats;
    const a = await newBrowser(one);
    const b = await newBrowser(two);
    await remember(one, a, 'my bank pin is 4321');

    expect(await ask(two, b, 'what do you remember about my bank pin?')).toBe('Nothing in memory matches "my bank pin".');
    expect(await ask(one, { cookie: b.cookie, conversation: b.conversation }, 'recall bank pin')).not.toContain('4321');
    expect(await ask(two, a, 'what do you remember about my bank pin?')).toBe('- my bank pin is 4321');

    // In the table, the record is in A's tenant and scope (its browser's name), and B's tenant has none.
    const ofA = new PostgresMemoryStore({ pool }, { schema, tenant: browserName(a.cookie) });
    const records = await ofA.list();
    expect(records.map((record) => [record.text, record.scope])).toEqual([['my bank pin is 4321', { resource: browserName(a.cookie) }]]);
    expect(await new PostgresMemoryStore({ pool }, { schema, tenant: browserName(b.cookie) }).list()).toEqual([]);
  });
});
