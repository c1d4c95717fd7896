// The shared ranking behind memory search and tool search: one tokenizer, one BM25 formula, one index.
export { tokenize, foldWords, splitIdentifier, termSpans, MAX_WORD } from './tokenize.js';
export type { TermSpan } from './tokenize.js';
export { stem } from './stem.js';
export { Bm25Index } from './bm25.js';
export type { Hit, IndexSearchOptions } from './bm25.js';
export { termWeight, lengthNorm } from './bm25-formula.js';
export { searchTermSource, searchTermSourceSync } from './term-source.js';
export type { TermSource, TermCandidate, TermStats, RankedRef } from './term-source.js';
export {
  feedbackTerms,
  rankWithFeedback,
  feedbackDepth,
  FEEDBACK_DOCS,
  FEEDBACK_MIN_DOCS,
  FEEDBACK_TERMS,
  FEEDBACK_WEIGHT,
} from './feedback.js';
export type { PoolHit, FeedbackTerm } from './feedback.js';
export { CONTEXT_MARK, CONTEXT_TF, joinTerms, splitTerms, distinctTerms, termLength, termFrequencies } from './term-list.js';
