// Resuming a session against a full parse of its file, as the file grows and the live context does not.
// Sessions of ~10 MB, 100 MB, 300 MB and 1 GB are written in this run through the store itself (a run of
// 4 turns persisted at a time, a condensation every 2,000 turns keeping 8, ~1,000 turns after the last
// one), then each is resumed (`loadSessionWithReport` + `resume(leaf)`: what an agent's resume does) and,
// in the same run, parsed whole (read the file, `JSON.parse` every line): the baseline every resume paid
// before checkpoints. Time is the median of several rounds in this process; memory is the peak RSS growth
// of one resume (or parse) in a fresh child process. Targets (issue 14): at most 0.05x the full parse at
// 300 MB, under 100 ms at 1 GB. The files live in a temp dir (RAM-backed where there is one) and are
// removed at the end. By default only ~10 MB and ~100 MB (a quick run); `STORE_RESUME_MB=10,100,300,1000`
// runs the whole curve (writing the 1 GB file takes minutes and ~2.5 GB of temp space).
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SessionStore, SessionWriter } from '../src/runtime/store/index.js';
import type { Turn } from '../src/runtime/contract/index.js';
import { fmt, median, now, report } from './stats.js';
import { run } from './session-turns.js';
import { fullParse } from './full-parse.js';

const SIZES_MB = (process.env.STORE_RESUME_MB ?? '10,100').split(',').map(Number);
const COMPACT_EVERY = 2_000;
const KEEP = 8;
const LIVE_TURNS = 1_000;
// The writer is closed and reopened (resumed from the tail) this often, as separate agent sessions would.
const REOPEN_EVERY = 20_000;
const RESUME_ROUNDS = 11;

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const probe = fileURLToPath(new URL('./store-resume-probe.ts', import.meta.url));
const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
const dir = mkdtempSync(join(base, 'indusagi-resume-bench-'));
const summary = (n: number): Turn => ({
  role: 'user',
  blocks: [{ kind: 'text', text: `[condensed earlier context] ${n} turns of file searches.` }],
});

try {
  const store = new SessionStore(dir);
  let writer = await SessionWriter.open(store, 'grow');
  let turns = 0;
  let sinceCompaction = 0;
  let sinceOpen = 0;
  let at = 1_700_000_000_000;
  let runs = 0;
  const writeRun = async () => {
    for (const turn of run(runs++)) writer.append(turn, at++);
    await writer.persist();
    turns += 4;
    sinceCompaction += 4;
    sinceOpen += 4;
    if (sinceOpen >= REOPEN_EVERY) {
      await writer.close();
      writer = await SessionWriter.open(store, 'grow');
      sinceOpen = 0;
    }
  };
  const condense = () => {
    const context = writer.graph.contextNodes(writer.graph.leaf!);
    writer.append(summary(turns), at++, { condenses: { firstKept: context[context.length - KEEP].id } });
    sinceCompaction = 0;
  };
  const fileBytes = () => (existsSync(store.pathOf('grow')) ? statSync(store.pathOf('grow')).size : 0);

  const started = now();
  const sessions: Array<{ id: string; mb: number }> = [];
  for (const mb of SIZES_MB) {
    // Grow with a condensation every 2,000 turns until ~1,000 turns short of the size, then condense once
    // more and write the fixed live context after it.
    const perTurn = fileBytes() / Math.max(1, turns) || 600;
    while (fileBytes() + LIVE_TURNS * perTurn < mb * 1e6) {
      if (sinceCompaction >= COMPACT_EVERY) condense();
      await writeRun();
    }
    condense();
    while (sinceCompaction < LIVE_TURNS) await writeRun();
    await writer.close();
    const id = `session-${mb}mb`;
    copyFileSync(store.pathOf('grow'), store.pathOf(id));
    sessions.push({ id, mb });
    writer = await SessionWriter.open(store, 'grow');
    sinceOpen = 0;
  }
  await writer.close();
  rmSync(store.pathOf('grow'));
  console.log(`wrote ${sessions.length} sessions in ${fmt((now() - started) / 1000)} s (${turns} turns in the largest)`);

  for (const { id, mb } of sessions) {
    const path = store.pathOf(id);
    const bytes = statSync(path).size;
    const resumes: number[] = [];
    const parses: number[] = [];
    let context = 0;
    for (let round = 0; round < RESUME_ROUNDS; round++) {
      gc();
      const t0 = now();
      const { graph: loaded, report: loadReport } = await store.loadSessionWithReport(id);
      context = loaded.resume(loaded.leaf!).length;
      resumes.push(now() - t0);
      if (loadReport.scope !== 'tail') throw new Error(`${id} was read whole: ${loadReport.fullScanReason}`);
    }
    for (let round = 0; round < (mb >= 300 ? 3 : 5); round++) {
      gc();
      const t0 = now();
      if (fullParse(path) === 0) throw new Error('the full parse found no records');
      parses.push(now() - t0);
    }
    const rss = (mode: string) => {
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', probe, mode, dir, id], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(`the ${mode} probe failed: ${child.stderr}`);
      return JSON.parse(child.stdout) as { rssGrowthMb: number };
    };
    const label = `${(bytes / 1e6).toFixed(0)} MB, ${context}-turn context`;
    const target = mb === 300 ? 0.05 : undefined;
    report(`resume of a ${label} vs full parse (median)`, median(resumes), median(parses), 'ms', target);
    const resumeRss = rss('resume').rssGrowthMb;
    const parseRss = rss('parse').rssGrowthMb;
    console.log(`  peak RSS growth: resume +${fmt(resumeRss)} MB, full parse +${fmt(parseRss)} MB`);
    if (mb === 1000) {
      const verdict = median(resumes) < 100 ? 'met' : 'MISSED';
      console.log(`  1 GB resume in ${fmt(median(resumes))} ms (target < 100 ms: ${verdict})`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
