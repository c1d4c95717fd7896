import { expect, it } from 'vitest';
import { missing, runDocExamples } from '../support/doc-examples.js';

it('every example in docs/subagents.md runs offline on the demo model and prints what its comments say', async () => {
  const { code, stderr, blocks } = await runDocExamples('docs/subagents.md');
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(blocks).toHaveLength(3);
  for (const block of blocks) expect(missing(block), block.printed.join('\n')).toEqual([]);
});
