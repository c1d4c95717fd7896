import type { Turn } from '../contract/turn.js';
import { CompactionInputError } from './errors.js';
import { assertCount } from './policy.js';
import { isSummaryTurn } from './summary-turn.js';

/**
 * `legalCuts(messages)[c]` says whether the history may be cut before index `c`: turns `[0, c)`
 * replaced by a summary, `[c, n)` kept verbatim. A cut is legal when
 * - it drops something other than an earlier summary (re-summarizing a lone summary gains nothing);
 * - no kept `tool_result` answers a dropped `tool_call`: a call and its result stay on the same side,
 *   which also means the kept part never starts with a `tool_result` turn;
 * - a `tool_result` whose call is missing (a history that already starts mid-pair) is always dropped.
 * `c = 0` is never legal: it drops nothing.
 */
export function legalCuts(messages: readonly Turn[]): boolean[] {
  if (!Array.isArray(messages)) throw new CompactionInputError('messages must be an array of turns');
  const n = messages.length;
  const callAt = new Map<string, number>();
  messages.forEach((turn, i) => {
    if (!Array.isArray(turn?.blocks)) throw new CompactionInputError(`turn ${i} has no blocks array`);
    for (const block of turn.blocks) if (block.kind === 'tool_call' && !callAt.has(block.id)) callAt.set(block.id, i);
  });

  // Every result at turn j whose call sits at turn i forbids the cuts i+1..j (a difference array
  // keeps this linear however many pairs there are); an orphan result forbids 0..j.
  const delta = new Array<number>(n + 2).fill(0);
  messages.forEach((turn, j) => {
    for (const block of turn.blocks) {
      if (block.kind !== 'tool_result') continue;
      const i = callAt.get(block.callId);
      const from = i !== undefined && i < j ? i + 1 : 0;
      delta[from]++;
      delta[j + 1]--;
    }
  });

  const legal = new Array<boolean>(n + 1);
  let straddling = 0;
  let onlySummariesBefore = true;
  for (let c = 0; c <= n; c++) {
    straddling += delta[c];
    if (c > 0 && !isSummaryTurn(messages[c - 1])) onlySummariesBefore = false;
    legal[c] = c > 0 && straddling === 0 && !onlySummariesBefore;
  }
  return legal;
}

/**
 * Where to cut so that at least the last `keepRecent` turns stay verbatim: the latest legal cut at or
 * before `messages.length - keepRecent`. 0 means there is nothing to drop.
 */
export function findCutPoint(messages: readonly Turn[], keepRecent: number): number {
  assertCount('keepRecent', keepRecent);
  return latestLegalCut(legalCuts(messages), messages.length - keepRecent);
}

/** The latest legal cut at or before `c`, or 0 when there is none. */
function latestLegalCut(legal: readonly boolean[], c: number): number {
  for (; c > 0; c--) if (legal[c]) return c;
  return 0;
}

/**
 * The cuts to try, ascending, each keeping fewer turns than the one before: from `findCutPoint`'s cut
 * (or, when that is 0, the first legal cut: keepRecent covers the history but it does not fit) down
 * to the smallest legal tail, which is the last turn, or the last complete call/result pair when the
 * history ends with tool results. Only `keepRecent` 0 allows the cut that keeps nothing.
 */
export function shrinkingCuts(messages: readonly Turn[], keepRecent: number): number[] {
  assertCount('keepRecent', keepRecent);
  const legal = legalCuts(messages);
  const n = messages.length;
  const first = latestLegalCut(legal, n - keepRecent) || 1;
  const last = keepRecent === 0 ? n : n - 1;
  const cuts: number[] = [];
  for (let c = first; c <= last; c++) if (legal[c]) cuts.push(c);
  return cuts;
}
