// A writer's lease of a session: taken with an epoch that rises with every new holder, renewed by a
// timer while held, handed back on release. Writes commit only under their writer's epoch (see
// `persist` in session-sql.ts), so a writer that was taken over is fenced off.

import type { SessionLease } from '../runtime/store/index.js';
import { SessionFencedError, SessionLeaseHeldError } from './errors.js';
import type { SessionTables } from './session-tables.js';

/** A session this store holds the lease of. */
export type Held = {
  lease: SessionLease;
  /** Appends under the lease run one after another. */
  queue: Promise<void>;
  timer: ReturnType<typeof setInterval>;
  /** Why the last renewal failed, kept as the cause of a later `SessionFencedError`. */
  renewError: unknown;
  /** Nodes written since the session's row last took them in (a reader adds them up); null until the first write, which folds. */
  unfolded: number | null;
};

/**
 * Takes the session's lease as `holder` (`SessionLeaseHeldError` naming the holder while another
 * writer's lease is live; an expired one is taken over with the next epoch), renewed every `renewMs`.
 */
export async function takeLease(tables: SessionTables, id: string, holder: string, leaseMs: number, renewMs: number): Promise<Held> {
  const taken = await tables.db.query<{ epoch: number }>(tables.sql.takeLease, [tables.t, id, holder, leaseMs]);
  if (taken.length === 0) throw await heldError(tables, id);
  const session: Held = {
    lease: { sessionId: id, epoch: taken[0].epoch },
    queue: Promise.resolve(),
    timer: undefined as never,
    renewError: undefined,
    unfolded: null,
  };
  session.timer = setInterval(() => void renewLease(tables, session, leaseMs), renewMs);
  session.timer.unref();
  return session;
}

async function renewLease(tables: SessionTables, session: Held, leaseMs: number): Promise<void> {
  try {
    const rows = await tables.db.query(tables.sql.renewLease, [tables.t, session.lease.sessionId, session.lease.epoch, leaseMs]);
    // Taken over: stop renewing; the next write is refused by its epoch check.
    if (rows.length === 0) clearInterval(session.timer);
  } catch (error) {
    session.renewError = error;
  }
}

/** Hands the lease back in the database, if its epoch is still the session's. */
export async function releaseLease(tables: SessionTables, lease: SessionLease): Promise<void> {
  await tables.db.query(tables.sql.releaseLease, [tables.t, lease.sessionId, lease.epoch]);
}

async function heldError(tables: SessionTables, id: string): Promise<SessionLeaseHeldError> {
  const [row] = await tables.db.query<{ holder: string | null; epoch: number; expires: Date | null }>(tables.sql.holder, [tables.t, id]);
  return new SessionLeaseHeldError(id, row?.holder ?? 'another writer', row?.epoch ?? 0, row?.expires ?? new Date());
}

/** Why a write under `session`'s lease was refused: another writer took the session over. Renewing stops. */
export async function fencedError(tables: SessionTables, session: Held): Promise<SessionFencedError> {
  clearInterval(session.timer);
  const { sessionId: id, epoch } = session.lease;
  const [row] = await tables.db.query<{ holder: string | null; epoch: number }>(tables.sql.holder, [tables.t, id]);
  const cause = session.renewError;
  return new SessionFencedError(id, epoch, row?.epoch ?? null, row?.holder ?? null, cause === undefined ? undefined : { cause });
}
