// The database dies under a served deployment: PostgreSQL SIGKILLed while runs are mid model call, and
// started again on the same data folder and port. The server (API and worker in one process, as
// `indusagi serve --database --worker`) rides it out: no crash, /health says 503 while the database is
// unreachable and 200 once it is back, and every run ends after the outage (the ones whose attempt died
// with it are taken over), and new runs execute. The cluster is this file's own: killing the shared one
// would take every other test file down with it.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelInvoker, ModelRequest } from '../../src/runtime/contract/model.js';
import { bearerTokens, createServer, migrateServer, type AgentServer } from '../../src/server/index.js';
import {
  Client,
  FIXTURE_AGENT,
  killAll,
  modelEnv,
  startCli,
  startDatabaseWorker,
  startScriptedModel,
  sseReader,
  waitForEvent,
  reportChildrenOnFailure,
} from '../support/agent-server.js';
import { findBinaries, startCluster, type RunningCluster } from '../support/postgres-cluster.js';

const TOKEN = 'acme-outage-token-0123456789ab';
const found = await findBinaries();

/** Polls `check` until it holds: the conditions here are a database's state, which sends no event. */
async function until<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A model that answers `ok: <prompt>` but holds every call until `release` (or the run's abort): the
 * runs are mid model call for as long as the test wants. `entered` tells how many calls began.
 */
function heldModel() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let entered = 0;
  const waiters: Array<() => void> = [];
  const invoke = (async (request: ModelRequest) => {
    entered++;
    for (const wake of waiters.splice(0)) wake();
    await new Promise<void>((resolve, reject) => {
      void gate.then(resolve);
      request.signal?.addEventListener('abort', () => reject(request.signal!.reason), { once: true });
    });
    const last = request.messages[request.messages.length - 1];
    const text = last.blocks.flatMap((b) => (b.kind === 'text' ? [b.text] : [])).join('');
    return {
      turn: { role: 'assistant', blocks: [{ kind: 'text', text: `ok: ${text}` }] },
      stopReason: 'end_turn',
      usage: { inputTokens: 10, outputTokens: 5, cacheWriteTokens: 0, cacheReadTokens: 0 },
    };
  }) as ModelInvoker;
  return {
    invoke,
    release: () => open(),
    /** Resolves once `count` calls began. */
    entered(count: number): Promise<void> {
      return new Promise((resolve) => {
        const check = () => (entered >= count ? resolve() : waiters.push(check));
        check();
      });
    },
  };
}

describe.skipIf('missing' in found)('agent server: the database restarts under running runs', { timeout: 300_000 }, () => {
  let cluster: RunningCluster;
  let server: AgentServer;
  let api: Client;
  const model = heldModel();
  const crashes: unknown[] = [];
  const logged: string[] = [];
  const waiters: Array<() => void> = [];
  const onCrash = (error: unknown) => crashes.push(error);

  beforeAll(async () => {
    if ('missing' in found) return;
    cluster = await startCluster(found, { crashSafe: true });
    await migrateServer(cluster.url, { schema: 'outage' });
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onCrash);
    server = await createServer({
      database: cluster.url,
      schema: 'outage',
      worker: { concurrency: 4 },
      leaseMs: 2_000,
      authenticate: bearerTokens([{ token: TOKEN, tenant: 'acme', user: 'ana' }]),
      agent: () => ({ config: { model: 'held-test', system: 'A test agent.' }, invokeModel: model.invoke }),
      log: (message, error) => {
        void error;
        logged.push(message);
        for (const wake of waiters.splice(0)) wake();
      },
    });
    api = new Client('http://server.test', TOKEN, server.fetch);
  });

  afterEach(reportChildrenOnFailure);

  afterAll(async () => {
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    await server?.close(1_000);
    await cluster?.stop();
  });

  const health = () => api.get('/health');
  const runOf = (id: string) => api.read<{ status: string; result: { text: string } | null }>(`/runs/${id}`);

  it('stays up, answers 503 on /health while PostgreSQL is down, and ends every run after it restarts', async () => {
    const runs: string[] = [];
    for (const thread of ['a', 'b', 'c']) {
      await api.json('/threads', { id: thread }, 201);
      runs.push((await api.json(`/threads/${thread}/runs`, { prompt: `hello ${thread}` }, 202)).id);
    }
    await model.entered(3);
    expect((await health()).status).toBe(200);

    await cluster.crash();
    const down = await until(async () => {
      const response = await health();
      return response.status === 503 ? ((await response.json()) as { ok: boolean; database: string }) : undefined;
    });
    expect(down).toMatchObject({ ok: false, database: 'unreachable' });

    // Down for longer than the lease (each failed heartbeat or sweep is logged, a third and a half of
    // the lease apart): the worker's heartbeat row is stale by the time the database is back.
    await new Promise<void>((resolve) => {
      const check = () => (logged.filter((m) => m === 'worker upkeep failed').length >= 10 ? resolve() : waiters.push(check));
      check();
    });
    await cluster.restart();
    await until(async () => ((await health()).status === 200 ? true : undefined));
    model.release();

    const ended = await Promise.all(
      runs.map((id) =>
        until(async () => {
          const run = await runOf(id);
          return ['queued', 'running'].includes(run.status) ? undefined : run;
        }),
      ),
    );
    expect(ended.map((run) => run.status)).toEqual(['settled', 'settled', 'settled']);
    expect(ended.map((run) => run.result?.text)).toEqual(['ok: hello a', 'ok: hello b', 'ok: hello c']);

    // The worker took up its queue again: a new run, on a thread of the outage too, executes.
    const next = (await api.json('/threads/a/runs', { prompt: 'after' }, 202)).id as string;
    const after = await until(async () => {
      const run = await runOf(next);
      return ['queued', 'running'].includes(run.status) ? undefined : run;
    });
    expect(after).toMatchObject({ status: 'settled', result: { text: 'ok: after' } });
    expect(crashes).toEqual([]);
  });
});

