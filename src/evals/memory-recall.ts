// Memory recall on LoCoMo as an evaluation: every turn of a conversation saved into a memory store,
// every question searched once, and scored by how many of its annotated evidence turns come back in
// the top k. No model is called: it measures the store's ranking alone, per question category.
import { randomUUID } from 'node:crypto';
import type { MemoryStore, SearchOptions } from '../memory/index.js';
import { zeroUsage } from '../runtime/usage/index.js';
import { EvalOptionsError } from './errors.js';
import { locomoCases, locomoCategory, locomoTurnText, type LocomoConversation, type LocomoData, type LocomoTurn } from './locomo.js';
import { summarize } from './summary.js';
import type { CaseResult, CaseScore, EvalProgress, EvalResult } from './types.js';

export type MemoryRecallOptions = {
  /** Names the evaluation in its result and reports. Default `locomo-recall`. */
  name?: string;
  /** What `loadLocomo` read. */
  data: LocomoData;
  /**
   * A fresh memory store per conversation (`() => createMemoryStore()`, one with an embedder, a SQLite
   * or PostgreSQL store): the conversation's turns are saved into it, its questions searched in it.
   */
  store: (conversation: LocomoConversation) => MemoryStore | Promise<MemoryStore>;
  /** Called when a conversation's questions are done, to close or drop its store. */
  release?: (store: MemoryStore, conversation: LocomoConversation) => void | Promise<void>;
  /** The cutoffs scored: `recall@k` and `hit@k` for each. Default 10. One search per question, of the largest. */
  k?: number | readonly number[];
  /** Question categories. Default 1-4 (5, adversarial, has no evidence to find). */
  categories?: readonly number[];
  /** More search options (`ranking`, `kind`, `minScore`): the same for every question. */
  search?: Omit<SearchOptions, 'k' | 'signal'>;
  /** A turn's text as saved. Default `Speaker: text` (the session's date goes in `provenance.at`). */
  turnText?: (turn: LocomoTurn, conversation: LocomoConversation) => string;
  signal?: AbortSignal;
  onProgress?: (progress: EvalProgress) => void;
};

/** The evaluation's result; `unscorable` lists the questions left out because their evidence names no turn. */
export type MemoryRecallResult = EvalResult & { unscorable: string[] };

/**
 * Runs memory recall on LoCoMo. For each conversation: a store from `store`, every turn saved (text
 * `Speaker: text`, `provenance.at` its session's date, `meta` its turn id, session and speaker), then
 * each question searched once for the top `max(k)` records. A case scores, for each `k`, `recall@k`
 * (the share of its evidence turns in the top k; passes at 1, all of them) and `hit@k` (1 when any is).
 * The result is an `EvalResult` like `evaluate`'s, summarized per category, so `textSummary`,
 * `htmlReport` and `compare` take it as they are: each case's `output` lists what came back, its
 * `latencyMs` is the search's, and it costs nothing (no model, no session: `sessionId` is '').
 */
