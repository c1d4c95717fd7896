// The entry list has one source, tools/entries.json; package.json `exports`/`typesVersions` and
// tsconfig.json `paths` are generated from it (`npm run entries`). The repo's files match the list, and
// the check catches an entry added to the list but not generated, the way a hand edit would slip.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '../..');
const generator = join(repo, 'tools/entries.mjs');

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'indusagi-entries-'));
  await mkdir(join(scratch, 'tools'));
  await mkdir(join(scratch, 'src/entries'), { recursive: true });
  for (const file of ['package.json', 'tsconfig.json', 'tools/entries.json']) await cp(join(repo, file), join(scratch, file));
  const { entries } = JSON.parse(await readFile(join(repo, 'tools/entries.json'), 'utf8')) as { entries: Record<string, string> };
  for (const source of Object.values(entries)) {
    await mkdir(join(scratch, source, '..'), { recursive: true });
    await writeFile(join(scratch, source), 'export {};\n');
  }
  await cp(generator, join(scratch, 'tools/entries.mjs'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** Runs the generator in `dir`; its exit code and what it printed. */
async function entries(dir: string, ...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(dir, 'tools/entries.mjs'), ...args], { cwd: dir });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout + failed.stderr };
  }
}

describe('the entry list', () => {
  it('is what package.json and tsconfig.json hold in this repo', async () => {
    const { code, out } = await entries(repo, '--check');
    expect(out).toBe('');
    expect(code).toBe(0);
  });

  it('fails the check, naming both files, when an entry is listed but not generated; generating fixes it', async () => {
    const listFile = join(scratch, 'tools/entries.json');
    const list = JSON.parse(await readFile(listFile, 'utf8')) as { entries: Record<string, string> };
    list.entries['indusagi/extra'] = 'src/entries/extra.ts';
    await writeFile(listFile, JSON.stringify(list, null, 2));
    await writeFile(join(scratch, 'src/entries/extra.ts'), 'export const extra = 1;\n');

    const stale = await entries(scratch, '--check');
    expect(stale.code).toBe(1);
    expect(stale.out).toContain('package.json does not match tools/entries.json');
    expect(stale.out).toContain('tsconfig.json does not match tools/entries.json');

    await entries(scratch);
    expect(await entries(scratch, '--check')).toEqual({ code: 0, out: '' });
    const pkg = JSON.parse(await readFile(join(scratch, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
      typesVersions: { '*': Record<string, string[]> };
    };
    expect(pkg.exports['./extra']).toEqual({ types: './dist/entries/extra.d.ts', default: './dist/entries/extra.js' });
    expect(pkg.typesVersions['*'].extra).toEqual(['./dist/entries/extra.d.ts']);
    expect(await readFile(join(scratch, 'tsconfig.json'), 'utf8')).toContain('"indusagi/extra": ["./src/entries/extra.ts"]');
  });

  it('refuses an entry whose source does not exist, naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'indusagi-entries-missing-'));
    try {
      await mkdir(join(dir, 'tools'));
      for (const file of ['package.json', 'tsconfig.json', 'tools/entries.mjs']) await cp(join(scratch, file), join(dir, file));
      await writeFile(join(dir, 'tools/entries.json'), JSON.stringify({ entries: { indusagi: 'src/nowhere.ts' } }));
      const { code, out } = await entries(dir, '--check');
      expect(code).toBe(1);
      expect(out).toContain('"indusagi" maps to "src/nowhere.ts", which does not exist');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
