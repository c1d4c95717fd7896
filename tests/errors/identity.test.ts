import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Two minified bundles of the same error classes, as two bundlers (or two copies of the package in one
// app) would produce: class names are mangled, and each copy has its own classes.
type Errors = typeof import('../../src/entries/errors.js');
type Copy = Pick<Errors, 'IndusagiError' | 'RunFault' | 'RunAbortedError' | 'SessionLockedError'> & Pick<Errors, 'ToolError'>;

let dir: string;
let a: Copy;
let b: Copy;

async function bundle(name: string): Promise<Copy> {
  const entry = join(dir, `${name}-entry.ts`);
  const src = resolve('src');
  await writeFile(
    entry,
    [
      `export { IndusagiError } from ${JSON.stringify(join(src, 'errors/index.ts'))};`,
      `export { RunFault, RunAbortedError } from ${JSON.stringify(join(src, 'runtime/loop/errors.ts'))};`,
      `export { SessionLockedError } from ${JSON.stringify(join(src, 'runtime/store/errors.ts'))};`,
      `export { ToolError } from ${JSON.stringify(join(src, 'runtime/tools/tool-error.ts'))};`,
    ].join('\n'),
  );
  const outfile = join(dir, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    minify: true,
    keepNames: false,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
  });
  return import(pathToFileURL(outfile).href);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-identity-'));
  a = await bundle('a');
  b = await bundle('b');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('error identity after minification, across two copies of the module', () => {
  it('mangles the class names, so nothing may rely on constructor.name', () => {
    expect(a.RunFault.name).not.toBe('RunFault');
  });

  it('keeps each error its stable name and kind', () => {
    const error = new a.RunAbortedError();
    expect(error.name).toBe('RunAbortedError');
    expect(error.kind).toBe('aborted');
    expect(new a.ToolError('nope').name).toBe('ToolError');
  });

  it('recognises an error from the other copy by its own class only', () => {
    const aborted = new a.RunAbortedError();
    expect(b.RunAbortedError.isInstance(aborted)).toBe(true);
    expect(b.IndusagiError.isInstance(aborted)).toBe(true);
    expect(b.RunFault.isInstance(aborted)).toBe(false);
    expect(b.SessionLockedError.isInstance(aborted)).toBe(false);
    expect(aborted instanceof b.RunAbortedError).toBe(false);
  });

  it('tells plain errors and look-alikes apart', () => {
    const fake = Object.assign(new Error('x'), { name: 'RunAbortedError', kind: 'aborted' });
    expect(b.RunAbortedError.isInstance(fake)).toBe(false);
    expect(b.IndusagiError.isInstance(null)).toBe(false);
    expect(b.IndusagiError.isInstance('RunAbortedError')).toBe(false);
  });

  it('recognises a subclass of yours that names itself, and one that does not by identity', () => {
    class QuotaError extends a.IndusagiError {
      static override readonly errorName: string = 'QuotaError';
      constructor() {
        super('quota', 'over quota');
      }
    }
    class Unnamed extends a.ToolError {}
    expect(QuotaError.isInstance(new QuotaError())).toBe(true);
    expect(b.IndusagiError.isInstance(new QuotaError())).toBe(true);
    expect(QuotaError.isInstance(new a.ToolError('x'))).toBe(false);
    const unnamed = new Unnamed('x');
    expect(unnamed.name).toBe('ToolError');
    expect(b.ToolError.isInstance(unnamed)).toBe(true);
    expect(Unnamed.isInstance(unnamed)).toBe(true);
    expect(Unnamed.isInstance(new a.ToolError('y'))).toBe(false);
  });

  it('keeps the names out of JSON', () => {
    expect(Object.keys(new a.RunAbortedError())).not.toContain('names');
    expect(JSON.stringify(new a.ToolError('m'))).toBe(JSON.stringify({ kind: 'tool_error', name: 'ToolError' }));
  });
});

describe('isInstance unbound', () => {
  it('works as a callback, each class with its own checker', () => {
    const errors = [new a.RunAbortedError(), new a.ToolError('x'), new Error('plain')];
    expect(errors.filter(b.RunAbortedError.isInstance)).toEqual([errors[0]]);
    expect(errors.filter(b.ToolError.isInstance)).toEqual([errors[1]]);
    expect(errors.filter(b.IndusagiError.isInstance)).toHaveLength(2);
  });
});
