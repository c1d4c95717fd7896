import type { MemoryStore } from 'indusagi';

/**
 * The long-term memory one browser's agents use: the remember tool saves into the browser's own scope
 * (`{ resource: <browser> }`), and recall searches as that browser, so it finds the browser's records
 * and shared ones (saved without a scope: this example saves none; records an earlier version of it
 * saved are such). Another browser's records are out of reach whatever it asks. What a browser saved
 * is kept under the same name its conversations have (a hash of its cookie, browsers.ts).
 */
export function browserMemory(memory: MemoryStore, browser: string): MemoryStore {
  const scope = { resource: browser };
  return {
    save: (text, opts) => memory.save(text, { ...opts, scope }),
    search: (query, opts) => memory.search(query, { ...opts, scope }),
    forget: (id, opts) => memory.forget(id, { ...opts, scope }),
  };
}
