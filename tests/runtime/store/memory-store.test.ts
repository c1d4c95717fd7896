import { MemorySessionStore } from '../../../src/runtime/store/index.js';
import { sessionStoreContract } from './session-store-contract.js';

sessionStoreContract('MemorySessionStore', async () => ({ store: new MemorySessionStore(), close: async () => {} }));
