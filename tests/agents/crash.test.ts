// A three-level tree of agents killed with SIGKILL at 100 moments picked from a seeded sample, across
// the whole tree: while the lead, a research sub-agent or a web sub-agent asks its model, runs a tool,
// waits for an approval or writes its session; each time a new process picks the tree up. After every
// kill: no settled step of any agent was asked again, no tool that is not idempotent ran twice, and
// everything that ran is in a session. At the end the last process finishes the run in flight.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFixture, startLines, type LineChild } from '../support/child-process.js';
import { SessionStore } from '../../src/runtime/index.js';
import type { SessionGraph, Turn } from '../../src/runtime/index.js';

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-tree-crash-'));
  // Bundled once, so each of the many processes starts in tens of milliseconds, not a TypeScript compile.
  bundle = await bundleFixture(new URL('./fixtures/tree-crash-process.ts', import.meta.url), dir);
});
// A failed assertion leaves the process started ahead of its turn waiting for its word: end it before the folder goes.
const spawned = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** Mulberry32: the same kill moments on every run of the test. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Child = LineChild & {
  /** Lets the process begin: it starts ahead of its turn, while the one before it runs, so its start-up costs no time. */
  go(): void;
};

function start(args: Record<string, unknown>): Child {
  const child = startLines(bundle, args, { stdin: 'pipe' });
  spawned.add(child.process);
  return { ...child, go: () => void child.process.stdin!.end('go\n') };
}

const lines = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
    : [];
const textOf = (turn: Turn) => turn.blocks.flatMap((b) => (b.kind === 'text' ? [b.text] : [])).join('');
const idOf = (text: string) => text.replace(/[^A-Za-z0-9]/g, '');

type Session = { id: string; key: string; path: Turn[] };

// Sessions read at the last kill, by id, with the size of their file then: only files that grew are read again.
const read = new Map<string, { size: number; session: Session }>();

async function sessions(store: SessionStore, root: string): Promise<Session[]> {
  const ids = (existsSync(root) ? await readdir(root) : []).filter((f) => f.endsWith('.jsonl')).map((f) => f.slice(0, -'.jsonl'.length));
  const out: Session[] = [];
  for (const id of ids) {
    const size = statSync(join(root, `${id}.jsonl`)).size;
    const known = read.get(id);
    if (known !== undefined && known.size === size) {
      out.push(known.session);
      continue;
    }
    const graph: SessionGraph = await store.loadSession(id);
    const path = graph.leaf === null ? [] : graph.pathTo(graph.leaf);
    const session = { id, key: path.length === 0 ? '' : idOf(textOf(path[0])), path };
    read.set(id, { size, session });
    out.push(session);
  }
  return out;
}

/** Every call, result and open call (of the last reply) of a session's live path. */
function callsOf(path: Turn[]) {
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const turn of path)
    for (const b of turn.blocks) {
      if (b.kind === 'tool_call') calls.add(b.id);
      if (b.kind === 'tool_result') answered.add(b.callId);
    }
  const last = path.findLast((t) => t.role === 'assistant');
  const open = new Set((last?.blocks ?? []).flatMap((b) => (b.kind === 'tool_call' && !answered.has(b.id) ? [b.id] : [])));
  return { calls, answered, open };
}

