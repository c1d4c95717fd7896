// The rules every store applies to scopes, provenance and superseding, so a record behaves the same
// whichever store keeps it.
import { createHash } from 'node:crypto';
import { joinTerms, splitTerms, tokenize } from '../search/index.js';
import type { MemoryRecord, MemoryScope } from './types.js';
import type { ResolvedSave } from './options.js';

/** A reader sees a record when every scope part the record sets equals the reader's (shared records: always). */
export function visibleTo(reader: MemoryScope, record: MemoryScope): boolean {
  return (
    (record.resource === undefined || record.resource === reader.resource) &&
    (record.session === undefined || record.session === reader.session)
  );
}

/** An owner holds a record when every scope part the owner sets equals the record's (the empty owner: all). */
export function ownedBy(owner: MemoryScope, record: MemoryScope): boolean {
  return (
    (owner.resource === undefined || owner.resource === record.resource) &&
    (owner.session === undefined || owner.session === record.session)
  );
}

export function sameScope(a: MemoryScope, b: MemoryScope): boolean {
  return a.resource === b.resource && a.session === b.session;
}

/**
 * What "the same fact, restated" means: the same index terms in the same order (our tokenizer's
 * output: case, accents, stop words and word endings folded), hashed so a long text keys cheaply.
 */
export function fingerprint(text: string): string {
  return createHash('sha256').update(tokenize(text).join(' ')).digest('hex');
}

/** Index terms as the SQL stores keep them: one string, terms separated by single spaces. */
export function termString(text: string): string {
  return tokenize(text).join(' ');
}

/**
 * A record's term list: its own index terms, then (when the context has words) the mark and the
 * context's terms, which every ranking counts at half weight (see search/term-list.ts). The context is
 * what surrounded the record: for a conversation turn, the turns before it and the session's date.
 */
export function recordTerms(text: string, context?: string): string[] {
  return joinTerms(tokenize(text), context === undefined ? [] : tokenize(context));
}

/** The term list of a record whose text became `text`: its new own terms, the context it had. */
export function editedTerms(list: readonly string[], text: string): string[] {
  return joinTerms(tokenize(text), splitTerms(list).context);
}

/** The record a save creates, before any store-specific fields. */
export function newRecord(id: string, text: string, save: ResolvedSave, now: number): MemoryRecord {
  const record: MemoryRecord = { id, text, createdAt: now };
  if (save.kind !== undefined) record.kind = save.kind;
  if (save.meta !== undefined) record.meta = JSON.parse(save.meta);
  if (save.scope.resource !== undefined || save.scope.session !== undefined) record.scope = { ...save.scope };
  record.provenance = { ...save.provenance, at: save.provenance.at ?? now };
  if (save.key !== undefined) record.key = save.key;
  return record;
}

export function scopeOf(record: MemoryRecord): MemoryScope {
  return record.scope ?? {};
}

/** A hand-out copy: callers may change what they get without changing what is stored. */
export function copyRecord(record: MemoryRecord): MemoryRecord {
  return structuredClone(record);
}
