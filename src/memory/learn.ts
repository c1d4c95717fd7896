import { IndusagiError } from '../errors/index.js';
import type { CompletedTurn, ModelInvoker } from '../runtime/contract/index.js';
import type { MemoryStore, MemoryScope } from './types.js';
import { turnContext } from './remember.js';

/** The extraction model answered something that is not `{ facts: [{ text, key? }] }`. Nothing was saved. */
export class FactExtractionError extends IndusagiError {
  static override readonly errorName: string = 'FactExtractionError';
  readonly raw: string;
  constructor(message: string, raw: string, options?: { cause?: unknown }) {
    super('fact_extraction', message, options);
    this.raw = raw;
  }
}

/** The JSON Schema the model must answer: durable facts, each with an optional topic key. */
export const FACT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['facts'],
  properties: {
    facts: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['text'],
        properties: { text: { type: 'string' }, key: { type: 'string' } },
      },
    },
  },
} as const;

const SYSTEM =
  'Extract durable facts about the user from this finished turn (preferences, identity, plans, decisions). ' +
  'Skip small talk and anything only true for this moment. Give each fact a short stable topic key ' +
  '(e.g. "home_city") so a changed fact replaces the old one. Answer JSON {"facts":[{"text","key"}]}; ' +
  'no facts: {"facts":[]}.';

export interface LearnOptions {
  invoker: ModelInvoker;
  memory: MemoryStore;
  model?: string;
  scope?: MemoryScope;
  kind?: string;
  /** When the turn was said (epoch ms); default: now. Kept as `provenance.at`. */
  at?: (turn: CompletedTurn) => number;
}

function parseFacts(raw: string): { text: string; key?: string }[] {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (cause) {
    throw new FactExtractionError('The fact extraction answer is not JSON; nothing was saved.', raw, { cause });
  }
  const facts = (value as { facts?: unknown } | null)?.facts;
  if (!Array.isArray(facts)) throw new FactExtractionError('The answer has no "facts" array; nothing was saved.', raw);
  return facts.map((f: unknown, i) => {
    const o = f as { text?: unknown; key?: unknown } | null;
    if (typeof o?.text !== 'string' || o.text.trim() === '' || (o.key !== undefined && typeof o.key !== 'string'))
      throw new FactExtractionError(`facts[${i}] is not { text: string, key?: string }; nothing was saved.`, raw);
    return o.key === undefined ? { text: o.text.trim() } : { text: o.text.trim(), key: o.key };
  });
}

/**
 * A ready `remember` for `memorySource`: asks the model for durable facts and saves them through the
 * store's governance (a keyed fact supersedes the old one in the scope; a restated fact is not kept
 * twice), each with the turn's words as its `context`. It saves the facts itself (to keep their keys)
 * and returns [] so memorySource adds nothing.
 */
export function learnFacts(opts: LearnOptions): (turn: CompletedTurn) => Promise<string[]> {
  return async (turn) => {
    const text = `User: ${turn.prompt}\nAssistant: ${turn.text}`;
    const reply = await opts.invoker({
      model: opts.model ?? 'default',
      system: SYSTEM,
      messages: [{ role: 'user', blocks: [{ kind: 'text', text }] }],
      tools: [],
      maxOutputTokens: 1024,
      responseFormat: { type: 'json', schema: FACT_SCHEMA },
    });
    const raw = reply.turn.blocks.map((b) => (b.kind === 'text' ? b.text : '')).join('');
    const facts = parseFacts(raw);
    const at = opts.at ? opts.at(turn) : Date.now();
    // The turns the facts were drawn from, indexed beside each at half weight (`SaveOptions.context`).
    const context = turnContext(turn);
    for (const fact of facts) {
      const current = (await opts.memory.search?.(fact.text, { scope: opts.scope, k: 5 })) ?? [];
      if (current.some((r) => r.text.trim().toLowerCase() === fact.text.toLowerCase())) continue;
      await opts.memory.save(fact.text, { kind: opts.kind ?? 'fact', scope: opts.scope, key: fact.key, provenance: { at }, context });
    }
    return [];
  };
}
