import type { MemoryStore } from '../memory/types.js';
import { recallMemory } from '../memory/recall.js';
import { rememberFacts, turnContext } from '../memory/remember.js';
import type { ContextSource, MemorySourceOptions } from './types.js';
import { ContextInputError } from './errors.js';

/**
 * A source named 'memory' over a `MemoryStore`. Before the model runs it recalls records matching the
 * prompt into the system prompt; after the turn it saves exactly what `remember` returns, with the
 * turn's words as each record's `context` (see `SaveOptions.context`). It never
 * decides on its own what to save: without `remember`, nothing is written.
 */
export function memorySource(memory: MemoryStore, opts?: MemorySourceOptions): ContextSource {
  if (typeof memory?.search !== 'function' || typeof memory.save !== 'function') {
    throw new ContextInputError(
      'memorySource needs a MemoryStore, long-term memory of facts (createMemoryStore(), PostgresMemoryStore: an object with save and ' +
        'search). A session store (SessionStore, MemorySessionStore) keeps conversations instead; it goes to the agent as deps.store.',
    );
  }
  const remember = opts?.remember;
  if (remember !== undefined && typeof remember !== 'function')
    throw new ContextInputError('remember must be a function (turn) => string[].');

  return {
    name: 'memory',
    async select(turn) {
      const { records, block } = await recallMemory(memory, turn.prompt, opts?.recall);
      return records.length === 0 ? null : { op: 'recalled', records, text: block };
    },
    async commit(turn) {
      if (!remember) return null;
      // Facts learned in a scoped conversation belong to that scope, as its recall does; the turns they
      // came from go with them as context (indexed at half weight), so a later search by what was
      // around them finds them too.
      const saved = await rememberFacts(memory, await remember(turn), {
        kind: opts?.rememberKind,
        scope: opts?.recall?.scope,
        context: turnContext(turn),
      });
      return saved.length === 0 ? null : { op: 'saved', records: saved };
    },
  };
}
