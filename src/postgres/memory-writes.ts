// The writes of PostgresMemoryStore. Each is one transaction that keeps the term statistics and the
// change log in step (see memory-stats.ts); a save retires the records it supersedes in the same one.

import { randomUUID } from 'node:crypto';
import type { MemoryEdit, MemoryRecord, OwnerOptions, SaveOptions } from '../memory/types.js';
import { checkEdit, checkSave, resolveOwner } from '../memory/options.js';
import { editedTerms, fingerprint, newRecord, recordTerms, sameScope } from '../memory/governance.js';
import { chooseTargets } from '../memory/supersede.js';
import { scopeColumns, scopeOfRow } from '../memory/rows.js';
import { distinctTerms } from '../search/index.js';
import { COLUMNS, ownerFilter, rows, split, toRecord, type MemoryTables, type Row } from './memory-rows.js';
import { countTerms, logChanges } from './memory-stats.js';

/**
 * Saves a memory, retiring the records it supersedes (see `chooseTargets`): those named in
 * `supersedes`, the current one in its key slot, the same fact restated. Saves that could retire the
 * same records take turns.
 */
export async function saveMemory(tables: MemoryTables, text: string, opts?: SaveOptions): Promise<MemoryRecord> {
  const save = checkSave(text, opts);
  const print = fingerprint(text);
  const terms = recordTerms(text, save.context);
  const { resource, session } = scopeColumns(save.scope);
  // Embedded before anything is written: an embedder failure saves nothing.
  const vector = tables.vectors === undefined ? undefined : (await tables.vectors.embed([text]))[0];
  return tables.db.transaction(
    async (c) => {
      // Saves that could retire the same records (the same key slot, the same fact restated) take
      // turns: transaction-scoped locks, released at commit, which also hold behind a pooler.
      const slots = [JSON.stringify([tables.t, resource, session, 'print', save.kind ?? null, print])];
      if (save.key !== undefined) slots.push(JSON.stringify([tables.t, resource, session, 'key', save.key]));
      await c.query(
        `SELECT count(pg_advisory_xact_lock(h)) FROM (SELECT hashtextextended(slot, 0) AS h FROM unnest($1::text[]) AS slot ORDER BY 1) AS slots`,
        [slots],
      );
      const now = Date.now();
      // One read for the three kinds of target, rows locked so a concurrent save waits its turn.
      const found = await rows<Row>(
        c,
        `SELECT ${COLUMNS} FROM ${tables.table}
         WHERE tenant = $1 AND (id = ANY($2) OR (scope_resource = $3 AND scope_session = $4 AND superseded_by IS NULL
           AND (key = $5 OR (fingerprint = $6 AND kind IS NOT DISTINCT FROM $7))))
         ORDER BY id FOR UPDATE`,
        [tables.t, save.supersedes, resource, session, save.key ?? null, print, save.kind ?? null],
      );
      const wrapped = found.map((row) => ({ record: toRecord(row), row }));
      const current = (w: (typeof wrapped)[number]) => w.row.superseded_by === null && sameScope(scopeOfRow(w.row), save.scope);
      const targets = chooseTargets(
        save,
        new Map(wrapped.filter((w) => save.supersedes.includes(w.row.id)).map((w) => [w.row.id, w])),
        wrapped.filter((w) => current(w) && save.key !== undefined && w.row.key === save.key),
        wrapped.filter((w) => current(w) && w.row.fingerprint === print && w.row.kind === (save.kind ?? null)),
      );
      const record = newRecord(randomUUID(), text, save, now);
      if (targets.length > 0) {
        record.supersedes = targets.map((w) => w.row.id);
        await c.query(`UPDATE ${tables.table} SET superseded_by = $3, superseded_at = $4 WHERE tenant = $1 AND id = ANY($2)`, [
          tables.t,
          record.supersedes,
          record.id,
          now,
        ]);
      }
      // Statistics first: their row, held to commit, orders this save's `ord` (taken by the insert) and
      // its version alike across concurrent saves, as replicas number documents (see MemoryReplica).
      await countTerms(tables, c, terms, 1);
      const [added] = await rows<{ seq: number }>(
        c,
        `INSERT INTO ${tables.table} (tenant, id, text, kind, meta, scope_resource, scope_session, source_session, source_node, observed_at,
           key, supersedes, created_at, fingerprint, terms, lexemes)
         VALUES ($1, $2, $3, $4, $5::json, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, array_to_tsvector($16::text[]))
         RETURNING seq::float8 AS seq`,
        [
          tables.t,
          record.id,
          text,
          save.kind ?? null,
          save.meta ?? null,
          resource,
          session,
          save.provenance.sessionId ?? null,
          save.provenance.nodeId ?? null,
          record.provenance!.at,
          save.key ?? null,
          record.supersedes ?? null,
          now,
          print,
          terms.join(' '),
          distinctTerms(terms),
        ],
      );
      if (vector !== undefined) await tables.vectors!.write(c, added.seq, vector);
      await logChanges(tables, c, [added.seq, ...targets.map((w) => w.row.seq)]);
      return record;
    },
    { retryOnUnique: (constraint) => constraint === 'memory_records_current_key' },
  );
}

