import { existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  SessionLeaseLostError,
  SessionLockLostError,
  SessionLockedError,
  SessionStore,
  SessionWriter,
} from '../../../src/runtime/store/index.js';
import { nextLine, spawnFixture, tempRoot, user } from './helpers.js';

let root: string;
let cleanup: () => void;
beforeEach(() => ({ root, cleanup } = tempRoot()));
afterEach(() => cleanup());

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('the writer lock', () => {
  it('refuses a second writer while another process holds the session, naming its pid; readers need no lock', async () => {
    const holder = spawnFixture('hold-lock.ts', [root, 's']);
    try {
      const [, pid, leaf] = (await nextLine(holder)).split(' ');
      const store = new SessionStore(root);
      const error = await rejection(store.acquire('s'));
      expect(SessionLockedError.isInstance(error)).toBe(true);
      expect((error as SessionLockedError).pid).toBe(Number(pid));
      expect((error as SessionLockedError).message).toContain(`pid ${pid}`);
      expect((error as SessionLockedError).kind).toBe('session_locked');

      // A reader sees what the holder persisted, without waiting for or touching the lock.
      const graph = await store.loadSession('s');
      expect(graph.leaf).toBe(leaf);
      expect(graph.pathTo(leaf)).toEqual([user(`held by ${pid}`)]);

      holder.process.stdin!.end(); // the holder closes its session and releases the lock
      expect(await nextLine(holder)).toBe('closed');
      expect(await holder.exited).toBe(0);
      const writer = await SessionWriter.open(store, 's');
      expect(writer.graph.leaf).toBe(leaf);
      await writer.close();
    } finally {
      holder.process.kill('SIGKILL');
    }
  });

  it('recovers the lock of a writer that exited without closing', async () => {
    const crashed = spawnFixture('hold-lock.ts', [root, 's', 'crash']);
    const [, pid, leaf] = (await nextLine(crashed)).split(' ');
    expect(await crashed.exited).toBe(0);
    expect(JSON.parse(readFileSync(join(root, 's.lock'), 'utf8')).pid).toBe(Number(pid));

    const store = new SessionStore(root);
    const writer = await SessionWriter.open(store, 's');
    expect(writer.graph.leaf).toBe(leaf);
    expect(JSON.parse(readFileSync(join(root, 's.lock'), 'utf8')).pid).toBe(process.pid);
    writer.append(user('taken over'), 1);
    await writer.close();
    expect(readdirSync(root)).toEqual(['s.jsonl']); // lock released, no temp or stale file left behind
  });

  it('recovers a stale lock file naming a dead pid, and refuses an unreadable one', async () => {
    const store = new SessionStore(root);
    const lockPath = join(root, 's.lock');
    writeFileSync(lockPath, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'old', acquiredAt: '2020-01-01T00:00:00Z' }));
    await store.release(await store.acquire('s'));
    expect(existsSync(lockPath)).toBe(false);

    writeFileSync(lockPath, 'not a lock');
    const error = await rejection(store.acquire('s'));
    expect(SessionLockedError.isInstance(error)).toBe(true);
    expect((error as SessionLockedError).pid).toBeNull();
    expect(readFileSync(lockPath, 'utf8')).toBe('not a lock'); // never removed on a guess
  });

  it("recovers a stale lock naming this process's pid that this process never took (a restarted container reuses pids)", async () => {
    const store = new SessionStore(root);
    const lockPath = join(root, 's.lock');
    // Left by an earlier process that crashed and happened to run with the pid this one has now.
    writeFileSync(
      lockPath,
      JSON.stringify({ pid: process.pid, host: hostname(), token: 'earlier-life', acquiredAt: '2020-01-01T00:00:00Z' }),
    );
    const writer = await SessionWriter.open(store, 's');
    expect(JSON.parse(readFileSync(lockPath, 'utf8')).token).not.toBe('earlier-life');
    writer.append(user('after the restart'), 1);
    await writer.close();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('refuses a second acquire in the same process until the first lease is released', async () => {
    const first = new SessionStore(root);
    const second = new SessionStore(root);
    const lease = await first.acquire('s');
    for (const store of [first, second]) {
      const error = await rejection(store.acquire('s'));
      expect(SessionLockedError.isInstance(error)).toBe(true);
      expect((error as SessionLockedError).pid).toBe(process.pid);
    }
    await first.release(lease);
    await second.release(await second.acquire('s'));
  });

  it('lets many processes race for one session: exactly one wins, the rest are told who holds it', async () => {
    const racers = Array.from({ length: 4 }, () => spawnFixture('hold-lock.ts', [root, 'race']));
    try {
      const outcomes = (await Promise.all(racers.map((racer) => nextLine(racer)))).map((line) => line.split(' '));
      const winners = outcomes.filter(([word]) => word === 'ready');
      expect(winners).toHaveLength(1);
      const winner = Number(winners[0][1]);
      expect(outcomes.filter(([word]) => word === 'refused').map(([, pid]) => Number(pid))).toEqual([winner, winner, winner]);
      expect(JSON.parse(readFileSync(join(root, 'race.lock'), 'utf8')).pid).toBe(winner);
      const graph = await new SessionStore(root).loadSession('race');
      expect(graph.size).toBe(1); // one writer's history, never interleaved
    } finally {
      for (const racer of racers) racer.process.kill('SIGKILL');
    }
  });

  it('writes nothing once its lock file was removed or replaced behind its back', async () => {
    const store = new SessionStore(root);
    const writer = await SessionWriter.open(store, 's');
    writer.append(user('one'), 1);
    await writer.persist();
    const size = readFileSync(join(root, 's.jsonl')).length;

    rmSync(join(root, 's.lock'));
    writeFileSync(join(root, 'other.lock'), JSON.stringify({ pid: process.pid, host: hostname(), token: 'someone else' }));
    renameSync(join(root, 'other.lock'), join(root, 's.lock'));
    writer.append(user('two'), 2);
    const error = await rejection(writer.persist());
    expect(SessionLockLostError.isInstance(error)).toBe(true);
    expect(SessionLeaseLostError.isInstance(error)).toBe(true);
    expect((error as SessionLockLostError).kind).toBe('session_lock_lost');
    expect(readFileSync(join(root, 's.jsonl')).length).toBe(size);
    expect(writer.hasPending).toBe(true); // kept, not dropped
    // Closing cannot write them either: it says so, and lets go; the other holder's lock stays where it is.
    await expect(writer.close()).rejects.toSatisfy(SessionLockLostError.isInstance);
    await writer.close();
    expect(readFileSync(join(root, 's.jsonl')).length).toBe(size);
    expect(JSON.parse(readFileSync(join(root, 's.lock'), 'utf8')).token).toBe('someone else');
  });
});
