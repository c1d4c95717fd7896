import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { missing, runDocExamples } from '../../support/doc-examples.js';

it('every example in docs/sessions.md runs and prints what its comments say', async () => {
  // The examples write `./sessions`: a scratch folder of their own.
  const cwd = await mkdtemp(join(tmpdir(), 'indusagi-sessions-doc-'));
  try {
    const { code, stderr, blocks } = await runDocExamples('docs/sessions.md', { cwd });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    for (const block of blocks) expect(missing(block), `block ${block.index} printed:\n${block.printed.join('\n')}`).toEqual([]);
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
});
