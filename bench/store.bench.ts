// The session store against raw file I/O on the same bytes, measured in one run:
//   1. load + resume of a 100,000-turn session (~50 MB) vs readFileSync + JSON.parse of every line;
//   2. one durable persist of a settled run (4 turns + a head) vs a raw write + fsync of the same bytes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionGraph, SessionStore, SessionWriter } from '../src/runtime/store/index.js';
import { fmt, median, now, percentile, report } from './stats.js';
import { run } from './session-turns.js';

const TURNS = 100_000;
const LOAD_ROUNDS = 7;
const PERSIST_ROUNDS = 300;

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

const dir = mkdtempSync(join(tmpdir(), 'indusagi-store-bench-'));
try {
  // Build the session the way a conductor would, persisting after every settled run (nodes + a head).
  const graph = new SessionGraph('big');
  const lines: string[] = [];
  for (let i = 0; graph.size < TURNS; i++) {
    for (const turn of run(i)) lines.push(JSON.stringify({ type: 'node', node: graph.append(turn, 1_700_000_000_000 + graph.size) }));
    lines.push(JSON.stringify({ type: 'head', leaf: graph.leaf }));
  }
  const path = join(dir, 'big.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  lines.length = 0;
  const bytes = readFileSync(path).length;
  console.log(`session: ${graph.size} turns, ${(bytes / 1e6).toFixed(1)} MB, depth ${graph.nodesTo(graph.leaf!).length}`);

  const store = new SessionStore(dir);
  const raw: number[] = [];
  const subject: number[] = [];
  for (let round = 0; round < LOAD_ROUNDS; round++) {
    gc();
    let t0 = now();
    const parsed: unknown[] = [];
    for (const line of readFileSync(path, 'utf8').split('\n')) if (line.length > 0) parsed.push(JSON.parse(line));
    raw.push(now() - t0);
    if (parsed.length === 0) throw new Error('the raw baseline parsed nothing');

    gc();
    t0 = now();
    const loaded = await store.loadSession('big');
    const context = loaded.resume(loaded.leaf!);
    subject.push(now() - t0);
    if (context.length !== TURNS) throw new Error(`resume returned ${context.length} turns`);
  }
  report('load + resume of a 100k-turn session (median)', median(subject), median(raw), 'ms', 1.3);

  // Durable appends: each round persists one settled run; the raw side appends and fsyncs the same bytes.
  const writer = await SessionWriter.open(store, 'appends');
  const rawFile = await open(join(dir, 'raw.jsonl'), 'a');
  const persisted: number[] = [];
  const rawWrites: number[] = [];
  for (let round = 0; round < PERSIST_ROUNDS; round++) {
    const nodes = run(round).map((turn) => ({ type: 'node', node: writer.append(turn, round * 10 + writer.graph.size) }));
    // The same bytes persist will write: the run's node records and a head.
    const sameBytes = Buffer.from(
      [...nodes, { type: 'head', leaf: writer.graph.leaf }].map((record) => `${JSON.stringify(record)}\n`).join(''),
    );

    let t0 = now();
    await rawFile.write(sameBytes, 0, sameBytes.length);
    await rawFile.sync();
    rawWrites.push(now() - t0);

    t0 = now();
    await writer.persist();
    persisted.push(now() - t0);
  }
  await rawFile.close();
  await writer.close();
  report('durable persist of one settled run, 4 turns + head (median)', median(persisted), median(rawWrites), 'ms', 1.2);
  console.log(`  (${PERSIST_ROUNDS} runs; p90 persist ${fmt(percentile(persisted, 90))} ms, raw ${fmt(percentile(rawWrites, 90))} ms)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
