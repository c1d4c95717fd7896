// The baseline of the resume benchmarks: what reading a session cost before checkpoints, at the least.
import { readFileSync } from 'node:fs';

/**
 * Reads the whole file (`readFileSync`) and `JSON.parse`s every line, keeping nothing; returns how many
 * lines it parsed. Lines are decoded one by one from the buffer, which is faster than one big string
 * and works past V8's ~512 MB string limit.
 */
export function fullParse(path: string): number {
  const bytes = readFileSync(path);
  let parsed = 0;
  for (let start = 0; start < bytes.length;) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    if (end > start) {
      JSON.parse(bytes.toString('utf8', start, end));
      parsed++;
    }
    start = end + 1;
  }
  return parsed;
}
