// Sessions and long-term memory are different stores with similar names (`MemorySessionStore` keeps
// conversations in memory, `createMemoryStore()` keeps facts to recall): one given where the other
// belongs is refused with a message that says which is which.
import { describe, expect, it } from 'vitest';
import { AgentConfigError, createConductor, MemorySessionStore } from '../../../src/runtime/index.js';
import { ContextInputError, memorySource } from '../../../src/context/index.js';
import { createMemoryStore } from '../../../src/memory/index.js';
import { scriptedModel } from './helpers.js';

describe('a store given where the other kind belongs', () => {
  it('long-term memory as the agent’s session store', () => {
    const attempt = () => createConductor({ model: 'm' }, { invokeModel: scriptedModel().invoke, store: createMemoryStore() as never });
    expect(attempt).toThrow(AgentConfigError);
    expect(attempt).toThrow(/`deps.store` keeps the agent’s sessions .* long-term memory store .* memorySource/);
  });

  it('a session store as the memory a context source recalls from', () => {
    const attempt = () => memorySource(new MemorySessionStore() as never);
    expect(attempt).toThrow(ContextInputError);
    expect(attempt).toThrow(/long-term memory of facts .* A session store \(SessionStore, MemorySessionStore\) keeps conversations/);
  });

  it('each where it belongs is taken', () => {
    expect(() => createConductor({ model: 'm' }, { invokeModel: scriptedModel().invoke, store: new MemorySessionStore() })).not.toThrow();
    expect(() => memorySource(createMemoryStore())).not.toThrow();
  });
});