/** Edits a record its owner may reach; a new text is indexed again. Undefined when there is no such record. */
export async function updateMemory(
  tables: MemoryTables,
  id: string,
  edit: MemoryEdit,
  opts?: OwnerOptions,
): Promise<MemoryRecord | undefined> {
  const { scope } = resolveOwner(id, opts);
  const change = checkEdit(edit);
  const owner = ownerFilter(scope, 3);
  // A new text is embedded before the transaction (no connection held while the embedder works); it
  // is written only if the text did change.
  const vector = change.text === undefined || tables.vectors === undefined ? undefined : (await tables.vectors.embed([change.text]))[0];
  return tables.db.transaction(async (c) => {
    const [row] = await rows<Row & { terms: string }>(
      c,
      `SELECT ${COLUMNS}, terms FROM ${tables.table} WHERE tenant = $1 AND id = $2 AND ${owner.sql} FOR UPDATE`,
      [tables.t, id, ...owner.values],
    );
    if (row === undefined) return undefined;
    const now = Date.now();
    const text = change.text ?? row.text;
    const reindex = text !== row.text;
    const terms = reindex ? editedTerms(split(row.terms), text) : split(row.terms);
    if (reindex) {
      await countTerms(tables, c, split(row.terms), -1);
      await countTerms(tables, c, terms, 1);
    }
    const [updated] = await rows<Row>(
      c,
      `UPDATE ${tables.table} SET text = $3, kind = $4, meta = $5::json, updated_at = $6, fingerprint = $7, terms = $8,
         lexemes = array_to_tsvector($9::text[]), ord = CASE WHEN $10 THEN nextval('${tables.db.s}.memory_order') ELSE ord END
       WHERE tenant = $1 AND id = $2 RETURNING ${COLUMNS}`,
      [
        tables.t,
        id,
        text,
        change.kind === undefined ? row.kind : change.kind,
        change.meta === undefined ? row.meta : change.meta,
        now,
        reindex ? fingerprint(text) : row.fingerprint,
        terms.join(' '),
        distinctTerms(terms),
        reindex,
      ],
    );
    if (reindex && vector !== undefined) await tables.vectors!.write(c, updated.seq, vector);
    await logChanges(tables, c, [updated.seq]);
    return toRecord(updated);
  });
}

/** Deletes a record its owner may reach, and its terms from the statistics; false when there was none. */
export async function forgetMemory(tables: MemoryTables, id: string, opts?: OwnerOptions): Promise<boolean> {
  const { scope } = resolveOwner(id, opts);
  const owner = ownerFilter(scope, 3);
  return tables.db.transaction(async (c) => {
    const [gone] = await rows<{ terms: string; seq: number }>(
      c,
      `DELETE FROM ${tables.table} WHERE tenant = $1 AND id = $2 AND ${owner.sql} RETURNING terms, seq::float8 AS seq`,
      [tables.t, id, ...owner.values],
    );
    if (gone === undefined) return false;
    await countTerms(tables, c, split(gone.terms), -1);
    await logChanges(tables, c, [gone.seq]);
    return true;
  });
}
