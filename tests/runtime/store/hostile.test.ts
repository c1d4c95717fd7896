// Red-team findings against the store (issue 12: 3, 5, 9, 12): each test reproduces one.
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  InvalidSessionIdError,
  SessionIoError,
  SessionPathUnsafeError,
  SessionStore,
  SessionWriter,
} from '../../../src/runtime/store/index.js';
import { createConductor } from '../../../src/runtime/agent/index.js';
import type { ModelInvoker } from '../../../src/runtime/contract/index.js';
import { assistant, tempRoot, user } from './helpers.js';

let root: string;
let outside: string;
let cleanup: () => void;
let cleanupOutside: () => void;
beforeEach(() => {
  ({ root, cleanup } = tempRoot());
  ({ root: outside, cleanup: cleanupOutside } = tempRoot());
});
afterEach(() => {
  cleanup();
  cleanupOutside();
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/** Everything about a file that a write through a link would change. */
function fingerprint(path: string): string {
  const info = statSync(path);
  return `${readFileSync(path, 'utf8')}|${info.size}|${info.mtimeMs}`;
}

describe('symbolic links in the store root are never followed', () => {
  it('refuses a session file that is a link to a file outside the root, touching neither, and keeps no lock', async () => {
    const target = join(outside, 'victim.txt');
    writeFileSync(target, 'precious\n');
    const before = fingerprint(target);
    symlinkSync(target, join(root, 's.jsonl'));
    const store = new SessionStore(root);

    for (const open of [() => SessionWriter.open(store, 's'), () => store.loadSession('s')]) {
      const error = await rejection(open());
      expect(SessionPathUnsafeError.isInstance(error)).toBe(true);
      expect((error as SessionPathUnsafeError).kind).toBe('session_path_unsafe');
      expect((error as Error).message).toMatch(/symbolic link/);
    }
    expect(fingerprint(target)).toBe(before);
    // The failed open let its writer lock go: once the link is gone the session opens at once.
    expect(readdirSync(root)).toEqual(['s.jsonl']);
    rmSync(join(root, 's.jsonl'));
    const writer = await SessionWriter.open(store, 's');
    writer.append(user('mine'), 1);
    await writer.close();
    expect(lstatSync(join(root, 's.jsonl')).isFile()).toBe(true);
    expect(fingerprint(target)).toBe(before);
  });

  it('refuses to append when a link replaced the session file after it was opened', async () => {
    const target = join(outside, 'victim.txt');
    writeFileSync(target, 'precious\n');
    const before = fingerprint(target);
    const store = new SessionStore(root);
    const writer = await SessionWriter.open(store, 's');
    writer.append(user('first'), 1);
    symlinkSync(target, join(root, 's.jsonl')); // planted between open and the first write

    const error = await rejection(writer.persist());
    expect(SessionPathUnsafeError.isInstance(error) || SessionIoError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/symbolic link/);
    expect(fingerprint(target)).toBe(before);
    expect(writer.hasPending).toBe(true); // nothing was lost: the records wait for the next persist

    rmSync(join(root, 's.jsonl'));
    await writer.close();
    const reloaded = await store.loadSession('s');
    expect(reloaded.resume(reloaded.leaf!)).toEqual([user('first')]);
  });

  it('refuses a session file that is a directory or a FIFO, without blocking on the FIFO', async () => {
    mkdirSync(join(root, 'dir.jsonl'));
    const store = new SessionStore(root);
    const error = await rejection(store.loadSession('dir'));
    expect(SessionPathUnsafeError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/not a regular file but a directory/);
    if (spawnSync('mkfifo', [join(root, 'pipe.jsonl')]).status !== 0) return; // no mkfifo here (Windows)
    for (const open of [() => store.loadSession('pipe'), () => SessionWriter.open(store, 'pipe')]) {
      const refused = await rejection(open());
      expect(SessionPathUnsafeError.isInstance(refused)).toBe(true);
      expect((refused as Error).message).toMatch(/not a regular file but a FIFO/);
    }
    expect(existsSync(join(root, 'pipe.lock'))).toBe(false);
  });

  it('names a lock file that is a dangling link for what it is, instead of reporting contention', async () => {
    symlinkSync(join(outside, 'nothing-here'), join(root, 's.lock'));
    const store = new SessionStore(root);
    const error = await rejection(store.acquire('s'));
    expect(SessionPathUnsafeError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/lock file .*is a symbolic link/);
    expect(existsSync(join(outside, 'nothing-here'))).toBe(false);
    expect(readdirSync(root)).toEqual(['s.lock']); // no temp file left behind
  });

  it('never reads or removes what a lock link points to, even when it looks like a stale lock', async () => {
    const target = join(outside, 'fake.lock');
    writeFileSync(target, `${JSON.stringify({ pid: 999_999_999, host: 'x', token: 't', acquiredAt: '' })}\n`);
    const before = fingerprint(target);
    symlinkSync(target, join(root, 's.lock'));
    const store = new SessionStore(root);
    const error = await rejection(store.acquire('s'));
    expect(SessionPathUnsafeError.isInstance(error)).toBe(true);
    expect(fingerprint(target)).toBe(before);
    expect(lstatSync(join(root, 's.lock')).isSymbolicLink()).toBe(true);
  });
});

describe('session ids', () => {
  it('refuses C1 controls, line and paragraph separators, bidi overrides and lone surrogates', async () => {
    const store = new SessionStore(root);
    for (const id of ['\u009b31m', 'a\u0085b', 'a\u2028b', 'a\u2029b', 'evil\u202egpj.exe', 'a\u2066b', 'a\u200fb', 'a\ud800', '\udfffb']) {
      for (const call of [() => store.acquire(id), () => store.read(id), () => store.readLivePath(id)]) {
        const error = await rejection(call());
        expect(InvalidSessionIdError.isInstance(error), JSON.stringify(id)).toBe(true);
      }
    }
    expect(readdirSync(root)).toEqual([]);
  });
});

describe('a damaged condensation marker', () => {
  /** A session whose last persist holds a condensation summary and two turns after it. */
  async function compactedSession(store: SessionStore) {
    const writer = await SessionWriter.open(store, 's');
    writer.append(user('old question'), 1);
    const kept = writer.append(assistant('old answer'), 2);
    const before = writer.append(user('recent question'), 3);
    await writer.persist();
    const summary = writer.append(user('[summary] an old exchange'), 4, { condenses: { firstKept: kept.id } });
    writer.append(assistant('after the summary'), 5);
    const leaf = writer.append(user('latest'), 6);
    await writer.close();
    return { kept, before, summary, leaf };
  }

  /** Changes one hex digit of the summary's `firstKept` on disk: still well-formed, naming no ancestor. */
  function flipFirstKept(path: string, firstKept: string): number {
    const lines = readFileSync(path, 'utf8').split('\n');
    const index = lines.findIndex((line) => line.includes(`"condenses":{"firstKept":"${firstKept}"}`));
    const flipped = `${firstKept.slice(0, 10)}${firstKept[10] === 'a' ? 'b' : 'a'}${firstKept.slice(11)}`;
    lines[index] = lines[index].replace(firstKept, flipped);
    writeFileSync(path, lines.join('\n'));
    return index + 1;
  }

  it('is reported like a damaged line, the leaf falls back visibly, and the session opens and resumes', async () => {
    const store = new SessionStore(root);
    const { before, summary, leaf, kept } = await compactedSession(store);
    const line = flipFirstKept(join(root, 's.jsonl'), kept.id);

    const writer = await SessionWriter.open(store, 's');
    const { graph, report } = writer;
    expect(report.skipped).toEqual([{ line, reason: expect.stringMatching(/condensation .*not one of its ancestors/) }]);
    expect(report.leafFallback).toEqual({ recorded: leaf.id, restored: before.id });
    expect(report.orphans.map((orphan) => orphan.parent)).toContain(summary.id);
    expect(graph.leaf).toBe(before.id);
    expect(graph.resume(graph.leaf!)).toEqual([user('old question'), assistant('old answer'), user('recent question')]);
    await writer.close();
    expect(existsSync(join(root, 's.lock'))).toBe(false);

    const { report: again } = await store.loadSessionWithReport('s');
    expect(again.skipped.map((entry) => entry.line)).toEqual([line]);
  });

  it('lets an agent resume the session from the fallback and close it, so the next writer is not locked out', async () => {
    const store = new SessionStore(root);
    const { before, kept } = await compactedSession(store);
    const line = flipFirstKept(join(root, 's.jsonl'), kept.id);
    const invokeModel: ModelInvoker = async () => {
      throw new Error('resuming calls no model');
    };

    const agent = createConductor({ model: 'm' }, { invokeModel, store });
    const snapshot = await agent.resume('s');
    expect(snapshot.messages).toEqual([user('old question'), assistant('old answer'), user('recent question')]);
    expect(snapshot.loadReport?.skipped.map((entry) => entry.line)).toEqual([line]);
    expect(snapshot.loadReport?.leafFallback?.restored).toBe(before.id);
    await agent.close();

    const other = new SessionStore(root);
    const next = await SessionWriter.open(other, 's');
    expect(next.graph.leaf).toBe(before.id);
    await next.close();
  });
});
