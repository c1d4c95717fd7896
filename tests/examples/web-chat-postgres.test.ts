// The web example as a team would serve it: two real server processes (examples/web-chat/server/main.ts,
// each with its own page, workspace and demo model, each an agent server that also executes runs) on
// different ports over one PostgreSQL schema, one conversation going back and forth between them. A
// load balancer could send any request anywhere, and either server's worker may execute any run.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../../src/postgres/index.js';
import { migrateServer } from '../../src/server/index.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';
import {
  browserName,
  calls,
  decisionsBody,
  expectLinear,
  fromPage,
  newBrowser,
  post,
  prompt,
  reply,
  shownPrompts,
  thread,
  userTexts,
} from '../support/web-chat-api.js';

const main = fileURLToPath(new URL('../../examples/web-chat/server/main.ts', import.meta.url));

type Server = { url: string; dir: string; child: ChildProcess; exited: Promise<number | null> };

/** Every process started, so none outlives the file even when a start fails halfway. */
const spawned: ChildProcess[] = [];

/** Starts main.ts as a deploy would, on a free port, and resolves once it says where it serves. */
function startServer(schema: string, dir: string): Promise<Server> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    WEB_CHAT_DATA: dir,
    INDUSAGI_DATABASE_URL: postgresUrl,
    INDUSAGI_DATABASE_SCHEMA: schema,
  };
  // The offline demo model, whatever the machine running the tests has configured.
  delete env.ANTHROPIC_API_KEY;
  const child = spawn(process.execPath, ['--import', 'tsx', main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  spawned.push(child);
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /web chat on (\S+)/.exec(output)?.[1];
      if (url !== undefined) resolve({ url, dir, child, exited });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`main.ts exited (${code}) before serving: ${output}`)));
  });
}

