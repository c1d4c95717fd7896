import { execFile } from 'node:child_process';
import { closeSync, copyFileSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteMemoryStore, SqliteMemoryFileError } from '../../src/memory-sqlite/index.js';
import type { SqliteMemoryStore } from '../../src/memory-sqlite/index.js';

const root = mkdtempSync(join(tmpdir(), 'indusagi-sqlite-corrupt-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const PAGE = 4096;

/** What one call did: resolved, rejected with the typed error, or rejected with anything else (named). */
async function outcome(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return 'ok';
  } catch (error) {
    if (SqliteMemoryFileError.isInstance(error)) return 'typed';
    return `raw ${(error as Error).name}: ${(error as Error).message}`;
  }
}

describe('a damaged SQLite memory file', () => {
  it('gives SqliteMemoryFileError, never a raw SqliteError, whichever page is garbled and whatever is called', async () => {
    const pristine = join(root, 'pristine.db');
    const store = await openSqliteMemoryStore(pristine);
    for (let i = 0; i < 300; i++) await store.save(`fact ${i} about the build and the deploy key ${'x'.repeat(100)}`);
    store.close();

    const outcomes: string[] = [];
    const pages = Math.floor(statSync(pristine).size / PAGE);
    // Every page but the header, one at a time: each damages a different table, index or FTS segment.
    for (let page = 1; page < pages; page++) {
      const path = join(root, `damaged-${page}.db`);
      copyFileSync(pristine, path);
      const fd = openSync(path, 'r+');
      writeSync(fd, Buffer.alloc(PAGE, 0xa5), 0, PAGE, page * PAGE);
      closeSync(fd);

      let damaged: SqliteMemoryStore | undefined;
      outcomes.push(
        await outcome(async () => {
          damaged = await openSqliteMemoryStore(path);
        }),
      );
      if (damaged === undefined) continue;
      for (const call of [
        () => damaged!.search('build'),
        () => damaged!.all(),
        () => damaged!.save('a new fact'),
        () => damaged!.forget('r1'),
      ]) {
        outcomes.push(await outcome(call));
      }
      damaged.close();
    }
    expect(outcomes.filter((o) => o.startsWith('raw'))).toEqual([]);
    // The damage was noticed (by open or by a call) for most pages, not silently read as data.
    expect(outcomes.filter((o) => o === 'typed').length).toBeGreaterThan(pages);
  });

  it('names the file and says it is damaged', async () => {
    const path = join(root, 'named.db');
    const store = await openSqliteMemoryStore(path);
    for (let i = 0; i < 50; i++) await store.save(`fact ${i} ${'y'.repeat(200)}`);
    store.close();
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(PAGE, 0xa5), 0, PAGE, PAGE);
    closeSync(fd);
    const reopened = await openSqliteMemoryStore(path);
    const error = await reopened.search('fact').then(
      () => undefined,
      (e: unknown) => e,
    );
    reopened.close();
    expect(SqliteMemoryFileError.isInstance(error)).toBe(true);
    expect((error as SqliteMemoryFileError).kind).toBe('sqlite_memory_file');
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toContain('damaged');
  });
});

describe('a memory file that cannot grow', () => {
  it('rejects the save that hit the limit with SqliteMemoryIoError and keeps every save that resolved before it', async () => {
    const path = join(root, 'limited.db');
    const script = join(root, 'fill.mts');
    const storeModule = resolve(import.meta.dirname, '../../src/memory-sqlite/index.ts');
    writeFileSync(
      script,
      `import { openSqliteMemoryStore } from ${JSON.stringify(storeModule)};
       process.on('SIGXFSZ', () => {}); // past the limit a write fails with EFBIG instead of killing us
       const store = await openSqliteMemoryStore(${JSON.stringify(path)});
       for (let i = 0; i < 10_000; i++) {
         try {
           await store.save('fact ' + i + ' ' + 'z'.repeat(1000));
         } catch (error) {
           console.log(JSON.stringify({ saved: i, name: error.name, kind: error.kind, code: error.code }));
           break;
         }
       }`,
    );
    // RLIMIT_FSIZE, the limit a full disk or a quota puts on the file, in 512-byte blocks.
    const { stdout } = await promisify(execFile)('sh', ['-c', `ulimit -f 400 && exec "${process.execPath}" --import tsx "${script}"`], {
      cwd: resolve(import.meta.dirname, '../..'),
    });
    const result = JSON.parse(stdout) as { saved: number; name: string; kind: string; code: string };
    expect(result).toMatchObject({
      name: 'SqliteMemoryIoError',
      kind: 'sqlite_memory_io',
      code: expect.stringMatching(/^SQLITE_(IOERR|FULL)/),
    });
    expect(result.saved).toBeGreaterThan(0);
    const reopened = await openSqliteMemoryStore(path);
    expect((await reopened.all()).length).toBe(result.saved);
    reopened.close();
  });
});
