// The tiny store docs/sessions.md shows ("Writing a store"), kept as tests/support/map-session-store.ts
// so that it compiles with the project: the page must show exactly that file, and it must pass the
// contract suite every shipped store passes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { extractBlocks } from '../../support/doc-examples.js';
import { MapSessionStore } from '../../support/map-session-store.js';
import { sessionStoreContract } from './session-store-contract.js';

const repo = join(import.meta.dirname, '../../..');

sessionStoreContract('MapSessionStore (docs/sessions.md)', async () => ({ store: new MapSessionStore(), close: async () => {} }));

it('docs/sessions.md shows the tiny store exactly as tests/support/map-session-store.ts holds it', () => {
  const file = readFileSync(join(repo, 'tests/support/map-session-store.ts'), 'utf8');
  const shown = extractBlocks(readFileSync(join(repo, 'docs/sessions.md'), 'utf8')).filter((block) =>
    block.includes('class MapSessionStore'),
  );
  expect(shown).toEqual([file]);
});