type Watched = { output: () => string; unlessDied: <T>(waiting: Promise<T>) => Promise<T>; exited: () => number | string | null };

/** Collects what `child` prints; `unlessDied` fails at once, with that output, if the process exits meanwhile. */
function watch(child: ChildProcess, name: string): Watched {
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  let exited: number | string | null = null;
  const died = new Promise<never>((_, reject) =>
    child.on('exit', (code, signal) => {
      exited = code ?? signal;
      reject(new Error(`${name} exited (${exited}):\n${output}`));
    }),
  );
  died.catch(() => undefined);
  return { output: () => output, unlessDied: (waiting) => Promise.race([waiting, died]), exited: () => exited };
}

/**
 * A run streams, PostgreSQL is SIGKILLed and stays down past the lease (the process logs each failed
 * heartbeat and sweep), then restarts: the process stays up, the run ends, and a new run on its thread executes.
 */
async function rideOut(cluster: RunningCluster, api: Client, process: Watched, thread: string): Promise<void> {
  await api.json('/threads', { id: thread }, 201);
  const run = await api.json('/threads/' + thread + '/runs', { prompt: 'story 150' }, 202);
  const reader = sseReader(await api.get(`/runs/${run.id}/stream`));
  await waitForEvent(reader, (event) => event.data.kind === 'text_delta');
  await reader.cancel();

  await cluster.crash();
  await process.unlessDied(until(async () => ((process.output().match(/worker upkeep failed/g) ?? []).length >= 10 ? true : undefined)));
  await cluster.restart();
  await process.unlessDied(until(async () => ((await api.get('/health')).status === 200 ? true : undefined)));

  const ended = await process.unlessDied(
    until(async () => {
      const state = await api.read<{ status: string; attempt: number }>(`/runs/${run.id}`);
      return ['queued', 'running'].includes(state.status) ? undefined : state;
    }),
  );
  expect(ended.status).toBe('settled');
  const next = (await api.json(`/threads/${thread}/runs`, { prompt: 'after' }, 202)).id as string;
  const after = await process.unlessDied(
    until(async () => {
      const state = await api.read<{ status: string; result: { text: string } | null }>(`/runs/${next}`);
      return ['queued', 'running'].includes(state.status) ? undefined : state;
    }),
  );
  expect(after).toMatchObject({ status: 'settled', result: { text: 'ok: after' } });
  expect(process.exited()).toBe(null);
}

describe.skipIf('missing' in found)(
  'indusagi worker and serve --worker: the database restarts under a streaming run',
  { timeout: 300_000 },
  () => {
    let cluster: RunningCluster;
    let server: AgentServer;
    let api: Client;
    let dir: string;
    let model: Awaited<ReturnType<typeof startScriptedModel>>;

    beforeAll(async () => {
      if ('missing' in found) return;
      cluster = await startCluster(found, { crashSafe: true });
      await migrateServer(cluster.url, { schema: 'outage' });
      dir = await mkdtemp(join(tmpdir(), 'indusagi-outage-'));
      // A word every 20 ms: the run is still streaming (its events failing to be stored) through the outage.
      model = await startScriptedModel({ delayMs: 20 });
      server = await createServer({
        database: cluster.url,
        schema: 'outage',
        authenticate: bearerTokens([{ token: TOKEN, tenant: 'acme', user: 'ana' }]),
        log: () => undefined,
      });
      api = new Client('http://server.test', TOKEN, server.fetch);
    });

    afterAll(async () => {
      killAll();
      await server?.close(1_000);
      await model?.close();
      await cluster?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('the worker process stays up and every run ends after the database is back', async () => {
      const worker = await startDatabaseWorker({ database: cluster.url, schema: 'outage', model }, join(dir, 'ledger.txt'), [
        '--lease-ms',
        '2000',
      ]);
      await rideOut(cluster, api, watch(worker.child, 'indusagi worker'), 'story');
      worker.child.kill('SIGKILL');
    });

    it('indusagi serve --worker stays up, says 503 on /health meanwhile, and every run ends after', async () => {
      const tokens = join(dir, 'tokens.json');
      await writeFile(tokens, JSON.stringify([{ token: TOKEN, tenant: 'acme', user: 'ana' }]));
      const args = ['serve', '--database', cluster.url, '--schema', 'outage', '--tokens', tokens, '--port', '0', '--worker'];
      const served = await startCli([...args, '--agent', FIXTURE_AGENT, '--lease-ms', '2000'], modelEnv(model), /indusagi server on (\S+)/);
      const remote = new Client(served.match[1], TOKEN);
      const watched = watch(served.child, 'indusagi serve --worker');
      // What /health said while the database was down (polled until the outage is over).
      const said = new Set<number>();
      let polling = true;
      const poll = (async () => {
        while (polling) {
          said.add((await remote.get('/health').catch(() => undefined))?.status ?? 0);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      await rideOut(cluster, remote, watched, 'served');
      polling = false;
      await poll;
      expect(said.has(503)).toBe(true);
      expect(said.has(0)).toBe(false);
    });
  },
);
