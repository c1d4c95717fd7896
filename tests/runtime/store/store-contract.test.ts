import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore } from '../../../src/runtime/store/index.js';
import { sessionStoreContract } from './session-store-contract.js';

sessionStoreContract('SessionStore (files)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'indusagi-contract-'));
  return { store: new SessionStore(join(dir, 'sessions')), close: () => rm(dir, { recursive: true, force: true }) };
});
