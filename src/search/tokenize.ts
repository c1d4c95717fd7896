import { stem } from './stem.js';
import { STOPWORDS } from './stopwords.js';

// Marks belong to the word: in Indic scripts vowel signs and viramas are combining marks.
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
// Only the Latin/Greek/Cyrillic combining accents: other scripts (Devanagari vowel signs, for one) use
// combining marks that change the word, so folding them would merge distinct words.
const COMBINING_ACCENTS = /[\u0300-\u036f]/g;

/**
 * The longest word kept whole, in code points; a longer run (a hash, base64) is cut to its first
 * MAX_WORD code points. Every engine can then index every word: PostgreSQL refuses lexemes over 2 KB.
 */
export const MAX_WORD = 128;

/**
 * The words of `text`, accent- and case-folded, stop words dropped, not stemmed. Only letters, marks
 * and digits survive, so the words are safe to quote into a full-text query of another engine.
 */
export function foldWords(text: string): string[] {
  const folded = text.normalize('NFKD').replace(COMBINING_ACCENTS, '').toLowerCase();
  const words: string[] = [];
  for (const match of folded.matchAll(WORD)) {
    const word = match[0].length > MAX_WORD ? Array.from(match[0]).slice(0, MAX_WORD).join('') : match[0];
    if (!STOPWORDS.has(word)) words.push(word);
  }
  return words;
}

/**
 * Splits text into index terms: the folded words, stemmed. Documents and queries go through the same
 * function, so whatever it conflates, it conflates on both sides.
 */
export function tokenize(text: string): string[] {
  return foldWords(text).map(stem);
}

/** One index term of a text and where its word stands there (UTF-16 offsets into the text as given). */
export type TermSpan = { term: string; start: number; end: number };

/**
 * The terms of `text` as `tokenize` makes them, each with the span of the word it came from, so a
 * match can be shown verbatim in the original. Words are folded one at a time rather than the whole
 * text at once; the two differ only where a compatibility decomposition splits a word ("x½y"), and then
 * every part keeps the span of the whole word.
 */
export function termSpans(text: string): TermSpan[] {
  const spans: TermSpan[] = [];
  for (const match of text.matchAll(WORD)) {
    const start = match.index;
    const end = start + match[0].length;
    for (const word of foldWords(match[0])) spans.push({ term: stem(word), start, end });
  }
  return spans;
}

/** Splits identifier humps ("createInvoice" -> "create Invoice") so tool names match plain-word queries. */
export function splitIdentifier(name: string): string {
  return name.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2');
}
