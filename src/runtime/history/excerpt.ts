import { termSpans } from '../../search/tokenize.js';
import type { TermSpan } from '../../search/tokenize.js';

/** Context kept on either side of a region before it counts as fitting beside the others. */
const MIN_CONTEXT = 24;
/** How far a cut may move to land between words rather than inside one. */
const SNAP = 20;

/** A stretch of the text whose words match the query, scored by the distinct terms it holds. */
type Region = { start: number; end: number; score: number; terms: Set<string> };

/**
 * Up to about `max` characters of `text` around where it matches the query, verbatim: the terms are
 * the query's index terms with their weights (rarer weighs more). Matches are whole words compared as
 * the index compares them (folded and stemmed), never parts of words: "ts" finds "graph.ts", not
 * "tests". Nearby matches form a region (a path or a command is one region of several words); the
 * regions holding the most weight are shown first, each with context, as many as fit, in the order
 * they stand in the text, joined by …. The start of the text when nothing matches; … marks every cut.
 */
export function excerptAround(text: string, terms: ReadonlyMap<string, number>, max: number): string {
  if (text.length <= max) return text;
  const matches = termSpans(text).filter((span) => terms.has(span.term));
  if (matches.length === 0) return cut(text, [[0, wordEnd(text, max, 0)]]);
  const regions = regionsOf(matches, terms, Math.max(Math.floor(max / 2), 1));
  const best = [...regions].sort((a, b) => b.score - a.score || a.start - b.start);
  // Each region past the first costs one more … (a separator), counted against the budget.
  const chosen: Region[] = [];
  let spanned = 0;
  for (const region of best) {
    const width = Math.min(region.end - region.start, max);
    const count = chosen.length + 1;
    if (chosen.length > 0 && spanned + width + 2 * MIN_CONTEXT * count + (count - 1) > max) continue;
    chosen.push(region);
    spanned += width;
  }
  chosen.sort((a, b) => a.start - b.start);
  // What the regions leave of the budget is their context, shared evenly: a third before, the rest after.
  const budget = max - (chosen.length - 1);
  const context = Math.max(0, budget - spanned) / chosen.length;
  const windows: Array<[number, number]> = chosen.map((region) => {
    const end = Math.min(region.end, region.start + budget);
    let before = Math.floor(context / 3);
    let after = Math.floor(context) - before;
    // Context that would fall off one end of the text goes to the other side.
    if (region.start - before < 0) [after, before] = [after + before - region.start, region.start];
    if (end + after > text.length) [before, after] = [before + end + after - text.length, text.length - end];
    const start = Math.max(0, region.start - before);
    return [wordStart(text, start, region.start), wordEnd(text, end + after, end)];
  });
  return cut(text, merge(windows));
}

/**
 * Matches in text order grouped into regions: a gap of more than an eighth of `span` between two
 * matches, or a region growing wider than `span`, starts the next.
 */
function regionsOf(matches: readonly TermSpan[], terms: ReadonlyMap<string, number>, span: number): Region[] {
  const gap = Math.max(span / 8, 12);
  const regions: Region[] = [];
  let current: Region | undefined;
  for (const match of matches) {
    if (current === undefined || match.start - current.end > gap || match.end - current.start > span) {
      current = { start: match.start, end: match.end, score: 0, terms: new Set() };
      regions.push(current);
    }
    current.end = Math.max(current.end, match.end);
    if (!current.terms.has(match.term)) {
      current.terms.add(match.term);
      current.score += terms.get(match.term)!;
    }
  }
  return regions;
}

function merge(windows: Array<[number, number]>): Array<[number, number]> {
  const merged: Array<[number, number]> = [];
  for (const [start, end] of windows) {
    const last = merged.at(-1);
    if (last !== undefined && start <= last[1] + 1) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

function cut(text: string, windows: Array<[number, number]>): string {
  const parts = windows.map(([start, end]) => text.slice(start, end));
  const head = windows[0][0] > 0 ? '…' : '';
  const tail = windows.at(-1)![1] < text.length ? '…' : '';
  return `${head}${parts.join('…')}${tail}`;
}

/** `from`, or just after the next space when one is near and comes no later than `limit`. */
function wordStart(text: string, from: number, limit: number): number {
  if (from === 0) return 0;
  const space = text.indexOf(' ', from);
  return space === -1 || space - from > SNAP || space >= limit ? from : space + 1;
}

/** `to`, or the last space before it when one is near and comes no earlier than `limit`. */
function wordEnd(text: string, to: number, limit: number): number {
  if (to >= text.length) return text.length;
  const space = text.lastIndexOf(' ', to);
  return space === -1 || to - space > SNAP || space < limit ? to : space;
}
