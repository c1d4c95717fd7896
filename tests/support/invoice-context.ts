// The context manager of the "invoice Acme" scenario that several context tests drive end to end: a
// memory that knows where Acme's invoices go and remembers an INV-1 invoice once a reply mentions it,
// and the tools loaded lazily, with the local ones pinned.
import { createContextManager, lazyToolSource, memorySource } from '../../src/context/index.js';
import { createMemoryStore } from '../../src/memory/index.js';

/** Returns the memory store (to check what was saved) and the manager over it and `tools`. */
export async function invoiceContext(tools: unknown[], pin: string[]) {
  const memory = createMemoryStore();
  await memory.save('Invoices for Acme go to billing@acme.test');
  const context = createContextManager({
    budget: { maxTokens: 100_000, reserve: 1024, count: (text) => Math.ceil(text.length / 4) },
    sources: [
      memorySource(memory, { remember: ({ text }) => (text.includes('INV-1') ? ['Acme was invoiced as INV-1'] : []) }),
      lazyToolSource(tools, { pin }),
    ],
  });
  return { memory, context };
}
