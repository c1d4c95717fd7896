// Working memory as every store keeps it: the checks on a call's arguments, the block as JSON text,
// and the rule a write at a version is judged by. For the stores (in-process, SQLite, PostgreSQL) and
// their tests; the public face of working memory is `WorkingMemoryStore` in indusagi/memory.
export {
  MAX_WORKING_LENGTH,
  checkExpectedVersion,
  checkWorkingScope,
  encodeWorking,
  nextVersion,
  workingFromRow,
  scopeKey,
} from './rules.js';
