// The shared ranking behind memory search and tool search: one tokenizer, one BM25 formula, one index.
export { tokenize, foldWords, splitIdentifier, termSpans, MAX_WORD } from './tokenize.js';
export type { TermSpan } from './tokenize.js';
export { stem } from './stem.js';
export { Bm25Index } from './bm25.js';
export type { Hit, IndexSearchOptions } from './bm25.js';
export { termWeight, lengthNorm } from './bm25-formula.js';
export { searchTermSource, searchTermSourceSync } from './term-source.js';
export type { TermSource, TermCandidate, TermStats, RankedRef } from './term-source.js';
