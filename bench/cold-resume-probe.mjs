// Child process of cold-resume.bench.ts, run by plain node (no tsx): in a fresh process, either resumes
// a session as `indusagi chat --session` does (import the built `indusagi/runtime` entry, load the
// session, rebuild its live context), reads and parses its file (the floor), or only imports the entry. Prints the milliseconds from this module's
// first line to the context in hand, and the CPU time over the same span (every thread: GC helpers
// and the file-system pool count): loading our code is part of a cold resume, so it is inside.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const c0 = process.cpuUsage();
const [mode, dir, id, entry] = process.argv.slice(2);
const t0 = performance.now();
let turns = 0;
if (mode === 'resume') {
  const { SessionStore } = await import(pathToFileURL(entry).href);
  const graph = await new SessionStore(dir).loadSession(id);
  turns = graph.resume(graph.leaf).length;
} else if (mode === 'import') {
  const { SessionStore } = await import(pathToFileURL(entry).href);
  turns = typeof SessionStore === 'function' ? 1 : 0;
} else {
  // As bench/full-parse.ts: every line decoded and parsed once, nothing kept.
  const bytes = readFileSync(`${dir}/${id}.jsonl`);
  for (let start = 0; start < bytes.length;) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    if (end > start) {
      JSON.parse(bytes.toString('utf8', start, end));
      turns++;
    }
    start = end + 1;
  }
}
const ms = performance.now() - t0;
const { user, system } = process.cpuUsage(c0);
if (turns === 0) throw new Error(`${mode}: an empty context`);
process.stdout.write(JSON.stringify({ ms, cpuMs: (user + system) / 1000, turns }));
