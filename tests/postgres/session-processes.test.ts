// Many machines over one database, simulated by real processes, each with its own store and pool:
// two agents on one session, a writer paused past its lease (SIGSTOP), a writer killed mid-step (SIGKILL).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../../src/postgres/index.js';
import type { SessionGraph } from '../../src/runtime/store/index.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';

const fixture = fileURLToPath(new URL('./fixtures/session-writer.ts', import.meta.url));

type Machine = {
  child: ChildProcess;
  lines: string[];
  next(pattern: RegExp): Promise<string>;
  send(line: string): void;
  exited: Promise<void>;
};
const machines: Machine[] = [];

function machine(args: Record<string, unknown>, env: Record<string, string> = {}): Machine {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, JSON.stringify({ url: postgresUrl, ...args })], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const lines: string[] = [];
  let seen = 0;
  let buffer = '';
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stdout!.on('data', (chunk) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts);
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  const m: Machine = {
    child,
    lines,
    exited,
    send: (line) => child.stdin!.write(`${line}\n`),
    // The next line (after those already taken) matching `pattern`; fails if the process exits first.
    async next(pattern) {
      for (;;) {
        while (seen < lines.length) {
          const line = lines[seen++];
          if (pattern.test(line)) return line;
        }
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`process exited; printed ${JSON.stringify(lines)}; stderr ${stderr}`);
        await Promise.race([new Promise<void>((wake) => waiters.push(wake)), exited]);
        if (process.env.DEBUG_MACHINES) console.log(args.name, lines.slice(seen), stderr);
      }
    },
  };
  machines.push(m);
  return m;
}

const texts = (graph: SessionGraph) =>
  graph.resume(graph.leaf!).map((t) => t.blocks.map((b) => (b.kind === 'text' ? b.text : b.kind)).join(''));

describe.skipIf(postgresUrl === undefined)('PostgresSessionStore across processes', () => {
  const pool = testPool();
  const stores: PostgresSessionStore[] = [];
  afterAll(async () => {
    for (const m of machines) if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGKILL');
    for (const store of stores) await store.close();
  });
  const setup = async (leaseMs = 30_000) => {
    const schema = freshSchema('proc');
    const store = new PostgresSessionStore({ pool }, { schema, leaseMs });
    stores.push(store);
    await store.migrate();
    return { schema, store };
  };

  it('two agents on one session: one gets the typed lease error, the history has zero forks', async () => {
    const { schema, store } = await setup();
    const a = machine({ schema, sessionId: 'shared', leaseMs: 30_000, name: 'a' });
    const b = machine({ schema, sessionId: 'shared', leaseMs: 30_000, name: 'b' });
    await Promise.all([a.next(/^ready$/), b.next(/^ready$/)]);
    a.send('submit');
    b.send('submit');
    const outcomes = await Promise.all([a.next(/^(submitted|error)/), b.next(/^(submitted|error)/)]);
    expect(outcomes.filter((line) => line === 'submitted')).toHaveLength(1);
    const refused = outcomes.find((line) => line.startsWith('error'))!;
    expect(refused).toMatch(/^error RunFault \(cause SessionLeaseHeldError\) .*is open for writing by .* pid \d+/);
    a.send('close-agent');
    b.send('close-agent');
    await Promise.all([a.next(/^(closed|error)/), b.next(/^(closed|error)/)]);
    a.send('exit');
    b.send('exit');
    await Promise.all([a.exited, b.exited]);

    const graph = await store.loadSession('shared');
    expect(graph.tips()).toHaveLength(1);
    expect(graph.size).toBe(2);
    const winner = outcomes[0] === 'submitted' ? 'a' : 'b';
    expect(texts(graph)).toEqual([`prompt from ${winner}`, `answer from ${winner}`]);
  });

  it("a writer paused past its lease is fenced: another takes over and writes, the first one's write is refused, history is exactly the second's", async () => {
    const { schema, store } = await setup();
    const leaseMs = 800;
    const first = machine({ schema, sessionId: 'paused', leaseMs, renewMs: 200, name: 'first' });
    await first.next(/^ready$/);
    first.send('open');
    await first.next(/^opened$/);
    first.send('append before the pause');
    await first.next(/^persisted$/);

    first.child.kill('SIGSTOP');
    // While it is paused its renewals stop; until the lease runs out nobody else may write.
    const second = machine({ schema, sessionId: 'paused', leaseMs: 30_000, name: 'second' });
    await second.next(/^ready$/);
    second.send('open');
    let opened = await second.next(/^(opened|error)/);
    while (opened !== 'opened') {
      expect(opened).toMatch(/^error SessionLeaseHeldError/);
      await new Promise((done) => setTimeout(done, 200));
      second.send('open');
      opened = await second.next(/^(opened|error)/);
    }
    second.send('append from the second writer');
    await second.next(/^persisted$/);

    first.child.kill('SIGCONT');
    first.send('append from the paused writer');
    expect(await first.next(/^(persisted|error)/)).toMatch(/^error SessionFencedError .*epoch 1.*epoch now 2/);
    first.send('close');
    expect(await first.next(/^(closed|error)/)).toMatch(/^error SessionFencedError/);
    second.send('close');
    await second.next(/^closed$/);
    first.send('exit');
    second.send('exit');
    await Promise.all([first.exited, second.exited]);

    const graph = await store.loadSession('paused');
    expect(graph.tips()).toHaveLength(1);
    expect(texts(graph)).toEqual(['before the pause', 'from the second writer']);
  });

  it('SIGKILL mid-step: the reply whose tool was running is stored, and after the lease expires another process picks the session up', async () => {
    const { schema, store } = await setup();
    const killed = machine({ schema, sessionId: 'killed', leaseMs: 1_000, name: 'killed' }, { WITH_TOOL: '1' });
    await killed.next(/^ready$/);
    killed.send('submit');
    await killed.next(/^tool running$/);
    killed.child.kill('SIGKILL');
    await killed.exited;

    // Per-step durability: the prompt and the reply calling the tool were stored before it started.
    const stored = await store.loadSession('killed');
    const context = stored.resume(stored.leaf!);
    expect(context.map((turn) => turn.role)).toEqual(['user', 'assistant']);
    expect(context[1].blocks[0]).toMatchObject({ kind: 'tool_call', name: 'slow.step' });

    // The dead writer's lease runs out; the next process takes the session over and goes on.
    const next = machine({ schema, sessionId: 'killed', leaseMs: 30_000, name: 'next' });
    await next.next(/^ready$/);
    let outcome = '';
    for (;;) {
      next.send('submit');
      outcome = await next.next(/^(submitted|error)/);
      if (!outcome.includes('(cause SessionLeaseHeldError)')) break;
      await new Promise((done) => setTimeout(done, 200));
    }
    expect(outcome).toBe('submitted');
    next.send('close-agent');
    await next.next(/^closed$/);
    next.send('exit');
    await next.exited;
    const after = await store.loadSession('killed');
    expect(after.tips()).toHaveLength(1);
    const turns = after.resume(after.leaf!);
    // The interrupted call is answered (never left without a result), then the new prompt and answer.
    expect(turns.flatMap((t) => t.blocks.map((b) => b.kind))).toContain('tool_result');
    expect(texts(after).slice(-2)).toEqual(['prompt from next', 'answer from next']);
  });
});