describe.skipIf(postgresUrl === undefined)('web example: two server processes over one PostgreSQL database', () => {
  const pool = testPool();
  const schema = freshSchema('web');
  /** A browser's sessions, as the servers keep them: in its own tenant. */
  const stores: PostgresSessionStore[] = [];
  const sessionsOf = (cookie: string) => {
    const store = new PostgresSessionStore({ pool }, { schema, tenant: browserName(cookie) });
    stores.push(store);
    return store;
  };
  const dirs: string[] = [];
  let a: Server;
  let b: Server;

  beforeAll(async () => {
    // What a deploy does once, before any server starts: the servers never migrate.
    await migrateServer(postgresUrl!, { schema });
    dirs.push(await mkdtemp(join(tmpdir(), 'indusagi-web-a-')), await mkdtemp(join(tmpdir(), 'indusagi-web-b-')));
    [a, b] = await Promise.all(dirs.map((dir) => startServer(schema, dir)));
  });

  afterAll(async () => {
    try {
      for (const server of [a, b]) {
        if (server === undefined) continue;
        server.child.kill('SIGTERM');
        // A clean shutdown hands back whatever is open and ends its pools.
        expect(await server.exited).toBe(0);
      }
    } finally {
      for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
      for (const store of stores) await store.close();
    }
  });

  it('one conversation alternating between the servers, an approval asked on one and given on the other, ends as one linear history', async () => {
    const { cookie, conversation } = await newBrowser(a);

    const listed = calls(await reply(await prompt(a, cookie, conversation, 'list files')));
    expect([...listed.values()].map(({ name, state }) => [name, state])).toEqual([['files.list', 'done']]);

    const remembered = calls(await reply(await prompt(b, cookie, conversation, 'remember that the spare lamps are in the cellar')));
    expect([...remembered.values()].map(({ name, state }) => [name, state])).toEqual([['memory.remember', 'done']]);

    const asked = calls(await reply(await prompt(a, cookie, conversation, 'write hello to notes.txt')));
    const [[call, approval]] = [...asked.entries()];
    expect(approval).toMatchObject({ name: 'files.write', input: { path: 'notes.txt', content: 'hello' }, state: 'waiting' });

    // Approved through B, which never saw the run: whichever server's worker takes it finds the waiting
    // call in the store, and runs it.
    const approved = await reply(await post(b, cookie, '/api/chat', decisionsBody(conversation, [{ call, approved: true }])));
    // The call is already on the page: the decision's stream says how it ended, and the answer after it.
    expect(approved.filter((chunk) => chunk.toolCallId === call).map((chunk) => chunk.type)).toEqual(['tool-output-available']);
    // Written once, into the workspace of the server whose worker ran it.
    const written = [a, b].filter((server) => existsSync(join(server.dir, 'workspace', 'notes.txt')));
    expect(written).toHaveLength(1);
    expect(await readFile(join(written[0].dir, 'workspace', 'notes.txt'), 'utf8')).toBe('hello');

    // Memory is in the database too: what B remembered, A recalls.
    const recalled = calls(await reply(await prompt(a, cookie, conversation, 'what do you remember about the spare lamps?')));
    expect(JSON.stringify([...recalled.values()])).toContain('the spare lamps are in the cellar');

    const prompts = [
      'list files',
      'remember that the spare lamps are in the cellar',
      'write hello to notes.txt',
      'what do you remember about the spare lamps?',
    ];
    const [onA, onB] = await Promise.all([thread(a, cookie, conversation), thread(b, cookie, conversation)]);
    expect(onA.status).toBe(200);
    expect(onB.body).toEqual(onA.body);
    expect(shownPrompts(onA.body)).toEqual(prompts);
    // The write shows as done on both, not as still waiting.
    expect(JSON.stringify(onA.body.messages)).not.toContain('approval-requested');

    const path = expectLinear(await sessionsOf(cookie).loadSession(conversation, { whole: true }));
    expect(userTexts(path)).toEqual(prompts);
    // Every turn once: a turn written twice (two writers, or a retried step) would show here.
    const turns = path.map((turn) => JSON.stringify(turn));
    expect(new Set(turns).size).toBe(turns.length);

    // The conversation list comes from the database as well, on either server.
    for (const server of [a, b]) {
      const list = await (await fetch(new URL('/api/threads', server.url), { headers: fromPage(server.url, cookie) })).json();
      expect(list.threads.map((c: { id: string }) => c.id)).toEqual([conversation]);
    }
  });

  it('a prompt to a conversation another server is still answering gets 409 thread_busy (its thread still shows), and nothing forks', async () => {
    const { cookie, conversation } = await newBrowser(a);
    const story = await prompt(a, cookie, conversation, 'tell me a long story');
    expect(story.status).toBe(200);
    const reader = story.body!.pipeThrough(new TextDecoderStream()).getReader();
    let streamed = '';
    // Once text arrives the run is under way on A, holding the conversation's lease.
    while (!streamed.includes('"type":"text-delta"')) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      streamed += value;
    }

    const refused = await prompt(b, cookie, conversation, 'list files');
    expect(refused.status).toBe(409);
    expect((await refused.json()).error).toMatchObject({ kind: 'thread_busy' });
    // Showing the thread takes no lease: B shows the conversation as far as it is stored.
    const meanwhile = await thread(b, cookie, conversation);
    expect(meanwhile.status).toBe(200);
    expect(shownPrompts(meanwhile.body)).toEqual(['tell me a long story']);

    while (!streamed.endsWith('data: [DONE]\n\n')) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      streamed += value;
    }
    // The stream ends only once the run has handed the thread back, so B can take it the moment the
    // end arrives, before A's response has even closed.
    const next = prompt(b, cookie, conversation, 'list files');
    expect(await reader.read()).toMatchObject({ done: true });
    await reply(await next);
    const path = expectLinear(await sessionsOf(cookie).loadSession(conversation, { whole: true }));
    expect(userTexts(path)).toEqual(['tell me a long story', 'list files']);
  });

  it('a server pointed at a schema that was never migrated stops at startup, naming `indusagi db migrate`', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'indusagi-web-behind-'));
    try {
      const unmigrated = freshSchema('unmigrated');
      await expect(startServer(unmigrated, dir)).rejects.toThrow(/PostgresSchemaBehindError[\s\S]*indusagi db migrate/);
      // It did not migrate behind the deploy's back either.
      const tables = await pool.query('select count(*)::int as n from information_schema.tables where table_schema = $1', [unmigrated]);
      expect(tables.rows[0].n).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