describe('a tree of agents killed at random moments', () => {
  it('never asks a settled step again nor runs a tool twice, and the last process finishes the run', async () => {
    const root = join(dir, 'sessions');
    const files = { markerFile: join(dir, 'markers.log'), stepsFile: join(dir, 'steps.log'), violationsFile: join(dir, 'violations.log') };
    const store = new SessionStore(root);
    const random = seeded(29);
    const KILLS = 100;
    // Each agent's durable replies after the last kill: session key -> indexes of its assistant turns.
    let durable = new Map<string, Set<number>>();
    let midCall = 0;
    const argsOf = (proc: number) => ({ storeDir: root, ...files, proc, rounds: proc < KILLS ? 1_000 : 0 });
    let next = start(argsOf(0));
    for (let proc = 0; proc < KILLS; proc++) {
      const child = next;
      next = start(argsOf(proc + 1));
      child.go();
      // Mostly once the tree runs again; some while it opens, resumes and probes its sub-agents.
      const at = random() < 0.15 ? 'opened' : `e ${1 + Math.floor(random() * 150)}`;
      await child.waitFor((l) => l === at).catch(() => undefined);
      child.process.kill('SIGKILL');
      await child.exited;

      const all = await sessions(store, root);
      const byCall = new Map<string, Session>();
      for (const session of all) for (const id of callsOf(session.path).calls) byCall.set(id, session);
      // Tools: what ran is in a session, answered or in the step in flight; nothing but reads ran twice.
      const counts = new Map<string, number>();
      for (const marker of lines(files.markerFile)) {
        const [tool, id] = marker.split(' ');
        counts.set(id, (counts.get(id) ?? 0) + 1);
        const session = byCall.get(id);
        expect(session, `kill ${proc}: ${tool} ${id} ran but no session holds its call`).toBeDefined();
        const { answered, open } = callsOf(session!.path);
        expect(answered.has(id) || open.has(id), `kill ${proc}: ${id} ran, has no result, and is not in flight`).toBe(true);
        expect(counts.get(id)!, `kill ${proc}: ${tool} ${id} ran ${counts.get(id)} times`).toBeLessThanOrEqual(tool === 'read' ? 2 : 1);
      }
      if (all.some((session) => callsOf(session.path).open.size > 0)) midCall++;
      // Tasks: a sub-agent picked up holds its task once (one started over would be given it again), the lead each round once.
      for (const session of all) {
        const prompts = session.path.filter((t) => t.role === 'user' && t.blocks.some((b) => b.kind === 'text')).map(textOf);
        if (session.id === 'lead') expect(new Set(prompts).size, `kill ${proc}: a round was prompted twice`).toBe(prompts.length);
        // (A session the kill caught as it was created holds nothing yet.)
        else expect(prompts, `kill ${proc}: ${session.id} was given its task again`).toHaveLength(session.path.length === 0 ? 0 : 1);
      }
      // Steps: this process never asked a model for a reply that was durable before it started.
      for (const step of lines(files.stepsFile)) {
        const [by, key, sent] = step.split(' ');
        if (Number(by) !== proc) continue;
        expect(durable.get(key)?.has(Number(sent)) ?? false, `kill ${proc}: ${key} asked again for its reply ${sent}`).toBe(false);
      }
      durable = new Map(all.map((s) => [s.key, new Set(s.path.flatMap((t, i) => (t.role === 'assistant' ? [i] : [])))]));
    }
    expect(lines(files.violationsFile)).toEqual([]);
    // The kills did land inside the tree, with calls cut off, many times.
    expect(midCall).toBeGreaterThan(KILLS / 5);

    // The last process picks the run in flight up and finishes it.
    const last = next;
    last.go();
    await last.waitFor((l) => l === 'settled settled');
    await last.exited;
    const all = await sessions(store, root);
    for (const session of all) expect(callsOf(session.path).open.size, `${session.id} has calls without results`).toBe(0);
    const marks = lines(files.markerFile).map((m) => m.split(' ')[1]);
    const answered = new Set(all.flatMap((s) => [...callsOf(s.path).answered]));
    for (const id of marks) expect(answered.has(id)).toBe(true);
    const lead = all.find((s) => s.id === 'lead')!;
    expect(lead.path.at(-1)!.role).toBe('assistant');
    expect(textOf(lead.path.at(-1)!)).toMatch(/^lead finished round \d+$/);
    // Sub-agent sessions hang off the lead's: lead.<call>, lead.<call>.<call>.
    expect(all.filter((s) => s.id.split('.').length === 3).length).toBeGreaterThan(0);
    expect(lines(files.violationsFile)).toEqual([]);
  }, 300_000);
});
