// The agent server as a team deploys it on many machines: three `indusagi serve --database` processes
// and three `indusagi worker` processes over one PostgreSQL database, the scripted model behind them.
// 200 background runs (tool calls, approvals given through another instance than the one that asked)
// while two workers are SIGKILLed; 30 clients that drop and reconnect to random instances; a cancel
// sent to one instance stopping a run another worker executes; the runs a thread refuses; a takeover
// after a kill mid-tool.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../../src/postgres/index.js';
import { migrateServer } from '../../src/server/index.js';
import type { AnthropicTestServer } from '../../src/testing/index.js';
import {
  allEvents,
  Client,
  killAll,
  serveOnDatabase,
  sseReader,
  startDatabaseWorker,
  startScriptedModel,
  storyWords,
  waitForEvent,
  type SharedDatabase,
  type SseEvent,
  untilLedgerHas,
} from '../support/agent-server.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';
import { expectLinear } from '../support/web-chat-api.js';

const LEASE_MS = 3_000;
const TOKENS = [
  { token: 'acme-cluster-token-0123456789', tenant: 'acme', user: 'ana' },
  { token: 'globex-cluster-token-012345678', tenant: 'globex', user: 'bo' },
];

describe.skipIf(postgresUrl === undefined)(
  'agent server on many machines: 3 API servers, 3 workers, one database',
  { timeout: 300_000 },
  () => {
    const pool = testPool();
    const schema = freshSchema('srv');
    let dir: string;
    let ledger: string;
    let model: AnthropicTestServer;
    let apis: Array<{ url: string }>;
    const workers: Array<{ child: ChildProcess; id: string }> = [];

    const client = (i: number, tenant = 0) => new Client(apis[i % apis.length].url, TOKENS[tenant].token);
    const random = (n: number) => Math.floor(Math.random() * n);
    const ledgerLines = async () => (await readFile(ledger, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
    const ledgerHas = (line: string) => untilLedgerHas(ledger, line);

    let shared: SharedDatabase;
    async function startWorker(): Promise<void> {
      workers.push(await startDatabaseWorker(shared, ledger, ['--lease-ms', String(LEASE_MS), '--concurrency', '8']));
    }

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'indusagi-cluster-'));
      ledger = join(dir, 'ledger.txt');
      const tokens = join(dir, 'tokens.json');
      await writeFile(tokens, JSON.stringify(TOKENS));
      // What a deploy does once, before anything starts: nothing migrates by itself.
      await migrateServer(postgresUrl!, { schema });
      model = await startScriptedModel({ delayMs: 2 });
      shared = { database: postgresUrl!, schema, model };
      const serve = () => serveOnDatabase(shared, tokens);
      const [a, b, c] = await Promise.all([serve(), serve(), serve(), startWorker(), startWorker(), startWorker()]);
      apis = [a, b, c].map((url) => ({ url: url as string }));
    }, 300_000);

    afterAll(async () => {
      killAll();
      await model?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    /** The worker process executing `runId` now, from its row in the database. */
    async function workerOf(runId: string): Promise<{ child: ChildProcess; id: string }> {
      const { rows } = await pool.query(`SELECT worker FROM "${schema}".server_runs WHERE id = $1`, [runId]);
      const worker = workers.find((w) => w.id === rows[0].worker);
      if (worker === undefined) throw new Error(`run ${runId} is on ${rows[0].worker}, not a worker this test started`);
      return worker;
    }

    it('200 background runs with tool calls and approvals all finish while 2 workers are SIGKILLed: no call runs twice, no session forks', async () => {
      const runs = Array.from({ length: 200 }, (_, i) => ({
        i,
        tenant: i % 2,
        thread: `load-${i}`,
        prompt: i % 4 === 0 ? `wire ${i}` : i % 4 === 3 ? `hello ${i}` : `charge ${i}`,
        startedOn: random(3),
      }));
      let finished = 0;
      const killAt = [20 + random(40), 80 + random(40)];
      const kills: Promise<void>[] = [];
      const onFinished = () => {
        finished++;
        for (const [k, at] of killAt.entries()) {
          if (finished !== at) continue;
          const victim = workers[k];
          victim.child.kill('SIGKILL');
          // A replacement joins: runs of the dead are taken over by whoever is alive.
          kills.push(startWorker());
        }
      };
      const outcomes = await Promise.all(
        runs.map(async (run) => {
          const starter = client(run.startedOn, run.tenant);
          await starter.json('/threads', { id: run.thread }, 201);
          const queued = await starter.json(`/threads/${run.thread}/runs`, { prompt: run.prompt }, 202);
          let ended = await client(random(3), run.tenant).read(`/runs/${queued.id}/wait`);
          const ids = [queued.id];
          if (ended.status === 'waiting') {
            // Approved through an instance other than the one that started the run.
            const approver = client(run.startedOn + 1 + random(2), run.tenant);
            const decisions = ended.result.pendingApprovals.map((p: { approvalId: string }) => ({
              approvalId: p.approvalId,
              approved: true,
            }));
            ended = await approver.json(`/threads/${run.thread}/runs/wait`, { decisions });
            ids.push(ended.id);
          }
          onFinished();
          return { run, ended, ids };
        }),
      );
      await Promise.all(kills);

      for (const { run, ended } of outcomes)
        expect(ended, `${run.thread}: ${JSON.stringify(ended.error)}`).toMatchObject({ status: 'settled' });
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".server_runs WHERE attempt > 1`);
      // The kills landed on runs in flight: some were taken over by another worker.
      expect(rows[0].n).toBeGreaterThan(0);

      // Every execution of a non-idempotent call is in the ledger, synced before it returned: none twice.
      const executed = (await ledgerLines()).filter((line) => line.startsWith('charge ') || line.startsWith('wire '));
      expect(new Set(executed).size).toBe(executed.length);
      expect(executed.filter((line) => line.startsWith('wire '))).toHaveLength(50);

      // One linear history per thread, with its prompt once: no two writers, no prompt sent twice by a takeover.
      const stores = TOKENS.map((t) => new PostgresSessionStore({ pool }, { schema, tenant: t.tenant }));
      for (const { run } of outcomes) {
        const path = expectLinear(await stores[run.tenant].loadSession(run.thread, { whole: true }));
        const prompts = path.filter((turn) => turn.role === 'user' && turn.blocks.some((b) => b.kind === 'text'));
        expect(prompts, run.thread).toHaveLength(1);
        expect(path.at(-1)!.role).toBe('assistant');
      }
      await Promise.all(stores.map((store) => store.close()));
    });

    it('30 clients dropping and reconnecting to random instances each reassemble exactly the stored stream', async () => {
      const runs = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const api = client(i);
          await api.json('/threads', { id: `stream-${i}` }, 201);
          return (await api.json(`/threads/stream-${i}/runs`, { prompt: 'story 80' }, 202)).id as string;
        }),
      );
      const reassembled = await Promise.all(
        runs.map(async (runId) => {
          const got: SseEvent[] = [];
          let reconnects = 0;
          for (;;) {
            const headers: Record<string, string> = got.length === 0 ? {} : { 'last-event-id': String(got.at(-1)!.id) };
            const reader = sseReader(await client(random(3)).get(`/runs/${runId}/stream`, headers));
            // The first connection drops after one event, so every client reconnects at least once even when
            // a loaded machine finished the run (its text coalesced into a few events) before it connected;
            // then after a random number of events, and the fourth connection reads to the end.
            const take = reconnects === 0 ? 1 : reconnects >= 3 ? Number.POSITIVE_INFINITY : 1 + random(12);
            let ended = false;
            for (let n = 0; n < take; n++) {
              const event = await reader.next();
              if (event === undefined) {
                ended = true;
                break;
              }
              got.push(event);
            }
            await reader.cancel();
            if (ended || got.at(-1)?.data.kind === 'settled') break;
            reconnects++;
          }
          return { runId, got, reconnects };
        }),
      );
      for (const { runId, got, reconnects } of reassembled) {
        const { rows } = await pool.query(`SELECT seq, event FROM "${schema}".server_run_events WHERE run = $1 ORDER BY seq`, [runId]);
        expect(got.map((e) => e.id)).toEqual(rows.map((row) => Number(row.seq)));
        expect(got.map((e) => e.data)).toEqual(rows.map((row) => JSON.parse(row.event)));
        expect(got.at(-1)!.data.kind).toBe('settled');
        const text = got.filter((e) => e.data.kind === 'text_delta').map((e) => e.data.delta);
        expect(text.join('')).toBe(storyWords(80).join(''));
        expect(reconnects).toBeGreaterThan(0);
      }
    });

    it('a cancel sent to one instance stops the run on the worker executing it; the tool sees its signal', async () => {
      const [a, b] = [client(0), client(1)];
      await a.json('/threads', { id: 'to-cancel' }, 201);
      const run = await a.json('/threads/to-cancel/runs', { prompt: 'wait' }, 202);
      const reader = sseReader(await a.get(`/runs/${run.id}/stream`));
      const started = await waitForEvent(reader, (e) => e.data.kind === 'tool_started');
      await ledgerHas(`waiting ${started.data.callId}`);
      expect((await b.post(`/runs/${run.id}/cancel`)).status).toBe(202);
      const end = await waitForEvent(reader, (e) => e.data.kind === 'faulted');
      expect(end.data.error.kind).toBe('aborted');
      expect(await client(2).read(`/runs/${run.id}`)).toMatchObject({ status: 'canceled', cancelRequested: true });
      expect(await ledgerLines()).toContain(`aborted ${started.data.callId}`);
    });

    it('a thread refuses on the database what it refuses on one machine, whichever instance is asked', async () => {
      const [a, b] = [client(0), client(1)];
      const missing = await a.post('/threads/nowhere/runs', { prompt: 'hello' });
      expect(missing.status).toBe(404);
      expect((await missing.json()).error.kind).toBe('not_found');

      await a.json('/threads', { id: 'refuses-waiting' }, 201);
      const asked = await a.json('/threads/refuses-waiting/runs/wait', { prompt: 'wire 5' });
      expect(asked.status).toBe('waiting');
      const [pending] = asked.result.pendingApprovals;
      const early = await b.post('/threads/refuses-waiting/runs', { prompt: 'something else' });
      expect(early.status).toBe(409);
      expect((await early.json()).error).toMatchObject({ kind: 'approvals_pending', pending: [pending.approvalId] });
      const unknown = await b.post('/threads/refuses-waiting/runs', { decisions: [{ approvalId: 'toolu_nope', approved: true }] });
      expect(unknown.status).toBe(409);
      expect((await unknown.json()).error.kind).toBe('approval_not_pending');

      // A `wait` run stays the thread's active run until it is canceled.
      await a.json('/threads', { id: 'refuses-busy' }, 201);
      const run = await a.json('/threads/refuses-busy/runs', { prompt: 'wait' }, 202);
      const busy = await b.post('/threads/refuses-busy/runs', { prompt: 'hello' });
      expect(busy.status).toBe(409);
      expect((await busy.json()).error).toMatchObject({ kind: 'thread_busy', activeRunId: run.id });
      expect((await a.post(`/runs/${run.id}/cancel`)).status).toBe(202);
      expect(await b.read(`/runs/${run.id}/wait`)).toMatchObject({ status: 'canceled' });
    });

    it('a worker killed mid-tool: another takes the run over after its lease, answers the cut-off call as interrupted, and never runs it again', async () => {
      const api = client(0);
      await api.json('/threads', { id: 'takeover' }, 201);
      const run = await api.json('/threads/takeover/runs', { prompt: 'charge slowly 5' }, 202);
      const reader = sseReader(await api.get(`/runs/${run.id}/stream`));
      const started = await waitForEvent(reader, (e) => e.data.kind === 'tool_started');
      await ledgerHas(`charge ${started.data.callId}`);
      const victim = await workerOf(run.id);
      victim.child.kill('SIGKILL');
      const rest = [started];
      for (let event = await reader.next(); event !== undefined; event = await reader.next()) rest.push(event);
      expect(rest.map((e) => e.data.kind)).toContain('run_taken_over');
      expect(rest.at(-1)!.data.kind).toBe('settled');
      const ended = await api.read(`/runs/${run.id}`);
      expect(ended.attempt).toBe(2);
      expect(ended.result.text).toMatch(/^done: Interrupted/);
      expect((await ledgerLines()).filter((line) => line === `charge ${started.data.callId}`)).toHaveLength(1);
      // The stream a late reader replays is the same, from any instance.
      expect((await allEvents(await client(2).get(`/runs/${run.id}/stream`))).slice(rest[0].id! - 1)).toEqual(rest);
    });
  },
);
