import { expect, it } from 'vitest';
import { missing, runDocExamples } from '../support/doc-examples.js';

it('every example in docs/mcp.md runs and prints what its comments say', async () => {
  const { code, stderr, blocks } = await runDocExamples('docs/mcp.md');
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(blocks.length).toBe(3);
  for (const block of blocks) expect(missing(block), `block ${block.index} printed:\n${block.printed.join('\n')}`).toEqual([]);
});
