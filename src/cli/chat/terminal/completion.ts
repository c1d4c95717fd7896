import { opendir } from 'node:fs/promises';
import { join } from 'node:path';

/** Folders never offered: version control, dependencies, our own state. */
const SKIPPED = new Set(['.git', 'node_modules', '.indusagi']);
/** Enough for a large repository; a walk stops there. */
const MAX_ENTRIES = 20_000;
const MAX_DEPTH = 12;

/** The `@query` being typed before the cursor: `@` at the start or after a space, no space since. */
export function atToken(beforeCursor: string): { start: number; query: string } | null {
  const match = /(?:^|\s)@([^\s@]*)$/.exec(beforeCursor);
  if (match === null) return null;
  return { start: beforeCursor.length - match[1].length - 1, query: match[1] };
}

/**
 * Every file and folder under `root` (folders ending in `/`), as workspace-relative paths with `/`,
 * breadth first so shallow paths come first, each folder's entries by name; `.git`, `node_modules` and `.indusagi` are left out, and
 * symlinks are listed but not followed. Stops at `MAX_ENTRIES`.
 */
export async function workspacePaths(root: string): Promise<string[]> {
  const paths: string[] = [];
  let level: string[] = [''];
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const folder of level) {
      let dir;
      try {
        dir = await opendir(join(root, folder));
      } catch {
        // Unreadable (permissions) or gone since it was listed: nothing to offer there.
        continue;
      }
      const entries = [];
      for await (const entry of dir) if (!SKIPPED.has(entry.name)) entries.push(entry);
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        const path = `${folder}${entry.name}`;
        if (entry.isDirectory()) {
          paths.push(`${path}/`);
          next.push(`${path}/`);
        } else {
          paths.push(path);
        }
        if (paths.length >= MAX_ENTRIES) return paths;
      }
    }
    level = next;
  }
  return paths;
}

/**
 * How well `path` matches `query` typed fuzzily: the query's characters in order, case-insensitive;
 * runs of consecutive characters, matches at the start of a name (after `/`, `.`, `-`, `_`) and in
 * the last name score higher, gaps and long paths lower. Null when it does not match at all.
 */
export function fuzzyScore(query: string, path: string): number | null {
  if (query === '') return -path.length;
  const q = query.toLowerCase();
  const p = path.toLowerCase();
  const nameStart = p.replace(/\/$/, '').lastIndexOf('/') + 1;
  let score = 0;
  let qi = 0;
  let last = -2;
  for (let i = 0; i < p.length && qi < q.length; i++) {
    if (p[i] !== q[qi]) continue;
    if (i === last + 1) score += 6;
    else if (last >= 0) score -= Math.min(8, i - last - 1);
    if (i === 0 || '/._-'.includes(p[i - 1])) score += 8;
    if (i >= nameStart) score += 3;
    last = i;
    qi++;
  }
  if (qi < q.length) return null;
  return score - path.length * 0.1;
}

/** The best `limit` paths for `query`, best first (ties: shorter, then alphabetical). */
export function rankPaths(query: string, paths: readonly string[], limit = 8): string[] {
  const scored: Array<{ path: string; score: number }> = [];
  for (const path of paths) {
    const score = fuzzyScore(query, path);
    if (score !== null) scored.push({ path, score });
  }
  scored.sort((a, b) => b.score - a.score || a.path.length - b.path.length || a.path.localeCompare(b.path));
  return scored.slice(0, limit).map((s) => s.path);
}
