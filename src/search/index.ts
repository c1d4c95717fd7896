// The shared ranking behind memory search and tool search: one tokenizer, one BM25 index.
export { tokenize, foldWords, splitIdentifier } from './tokenize.js';
export { stem } from './stem.js';
export { Bm25Index } from './bm25.js';
export type { Hit, IndexSearchOptions } from './bm25.js';
