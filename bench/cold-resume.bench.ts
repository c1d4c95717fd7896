// A cold resume: a fresh process resuming a session whose live context is 10,000 turns, as every
// `indusagi chat --session` and every served run on a new worker does, against a fresh process reading
// and parsing the same file (the floor: every byte read once, every line parsed once). The resume
// imports `SessionStore` from the package's published entry for it, `indusagi/runtime`, compiled as
// the package ships it (bench/built.ts: tsc's emit of src/, under a package.json saying ES modules):
// what a user's `import { SessionStore } from 'indusagi/runtime'` loads, not the store's own folder.
// Both children are plain node, each timing itself from its first line: process start-up is outside
// both figures, importing the entry inside the resume's (its share is printed on its own, from a third
// child that only imports it). Interleaved rounds, median, in wall-clock time and in CPU time (steadier
// on a loaded machine). Target (issue 40.3): <= 1.5x.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SessionStore, SessionWriter } from '../src/runtime/store/index.js';
import { fmt, median, report } from './stats.js';
import { run } from './session-turns.js';
import { builtEntry } from './built.js';

const TURNS = 10_000;
const ROUNDS = 9;
const probe = fileURLToPath(new URL('./cold-resume-probe.mjs', import.meta.url));
const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
const dir = mkdtempSync(join(base, 'indusagi-cold-resume-'));
const entry = await builtEntry('indusagi/runtime');

function child(mode: 'resume' | 'parse' | 'import'): { ms: number; cpuMs: number; turns: number } {
  const result = spawnSync(process.execPath, [probe, mode, dir, 'live', entry], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${mode} probe failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as { ms: number; cpuMs: number; turns: number };
}

try {
  // Written as an agent writes: runs of four turns, each persisted, so the file holds its checkpoints.
  const writer = await SessionWriter.open(new SessionStore(dir), 'live');
  let at = 1_700_000_000_000;
  for (let i = 0; i < TURNS / 4; i++) {
    for (const turn of run(i)) writer.append(turn, at++);
    await writer.persist();
  }
  await writer.close();

  // One discarded round each: the file and the compiled code are in the page cache from here on.
  child('resume');
  child('parse');
  const resume: number[] = [];
  const parse: number[] = [];
  const resumeCpu: number[] = [];
  const parseCpu: number[] = [];
  const importCpu: number[] = [];
  let turns = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const r = child('resume');
    turns = r.turns;
    resume.push(r.ms);
    resumeCpu.push(r.cpuMs);
    const p = child('parse');
    parse.push(p.ms);
    parseCpu.push(p.cpuMs);
    importCpu.push(child('import').cpuMs);
  }
  console.log(`cold resume of a ${turns}-turn live context in a fresh process vs reading and parsing its file there, median of ${ROUNDS}`);
  report('  cold resume', median(resume), median(parse), 'ms', 1.5);
  report('  cold resume, CPU time', median(resumeCpu), median(parseCpu), 'ms', 1.5);
  console.log(`  (of which importing indusagi/runtime alone: ${fmt(median(importCpu))} ms CPU, median of ${ROUNDS})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
