import type { CompletedTurn } from '../runtime/contract/index.js';
import type { MemoryRecord, MemoryStore, SaveOptions } from './types.js';
import { MemoryInputError } from './errors.js';
import { checkText, describe } from './options.js';

/**
 * Saves each fact in order, one at a time (a store may rank or dedupe by arrival), and returns the
 * saved records. Facts are trimmed and empty ones skipped; `kind` defaults to 'fact'; `scope`,
 * `provenance` and `context` (what was said around them, see `SaveOptions.context`) go to every save. Every fact is checked before the first save, so a bad list saves nothing.
 */
export async function rememberFacts(
  memory: MemoryStore,
  facts: string[],
  opts?: { kind?: string; scope?: SaveOptions['scope']; provenance?: SaveOptions['provenance']; context?: string },
): Promise<MemoryRecord[]> {
  if (!Array.isArray(facts)) throw new MemoryInputError(`facts must be an array of strings, got ${describe(facts)}.`);
  facts.forEach((fact, i) => {
    if (typeof fact !== 'string') throw new MemoryInputError(`facts[${i}] must be a string, got ${describe(fact)}.`);
    checkText(fact, `facts[${i}]`);
  });
  const kind = opts?.kind ?? 'fact';
  if (typeof kind !== 'string') throw new MemoryInputError(`kind must be a string, got ${describe(kind)}.`);
  const saved: MemoryRecord[] = [];
  for (const fact of facts) {
    const text = fact.trim();
    if (text !== '')
      saved.push(await memory.save(text, { kind, scope: opts?.scope, provenance: opts?.provenance, context: opts?.context }));
  }
  return saved;
}

// The words of the turns a fact came from, most recent last: enough for a search by what was around
// it (LoCoMo: the turns before an answer name what it is about), well under a record's size.
const CONTEXT_CHARS = 2_000;
const CONTEXT_TURNS = 4;

/**
 * What surrounded the facts learned from `turn`, as `SaveOptions.context`: the text of the last few
 * turns (the prompt among them) and the reply, `role: text` a line, cut to the last 2,000 characters.
 * Tool calls, results and media are left out: their words are not what the person said.
 */
export function turnContext(turn: CompletedTurn): string {
  const said = (blocks: ReadonlyArray<{ kind: string; text?: string }>) =>
    blocks
      .filter((b) => b.kind === 'text')
      .map((b) => b.text!)
      .join(' ')
      .trim();
  const lines = (Array.isArray(turn.messages) ? turn.messages : [])
    .map((m) => ({ role: m.role, text: said(m.blocks) }))
    .filter((m) => m.text !== '')
    .slice(-CONTEXT_TURNS)
    .map((m) => `${m.role}: ${m.text}`);
  if (lines.length === 0 && typeof turn.prompt === 'string' && turn.prompt.trim() !== '') lines.push(`user: ${turn.prompt.trim()}`);
  if (typeof turn.text === 'string' && turn.text.trim() !== '') lines.push(`assistant: ${turn.text.trim()}`);
  const text = lines.join('\n');
  return text.length <= CONTEXT_CHARS ? text : text.slice(text.length - CONTEXT_CHARS);
}
