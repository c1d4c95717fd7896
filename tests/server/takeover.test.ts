// What a reader and a bill see of a run whose worker died as a tool started: `indusagi serve --database`
// and two `indusagi worker` processes over one PostgreSQL schema, the scripted model behind them. The
// fixture's `charge and die` call SIGKILLs its own worker the moment it has charged, so the worker dies
// before anything it writes behind the run (its events) gets out; the other worker takes the run over.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelUsage } from '../../src/runtime/contract/model.js';
import { migrateServer } from '../../src/server/index.js';
import type { AnthropicTestServer } from '../../src/testing/index.js';
import {
  allEvents,
  Client,
  killAll,
  serveOnDatabase,
  startDatabaseWorker,
  startScriptedModel,
  type SharedDatabase,
  type SseEvent,
} from '../support/agent-server.js';
import { freshSchema, postgresUrl } from '../support/postgres.js';

const TOKEN = 'acme-takeover-token-0123456789';

describe.skipIf(postgresUrl === undefined)('a run taken over after its worker died as a tool started', { timeout: 120_000 }, () => {
  let dir: string;
  let ledger: string;
  let model: AnthropicTestServer;
  let shared: SharedDatabase;
  let api: Client;
  const startWorker = () => startDatabaseWorker(shared, ledger, ['--lease-ms', '2000', '--concurrency', '4']);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'indusagi-takeover-'));
    ledger = join(dir, 'ledger.txt');
    const tokens = join(dir, 'tokens.json');
    await writeFile(tokens, JSON.stringify([{ token: TOKEN, tenant: 'acme', user: 'ana' }]));
    const schema = freshSchema('takeover');
    await migrateServer(postgresUrl!, { schema });
    model = await startScriptedModel({ delayMs: 1 });
    shared = { database: postgresUrl!, schema, model };
    const [url] = await Promise.all([serveOnDatabase(shared, tokens), startWorker(), startWorker()]);
    api = new Client(url, TOKEN);
  }, 120_000);

  afterAll(async () => {
    killAll();
    await model?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Runs `charge and die` on a new thread to its end (a worker dies, the other ends it; a replacement joins). */
  async function runThatKillsItsWorker(thread: string): Promise<{ ended: any; events: SseEvent[]; callId: string }> {
    await api.json('/threads', { id: thread }, 201);
    const queued = await api.json(`/threads/${thread}/runs`, { prompt: 'charge and die 5' }, 202);
    const ended = await api.read(`/runs/${queued.id}/wait`);
    // One worker is dead now: another joins, so the next test has two again.
    await startWorker();
    const events = await allEvents(await api.get(`/runs/${queued.id}/stream`));
    const charges = (await readFile(ledger, 'utf8')).split('\n').filter((line) => line.startsWith('charge '));
    const callId = charges.at(-1)!.slice('charge '.length);
    return { ended, events, callId };
  }

  it('the stored stream shows the call start before its interrupted end, and the call ran once', async () => {
    const { ended, events, callId } = await runThatKillsItsWorker('dies-as-tool-starts');
    expect(ended).toMatchObject({ status: 'settled', attempt: 2 });
    expect(ended.result.text).toMatch(/^done: Interrupted/);
    const kinds = events.map((e) => e.data.kind);
    expect(kinds).toContain('run_taken_over');
    const started = events.findIndex((e) => e.data.kind === 'tool_started' && e.data.callId === callId);
    const finished = events.findIndex((e) => e.data.kind === 'tool_finished' && e.data.callId === callId);
    expect(finished).toBeGreaterThan(-1);
    // Stored by the dead worker before the call ran: the resumed stream never finishes a call it did not start.
    expect(started).toBeGreaterThan(-1);
    expect(started).toBeLessThan(kinds.indexOf('run_taken_over'));
    expect(started).toBeLessThan(finished);
    expect(events[finished].data.isError).toBe(true);
    const ran = (await readFile(ledger, 'utf8')).split('\n').filter((line) => line === `charge ${callId}`);
    expect(ran).toHaveLength(1);
  });

  it("the run's usage and the usage events' running total include the dead attempt's model call", async () => {
    const { ended, events } = await runThatKillsItsWorker('bills-both-attempts');
    expect(ended).toMatchObject({ status: 'settled', attempt: 2 });
    // The dead attempt's reply (the call, billed 50 input tokens) and the takeover's answer (10): both billed.
    const billed: ModelUsage = { inputTokens: 60, outputTokens: 10, cacheWriteTokens: 0, cacheReadTokens: 0 };
    expect(ended.result.usage).toEqual(billed);
    const usage = events.filter((e) => e.data.kind === 'usage');
    expect(usage.at(-1)!.data.total).toEqual(billed);
    expect(events.at(-1)!.data).toMatchObject({ kind: 'settled', snapshot: { usage: billed } });
  });
});
