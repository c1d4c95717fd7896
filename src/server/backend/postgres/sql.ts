import { createHash } from 'node:crypto';
import type { PreparedQuery } from '../../../postgres/driver.js';

/** The task name runs are queued under in graphile-worker. */
export const RUN_TASK = 'indusagi_run';

/**
 * The notification channels of one schema: two servers on one database with different schemas must not
 * hear each other. A channel name is an identifier (at most 63 bytes), so the schema goes in hashed.
 */
export function channels(schema: string): { events: string; cancels: string; inputs: string } {
  const tag = createHash('sha256').update(schema).digest('hex').slice(0, 12);
  return { events: `indusagi_run_events_${tag}`, cancels: `indusagi_run_cancel_${tag}`, inputs: `indusagi_run_input_${tag}` };
}

/** Every statement of the PostgreSQL backend; `s` is the quoted schema, `jobs` graphile-worker's quoted schema. */
export function serverSql(s: string, schema: string, jobs: string) {
  const { events, cancels, inputs } = channels(schema);
  const prepared = (name: string, text: string): PreparedQuery => ({ name: `indusagi_server_${name}_${schema}`, text });
  const columns = `r.id, r.tenant, r.thread, r.created_by, r.input, r.status, r.attempt, r.cancel_requested, r.base_length, r.base_last,
    r.result, r.error, r.events_expired, r.created_at, r.started_at, r.finished_at`;
  const run = `${columns}, (SELECT coalesce(max(e.seq), 0) FROM ${s}.server_run_events e WHERE e.run = r.id) AS last_seq`;
  return {
    channels: { events, cancels, inputs },
    thread: prepared('thread', `SELECT * FROM ${s}.server_threads WHERE tenant = $1 AND id = $2`),
    insertThread: `INSERT INTO ${s}.server_threads (tenant, id, created_by, metadata) VALUES ($1, $2, $3, $4)
      ON CONFLICT (tenant, id) DO NOTHING RETURNING *`,
    listThreads: `SELECT * FROM ${s}.server_threads WHERE tenant = $1 AND ($2::timestamptz IS NULL OR created_at < $2)
      ORDER BY created_at DESC, id LIMIT $3`,
    dropUnusedThread: `DELETE FROM ${s}.server_threads WHERE tenant = $1 AND id = $2 AND active_run IS NULL AND metadata = '{}'
      AND mark_length = 0 AND NOT EXISTS (SELECT 1 FROM ${s}.server_runs r WHERE r.tenant = $1 AND r.thread = $2)`,
    updateThreadMetadata: `UPDATE ${s}.server_threads SET metadata = $3, updated_at = now() WHERE tenant = $1 AND id = $2 RETURNING *`,
    lockThread: `SELECT * FROM ${s}.server_threads WHERE tenant = $1 AND id = $2 FOR UPDATE`,
    deleteThread: [
      `DELETE FROM ${s}.server_run_answers WHERE tenant = $1 AND run IN (SELECT id FROM ${s}.server_runs WHERE tenant = $1 AND thread = $2)`,
      `DELETE FROM ${s}.server_run_events WHERE run IN (SELECT id FROM ${s}.server_runs WHERE tenant = $1 AND thread = $2)`,
      `DELETE FROM ${s}.server_runs WHERE tenant = $1 AND thread = $2`,
      `DELETE FROM ${s}.server_threads WHERE tenant = $1 AND id = $2`,
    ],
    // Queues a run in one statement: the thread is locked only if it is free and ready for this input
    // (a prompt: no call waits; decisions: each names a waiting call); the tenant's slot counter takes
    // one more only below the cap (an upsert re-checks the row it waits for, so two creators never both
    // slip under); then the run, the thread's mark of it, and its job. Nothing is written unless all of
    // it is. The result says which part refused (see createRun in backend.ts).
    createRun: prepared(
      'create_run',
      `WITH thread AS MATERIALIZED (
        SELECT mark_length, mark_last FROM ${s}.server_threads
        WHERE tenant = $1 AND id = $2 AND active_run IS NULL AND ($6 <> 'prompt' OR pending = '[]')
          AND $7::text[] <@ ARRAY(SELECT json_array_elements(pending::json) ->> 'approvalId')
        FOR UPDATE),
      slot AS MATERIALIZED (
        INSERT INTO ${s}.server_tenants AS st (tenant, active) SELECT $1, 1 FROM thread
        ON CONFLICT (tenant) DO UPDATE SET active = st.active + 1 WHERE st.active < $8 RETURNING active),
      run AS (
        INSERT INTO ${s}.server_runs (id, tenant, thread, created_by, input, status, base_length, base_last)
        SELECT $3, $1, $2, $4, $5, 'queued', thread.mark_length, thread.mark_last FROM thread, slot RETURNING created_at),
      occupied AS (
        UPDATE ${s}.server_threads SET active_run = $3, updated_at = now()
        WHERE tenant = $1 AND id = $2 AND EXISTS (SELECT 1 FROM run) RETURNING 1),
      job AS (SELECT 1 FROM run, LATERAL ${jobs}.add_job($9, json_build_object('runId', $3::text), max_attempts := 25, job_key := 'run:' || $3) j)
      SELECT (SELECT count(*) FROM thread)::int AS free, (SELECT created_at FROM run) AS created_at,
        (SELECT mark_length FROM thread) AS mark_length, (SELECT mark_last FROM thread) AS mark_last,
        (SELECT count(*) FROM occupied)::int AS occupied, (SELECT count(*) FROM job)::int AS queued`,
    ),
    removeJob: `SELECT 1 FROM ${jobs}.remove_job($1)`,
    run: prepared('run', `SELECT ${run} FROM ${s}.server_runs r WHERE r.id = $1`),
    tenantRun: prepared('tenant_run', `SELECT ${run} FROM ${s}.server_runs r WHERE r.tenant = $1 AND r.id = $2`),
    listRuns: `SELECT ${run} FROM ${s}.server_runs r WHERE r.tenant = $1 AND r.thread = $2 ORDER BY r.created_at DESC LIMIT $3`,
    // A queued run ends at once (its slot given back); a running one is flagged and its worker told.
    cancelQueued: `WITH canceled AS (UPDATE ${s}.server_runs SET status = 'canceled', cancel_requested = true, finished_at = now(),
        error = $3 WHERE tenant = $1 AND id = $2 AND status = 'queued' RETURNING tenant, thread),
      freed AS (UPDATE ${s}.server_tenants st SET active = st.active - 1 FROM canceled WHERE st.tenant = canceled.tenant RETURNING 1)
      SELECT thread, (SELECT count(*) FROM freed) AS freed FROM canceled`,
    cancelRunning: `WITH flagged AS (UPDATE ${s}.server_runs SET cancel_requested = true
      WHERE tenant = $1 AND id = $2 AND status = 'running' RETURNING id)
      SELECT pg_notify('${cancels}', id) FROM flagged`,
    // An answer for a running run of the tenant, stored (one per question: a second finds the key taken
    // and stores nothing), and the run's id told to every process: the one executing the run reads it
    // (storedAnswers). A worker that was not listening then reads it when its LISTEN comes back.
    answerInput: `WITH stored AS (INSERT INTO ${s}.server_run_answers (tenant, run, request_id, answer)
        SELECT tenant, id, $3, $4 FROM ${s}.server_runs WHERE tenant = $1 AND id = $2 AND status = 'running'
        ON CONFLICT (tenant, run, request_id) DO NOTHING RETURNING run)
      SELECT pg_notify('${inputs}', run) FROM stored`,
    storedAnswers: prepared(
      'stored_answers',
      `SELECT request_id, answer FROM ${s}.server_run_answers WHERE tenant = $1 AND run = $2 AND request_id = ANY($3::text[])`,
    ),
    // The events that say which questions the run waits on (the event is JSON text: json, not jsonb, reads it).
    inputEvents: prepared(
      'input_events',
      // A sub-agent's question or answer is a `nested` event carrying one (its kind under `event`).
      `SELECT event FROM ${s}.server_run_events WHERE run = $1 AND ((event::json ->> 'kind') = ANY($2::text[])
        OR ((event::json ->> 'kind') = 'nested' AND (event::json -> 'event' ->> 'kind') IN ('input_requested', 'input_answered'))) ORDER BY seq`,
    ),
    freeThread: `UPDATE ${s}.server_threads SET active_run = NULL, updated_at = now() WHERE tenant = $1 AND id = $2 AND active_run = $3`,
    insertEvent: `WITH added AS (INSERT INTO ${s}.server_run_events (run, seq, event) VALUES ($1, 1, $2) RETURNING seq)
      SELECT pg_notify('${events}', $1 || ' ' || seq) FROM added`,
    // Queued, or running under a worker that is gone (or this one, after its execution ended).
    claim: prepared(
      'claim',
      `UPDATE ${s}.server_runs r SET status = 'running', attempt = r.attempt + 1, worker = $2, job_holder = $3,
        started_at = coalesce(r.started_at, now())
      WHERE r.id = $1 AND (r.status = 'queued' OR (r.status = 'running' AND (r.worker = $2
        OR NOT EXISTS (SELECT 1 FROM ${s}.server_workers w WHERE w.id = r.worker))))
      RETURNING ${columns}, 0::bigint AS last_seq`,
    ),
    rebase: prepared('rebase', `UPDATE ${s}.server_runs SET base_length = $3, base_last = $4 WHERE id = $1 AND attempt = $2`),
    // Fenced: the run row is share-locked under the writer's attempt, so a takeover (which updates it)
    // waits for this write, and a write after a takeover finds no row and stores nothing. A retried
    // write skips the events it stored already.
    append: prepared(
      'append',
      `WITH holder AS (SELECT id FROM ${s}.server_runs WHERE id = $1 AND attempt = $2 AND status = 'running' FOR SHARE),
      added AS (INSERT INTO ${s}.server_run_events (run, seq, event)
        SELECT $1, e.seq, e.event FROM unnest($3::bigint[], $4::text[]) AS e(seq, event) WHERE EXISTS (SELECT 1 FROM holder)
        ON CONFLICT (run, seq) DO NOTHING RETURNING seq)
      SELECT (SELECT count(*) FROM holder)::int AS held,
        (SELECT pg_notify('${events}', $1 || ' ' || max(seq)) FROM added HAVING count(*) > 0) AS told`,
    ),
    // The run's end, its terminal event, the thread's new state and the notification, all in one commit;
    // the answers to its questions go (an ended run takes none: a late one finds it not running).
    finish: prepared(
      'finish',
      `WITH done AS (UPDATE ${s}.server_runs SET status = $3, result = $4, error = $5, finished_at = now()
        WHERE id = $1 AND attempt = $2 AND status = 'running' RETURNING tenant, thread),
      added AS (INSERT INTO ${s}.server_run_events (run, seq, event) SELECT $1, $6, $7 FROM done
        ON CONFLICT (run, seq) DO NOTHING RETURNING seq),
      freed AS (UPDATE ${s}.server_threads t SET active_run = NULL, updated_at = now(),
          pending = coalesce($8, t.pending), mark_length = coalesce($9, t.mark_length),
          mark_last = CASE WHEN $9::int IS NULL THEN t.mark_last ELSE $10 END
        FROM done WHERE t.tenant = done.tenant AND t.id = done.thread AND t.active_run = $1 RETURNING 1),
      slot AS (UPDATE ${s}.server_tenants st SET active = st.active - 1 FROM done WHERE st.tenant = done.tenant RETURNING 1),
      answers AS (DELETE FROM ${s}.server_run_answers a USING done WHERE a.tenant = done.tenant AND a.run = $1 RETURNING 1)
      SELECT (SELECT count(*) FROM done)::int AS finished, (SELECT count(*) FROM freed)::int AS freed, (SELECT count(*) FROM slot)::int AS slot,
        (SELECT pg_notify('${events}', $1 || ' ' || $6) FROM done) AS told`,
    ),
    lastSeq: prepared('last_seq', `SELECT coalesce(max(seq), 0)::bigint AS seq FROM ${s}.server_run_events WHERE run = $1`),
    eventsAfter: prepared(
      'events_after',
      `SELECT seq, event FROM ${s}.server_run_events WHERE run = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    ),
    heartbeat: prepared('heartbeat', `UPDATE ${s}.server_workers SET heartbeat_at = now() WHERE id = $1 RETURNING id`),
    registerWorker: `INSERT INTO ${s}.server_workers (id, host, pid) VALUES ($1, $2, $3)`,
    unregisterWorker: `DELETE FROM ${s}.server_workers WHERE id = $1`,
    // Workers whose heartbeat is older than the lease leave the table (one sweeper gets each), and every
    // run left running by a worker that is gone gets a fresh job: the job engine would hold the dead
    // worker's job for hours, and replacing a locked job's key retires it (it never runs again). So does
    // a run still queued whose job was locked longer than the lease ago: a worker took the job and died
    // before it claimed the run (a live one claims at once; were it only slow, the claim still lets one
    // attempt through). And so does a run left running under the sweeping worker itself ($3) that it no
    // longer executes ($4 lists what it does): its attempt died with the database (storing its end
    // failed, and so did failing its job, whose lock the job engine keeps for hours), and nothing else
    // would ever take it up. Its job, if any, must be locked longer than the lease ago (a run just
    // claimed here has a fresh lock) and not waiting for a retry of its own.
    sweep: `WITH dead AS (DELETE FROM ${s}.server_workers WHERE heartbeat_at < now() - make_interval(secs => $1 / 1000.0) RETURNING id),
      orphans AS (SELECT r.id FROM ${s}.server_runs r WHERE r.status = 'running' AND (r.worker IN (SELECT id FROM dead)
        OR NOT EXISTS (SELECT 1 FROM ${s}.server_workers w WHERE w.id = r.worker))
        UNION
        SELECT r.id FROM ${jobs}.jobs j JOIN ${s}.server_runs r ON r.id = substr(j.key, 5)
        WHERE j.task_identifier = $2 AND j.key LIKE 'run:%' AND j.locked_at < now() - make_interval(secs => $1 / 1000.0)
          AND r.status = 'queued'
        UNION
        SELECT r.id FROM ${s}.server_runs r WHERE r.status = 'running' AND r.worker = $3 AND NOT (r.id = ANY($4::text[]))
          AND NOT EXISTS (SELECT 1 FROM ${jobs}.jobs j WHERE j.key = 'run:' || r.id
            AND (j.locked_at IS NULL OR j.locked_at >= now() - make_interval(secs => $1 / 1000.0))))
      SELECT (SELECT count(*) FROM dead)::int AS dead,
        (SELECT count(*) FROM orphans o, LATERAL ${jobs}.add_job($2, json_build_object('runId', o.id), max_attempts := 25,
          job_key := 'run:' || o.id) j)::int AS requeued`,
    expireEvents: `WITH old AS (UPDATE ${s}.server_runs SET events_expired = true
        WHERE NOT events_expired AND finished_at < now() - make_interval(secs => $1 / 1000.0) RETURNING id)
      DELETE FROM ${s}.server_run_events WHERE run IN (SELECT id FROM old)`,
    jobsReady: `SELECT to_regproc($1) IS NOT NULL AS ready`,
  };
}

export type ServerSql = ReturnType<typeof serverSql>;