export async function memoryRecallEval(options: MemoryRecallOptions): Promise<MemoryRecallResult> {
  const ks = checkOptions(options);
  const name = options.name ?? 'locomo-recall';
  const top = Math.max(...ks);
  const scorerNames = ks.flatMap((k) => [`recall@${k}`, `hit@${k}`]);
  const cases = locomoCases(options.data, { categories: options.categories });
  const scorable = cases.filter((c) => (c.metadata!.evidence as string[]).length > 0);
  const unscorable = cases.filter((c) => (c.metadata!.evidence as string[]).length === 0).map((c) => c.id!);
  const started = new Date().toISOString();
  const results: CaseResult[] = [];
  const text = options.turnText ?? locomoTurnText;

  for (const conversation of options.data.conversations) {
    const asked = scorable.filter((c) => c.metadata!.conversation === conversation.name);
    if (asked.length === 0) continue;
    if (options.signal?.aborted) break;
    const store = await options.store(conversation);
    if (typeof store?.save !== 'function' || typeof store.search !== 'function')
      throw new EvalOptionsError(`memoryRecallEval: \`store\` gave no memory store for conversation "${conversation.name}"`);
    try {
      // The store names its records; what it hands back is mapped to turns by those names.
      const turnOf = new Map<string, LocomoTurn>();
      for (const turn of conversation.turns) {
        const saved = await store.save(text(turn, conversation), {
          meta: { turn: turn.id, session: turn.session, speaker: turn.speaker },
          provenance: { sessionId: conversation.name, at: turn.at },
        });
        turnOf.set(saved.id, turn);
      }
      for (const c of asked) {
        if (options.signal?.aborted) break;
        const evidence = c.metadata!.evidence as string[];
        const t0 = performance.now();
        const hits = await store.search(c.input as string, { ...options.search, k: top, signal: options.signal });
        const latencyMs = performance.now() - t0;
        const found = hits.map((h) => turnOf.get(h.id));
        const scores = ks.flatMap((k) => scoresAt(k, found.slice(0, k), evidence));
        results.push({
          id: c.id!,
          index: results.length,
          sessionId: '',
          status: 'settled',
          input: c.input,
          expected: c.expected,
          metadata: c.metadata!,
          output: found.map((t, i) => (t === undefined ? `? ${hits[i].text}` : `${t.id} ${text(t, conversation)}`)).join('\n'),
          trajectory: [],
          usage: zeroUsage(),
          costUsd: 0,
          latencyMs,
          scores,
          judgeUsage: zeroUsage(),
          judgeCostUsd: 0,
        });
        options.onProgress?.({ done: results.length, total: scorable.length, last: results.at(-1)! });
      }
    } finally {
      await options.release?.(store, conversation);
    }
  }
  const cancelled = options.signal?.aborted === true;
  return {
    name,
    runId: randomUUID().slice(0, 8),
    startedAt: started,
    status: cancelled ? 'cancelled' : 'done',
    cases: results,
    summary: summarize(results, scorerNames, locomoCategory),
    unscorable,
  };
}

function scoresAt(k: number, top: ReadonlyArray<LocomoTurn | undefined>, evidence: string[]): CaseScore[] {
  const ids = new Set(top.flatMap((t) => (t === undefined ? [] : [t.id])));
  const hit = evidence.filter((e) => ids.has(e));
  const missing = evidence.filter((e) => !ids.has(e));
  const recall = hit.length / evidence.length;
  const said = `${hit.length} of ${evidence.length} evidence turns in the top ${k}${hit.length > 0 ? ` (${hit.join(', ')})` : ''}${missing.length > 0 ? `; missing ${missing.join(', ')}` : ''}`;
  return [
    { name: `recall@${k}`, score: recall, reason: said, passed: recall === 1 },
    { name: `hit@${k}`, score: hit.length > 0 ? 1 : 0, reason: said, passed: hit.length > 0 },
  ];
}

function checkOptions(options: MemoryRecallOptions): number[] {
  if (typeof options !== 'object' || options === null) throw new EvalOptionsError('memoryRecallEval needs options: { data, store }');
  if (typeof options.store !== 'function')
    throw new EvalOptionsError('memoryRecallEval: `store` must be a function giving a fresh memory store per conversation');
  if (options.release !== undefined && typeof options.release !== 'function')
    throw new EvalOptionsError('memoryRecallEval: `release` must be a function');
  if (options.turnText !== undefined && typeof options.turnText !== 'function')
    throw new EvalOptionsError('memoryRecallEval: `turnText` must be a function of the turn');
  const ks = typeof options.k === 'number' || options.k === undefined ? [options.k ?? 10] : [...options.k];
  if (ks.length === 0 || ks.some((k) => !(Number.isInteger(k) && k >= 1)))
    throw new EvalOptionsError(`memoryRecallEval: \`k\` must be a whole number >= 1 or a list of them, got ${JSON.stringify(options.k)}`);
  return [...new Set(ks)].sort((a, b) => a - b);
}
