import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { NotFoundError, QueueFullError, RunFencedError, ThreadBusyError, ThreadExistsError } from '../../errors.js';
import { RunTails } from '../../events/tails.js';
import type { ContextMark, Principal, RunInput, RunRecord, ServerRunEvent, StoredEvent, ThreadRecord } from '../../types.js';
import { canceledBeforeStart } from '../canceled.js';
import type { InputRequest } from '../../../runtime/agent/input-requests.js';
import { pendingInputsOf } from '../../runs/inputs.js';
import type { Claim, CreateRunOptions, InputDelivery, RunOutcome, ServerBackend, WorkerIdentity } from '../types.js';
import { FileWrites, readLines, readRecords, readTenantDirs, tenantFolder } from './files.js';
import { newThread, runRefusal } from '../thread-record.js';
import { mergeMetadata, storableMetadata } from '../metadata.js';

type LocalRun = RunRecord & { worker: string | null };

/**
 * Threads, runs and run events of a server on one machine, in this process's memory and in files under
 * `dir` (`threads/<tenant>/<id>.json`, `runs/<id>.json`, `runs/<id>.events.jsonl`), so a restart finds
 * them: runs it left queued or running are queued again, and finished runs replay for the retention
 * period. Runs go to the in-process worker through `dispatch`.
 */
export class LocalBackend implements ServerBackend {
  readonly tails: RunTails;
  private readonly threads = new Map<string, Map<string, ThreadRecord>>();
  private readonly runs = new Map<string, LocalRun>();
  /** Events of runs this process has written or read; others are read from their file. */
  private readonly events = new Map<string, StoredEvent[]>();
  private readonly cancelHandlers = new Set<(runId: string) => void>();
  private readonly inputHandlers = new Set<(runId: string | undefined) => void>();
  /** The answers to the questions of running runs, by run and request id: one per question, gone when the run ends. */
  private readonly answers = new Map<string, Map<string, InputDelivery>>();
  private readonly files = new FileWrites();
  private dispatcher: ((runId: string) => void) | undefined;

  private constructor(
    private readonly dir: string,
    /** This process as the one worker: runs left `running` under any other id were cut off by a restart. */
    readonly workerId: string,
  ) {
    this.tails = new RunTails({ fetchAfter: async (runId, afterId) => (await this.eventsOf(runId)).slice(afterId) });
  }

  static async open(dir: string, log: (message: string, error: unknown) => void): Promise<LocalBackend> {
    const backend = new LocalBackend(dir, `local ${process.pid} ${randomUUID().slice(0, 8)}`);
    const skip = (path: string, error: unknown) => log(`skipped ${path}: not a record`, error);
    for (const run of await readRecords<LocalRun>(join(dir, 'runs'), skip)) backend.runs.set(run.id, run);
    for (const tenantDir of await readTenantDirs(join(dir, 'threads'))) {
      for (const thread of await readRecords<ThreadRecord>(join(dir, 'threads', tenantDir), skip))
        backend.tenantThreads(thread.tenant).set(thread.id, thread);
    }
    return backend;
  }

  /** Where queued runs go (the in-process worker); the runs a restart left unfinished go there at once. */
  setDispatcher(dispatch: (runId: string) => void): void {
    this.dispatcher = dispatch;
    const unfinished = [...this.runs.values()].filter((run) => run.status === 'queued' || run.status === 'running');
    unfinished.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    for (const run of unfinished) dispatch(run.id);
  }

  async createThread(principal: Principal, id: string, metadata: Record<string, unknown>): Promise<ThreadRecord> {
    if (this.tenantThreads(principal.tenant).has(id)) throw new ThreadExistsError(id);
    storableMetadata(metadata);
    const thread = newThread(principal, id, metadata);
    // Kept at once, so a second create of the id is refused while this one writes.
    this.tenantThreads(principal.tenant).set(id, thread);
    try {
      await this.saveThread(thread);
    } catch (error) {
      // Not written: not made. Unless a run has taken it meanwhile (its own write then made the file).
      if (thread.activeRunId === null && this.tenantThreads(principal.tenant).get(id) === thread)
        this.tenantThreads(principal.tenant).delete(id);
      throw error;
    }
    return thread;
  }

  async getThread(tenant: string, id: string): Promise<ThreadRecord | undefined> {
    return this.threads.get(tenant)?.get(id);
  }

  async listThreads(tenant: string, opts: { limit: number; before?: string }): Promise<ThreadRecord[]> {
    const all = [...(this.threads.get(tenant)?.values() ?? [])].filter((t) => opts.before === undefined || t.createdAt < opts.before);
    all.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
    return all.slice(0, opts.limit);
  }

  async updateThread(tenant: string, id: string, metadata: Record<string, unknown>): Promise<ThreadRecord> {
    const thread = this.threads.get(tenant)?.get(id);
    if (thread === undefined) throw new NotFoundError('thread', id);
    const merged = mergeMetadata(thread.metadata, metadata);
    storableMetadata(merged);
    const before = { metadata: thread.metadata, updatedAt: thread.updatedAt };
    thread.metadata = merged;
    thread.updatedAt = new Date().toISOString();
    try {
      await this.saveThread(thread);
    } catch (error) {
      // The file still holds the old record (writes replace it whole or not at all): so does memory.
      Object.assign(thread, before);
      throw error;
    }
    return thread;
  }

  async deleteThread(tenant: string, id: string): Promise<void> {
    const thread = this.threads.get(tenant)?.get(id);
    if (thread === undefined) throw new NotFoundError('thread', id);
    if (thread.activeRunId !== null) throw new ThreadBusyError(id, thread.activeRunId);
    this.threads.get(tenant)!.delete(id);
    const removals = [this.files.remove(this.threadPath(tenant, id))];
    for (const run of [...this.runs.values()]) {
      if (run.tenant !== tenant || run.threadId !== id) continue;
      this.runs.delete(run.id);
      this.events.delete(run.id);
      removals.push(this.files.remove(this.runPath(run.id)), this.files.remove(this.eventsPath(run.id)));
    }
    await Promise.all(removals);
  }

  async createRun(principal: Principal, threadId: string, input: RunInput, opts: CreateRunOptions): Promise<RunRecord> {
    const { tenant, user } = principal;
    const existing = this.threads.get(tenant)?.get(threadId);
    if (existing === undefined && !opts.createThread) throw new NotFoundError('thread', threadId);
    // A missing thread is kept only once its run is sure to be queued: a refused run (the tenant's
    // queue full, say) must not leave an empty thread behind. Nothing below awaits before it is kept.
    const thread = existing ?? newThread(principal, threadId, {});
    const refused = runRefusal(thread, input);
    if (refused !== undefined) throw refused;
    let active = 0;
    for (const run of this.runs.values()) if (run.tenant === tenant && (run.status === 'queued' || run.status === 'running')) active++;
    if (active >= opts.maxQueued) throw new QueueFullError(opts.maxQueued, opts.retryAfterSeconds);
    if (existing === undefined) this.tenantThreads(tenant).set(threadId, thread);
    const now = new Date().toISOString();
    const run: LocalRun = {
      id: randomUUID(),
      threadId,
      tenant,
      user,
      input,
      status: 'queued',
      attempt: 0,
      cancelRequested: false,
      error: null,
      result: null,
      base: thread.mark,
      lastEventId: 0,
      createdAt: now,
      startedAt: null,
      finishedAt: null,
      eventsExpired: false,
      worker: null,
    };
    const before = { activeRunId: thread.activeRunId, status: thread.status, updatedAt: thread.updatedAt };
    this.runs.set(run.id, run);
    this.events.set(run.id, []);
    thread.activeRunId = run.id;
    thread.status = 'busy';
    thread.updatedAt = now;
    try {
      await Promise.all([this.saveRun(run), this.saveThread(thread)]);
    } catch (error) {
      await this.forgetUnsaved(run, thread, before, existing === undefined);
      throw error;
    }
    // As queued: the worker may take it the moment it is dispatched.
    const queued = this.view(run);
    this.dispatcher?.(run.id);
    return queued;
  }

  async getRun(tenant: string, runId: string): Promise<RunRecord | undefined> {
    const run = this.runs.get(runId);
    return run === undefined || run.tenant !== tenant ? undefined : this.view(run);
  }

  async listRuns(tenant: string, threadId: string, limit: number): Promise<RunRecord[]> {
    const runs = [...this.runs.values()].filter((run) => run.tenant === tenant && run.threadId === threadId);
    runs.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return runs.slice(0, limit).map((run) => this.view(run));
  }

  async cancelRun(tenant: string, runId: string): Promise<RunRecord> {
    const run = this.runs.get(runId);
    if (run === undefined || run.tenant !== tenant) throw new NotFoundError('run', runId);
    if (run.status === 'queued') {
      const { terminal, error } = canceledBeforeStart(runId);
      run.cancelRequested = true;
      await this.end(run, { status: 'canceled', terminal, result: null, error, thread: undefined });
    } else if (run.status === 'running') {
      run.cancelRequested = true;
      await this.saveRun(run);
      for (const handler of this.cancelHandlers) handler(runId);
    }
    return this.view(run);
  }

  async pendingInputs(runId: string): Promise<InputRequest[]> {
    return pendingInputsOf((await this.eventsOf(runId)).map((stored) => stored.event));
  }

  async answerInput(tenant: string, runId: string, delivery: InputDelivery): Promise<boolean> {
    const run = this.runs.get(runId);
    if (run === undefined || run.tenant !== tenant || run.status !== 'running') return false;
    let kept = this.answers.get(runId);
    if (kept === undefined) this.answers.set(runId, (kept = new Map()));
    // A second answer to the question is refused as on PostgreSQL, even before the run's
    // `input_answered` event (which ends the question's listing) is stored.
    if (kept.has(delivery.requestId)) return false;
    kept.set(delivery.requestId, delivery);
    for (const handler of this.inputHandlers) handler(runId);
    return true;
  }

  async storedAnswers(tenant: string, runId: string, requestIds: string[]): Promise<InputDelivery[]> {
    const kept = this.runs.get(runId)?.tenant === tenant ? this.answers.get(runId) : undefined;
    if (kept === undefined) return [];
    return requestIds.flatMap((id) => kept.get(id) ?? []);
  }

  async claimRun(runId: string, worker: WorkerIdentity): Promise<Claim | undefined> {
    const run = this.runs.get(runId);
    // A run left running is one a restart cut off (this process executes each run once at a time).
    if (run === undefined || (run.status !== 'queued' && run.status !== 'running')) return undefined;
    run.status = 'running';
    run.attempt++;
    run.worker = worker.workerId;
    run.startedAt ??= new Date().toISOString();
    await this.saveRun(run);
    return { run: this.view(run), attempt: run.attempt, nextEventId: (await this.eventsOf(runId)).length + 1 };
  }

  async rebaseRun(claim: Claim, mark: ContextMark): Promise<void> {
    const run = this.held(claim);
    run.base = mark;
    await this.saveRun(run);
  }

  async appendEvents(claim: Claim, events: ServerRunEvent[]): Promise<void> {
    await this.storeEvents(this.held(claim), events);
    claim.nextEventId += events.length;
  }

  async finishRun(claim: Claim, outcome: RunOutcome): Promise<void> {
    const run = this.held(claim);
    await this.end(run, outcome);
    claim.nextEventId++;
  }

  onCancel(handler: (runId: string) => void): () => void {
    this.cancelHandlers.add(handler);
    return () => this.cancelHandlers.delete(handler);
  }

  onInput(handler: (runId: string | undefined) => void): () => void {
    this.inputHandlers.add(handler);
    return () => this.inputHandlers.delete(handler);
  }

  /** Deletes the events of runs that finished more than `retentionMs` ago; their records stay, marked expired. */
  async expireEvents(retentionMs: number): Promise<void> {
    const before = new Date(Date.now() - retentionMs).toISOString();
    for (const run of this.runs.values()) {
      if (run.eventsExpired || run.finishedAt === null || run.finishedAt >= before) continue;
      run.eventsExpired = true;
      this.events.delete(run.id);
      await Promise.all([this.files.remove(this.eventsPath(run.id)), this.saveRun(run)]);
    }
  }

  /** Files on this machine: there is no connection to lose. */
  async reachable(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    await this.files.settled();
  }

  /** A run as callers see it: a copy, without the worker, with the newest event id. */
  private view(run: LocalRun): RunRecord {
    const { worker: _worker, ...record } = run;
    return { ...record, base: { ...run.base }, lastEventId: this.events.get(run.id)?.length ?? run.lastEventId };
  }

  private held(claim: Claim): LocalRun {
    const run = this.runs.get(claim.run.id);
    if (run === undefined || run.attempt !== claim.attempt || run.status !== 'running')
      throw new RunFencedError(claim.run.id, claim.attempt);
    return run;
  }

  private async storeEvents(run: LocalRun, events: readonly ServerRunEvent[]): Promise<void> {
    const stored = await this.eventsOf(run.id);
    const added = events.map((event, i) => ({ id: stored.length + 1 + i, event }));
    stored.push(...added);
    await this.files.appendLines(this.eventsPath(run.id), added);
    this.tails.notify(run.id, stored.length);
  }

  /**
   * Ends the run: its record and thread change in memory first, then its terminal event is stored, so a
   * reader woken by that event (a wait, a stream) finds the run ended; then both are saved.
   */
  private async end(run: LocalRun, outcome: RunOutcome): Promise<void> {
    run.status = outcome.status;
    this.answers.delete(run.id);
    run.result = outcome.result;
    run.error = outcome.error;
    run.finishedAt = new Date().toISOString();
    const thread = this.threads.get(run.tenant)?.get(run.threadId);
    const freed = thread !== undefined && thread.activeRunId === run.id;
    if (freed) {
      thread.activeRunId = null;
      if (outcome.thread !== undefined) {
        thread.pendingApprovals = outcome.thread.pendingApprovals;
        thread.mark = outcome.thread.mark;
      }
      thread.status = thread.pendingApprovals.length > 0 ? 'waiting' : 'idle';
      thread.updatedAt = run.finishedAt;
    }
    await this.storeEvents(run, [outcome.terminal]);
    if (freed) await this.saveThread(thread);
    await this.saveRun(run);
  }

  private async eventsOf(runId: string): Promise<StoredEvent[]> {
    let stored = this.events.get(runId);
    if (stored === undefined) {
      stored = await readLines<StoredEvent>(this.eventsPath(runId));
      this.events.set(runId, stored);
    }
    return stored;
  }

  /**
   * A run whose records could not both be written is never dispatched: it is forgotten, on disk too, and
   * its thread is as it was, so the thread and the tenant's queue slot are free again instead of a run
   * queued forever that nothing executes. The write's own error is what the caller gets; a cleanup
   * write that fails too leaves at worst a run record that a restart finds and executes.
   */
  private async forgetUnsaved(run: LocalRun, thread: ThreadRecord, before: Partial<ThreadRecord>, made: boolean): Promise<void> {
    this.runs.delete(run.id);
    this.events.delete(run.id);
    Object.assign(thread, before);
    if (made) this.tenantThreads(thread.tenant).delete(thread.id);
    await Promise.allSettled([
      this.files.remove(this.runPath(run.id)),
      made ? this.files.remove(this.threadPath(thread.tenant, thread.id)) : this.saveThread(thread),
    ]);
  }

  private tenantThreads(tenant: string): Map<string, ThreadRecord> {
    let threads = this.threads.get(tenant);
    if (threads === undefined) this.threads.set(tenant, (threads = new Map()));
    return threads;
  }

  private saveThread(thread: ThreadRecord): Promise<void> {
    return this.files.writeJson(this.threadPath(thread.tenant, thread.id), thread);
  }

  private saveRun(run: LocalRun): Promise<void> {
    return this.files.writeJson(this.runPath(run.id), { ...this.view(run), worker: run.worker });
  }

  private threadPath(tenant: string, id: string): string {
    return join(this.dir, 'threads', tenantFolder(tenant), `${id}.json`);
  }

  private runPath(runId: string): string {
    return join(this.dir, 'runs', `${runId}.json`);
  }

  private eventsPath(runId: string): string {
    return join(this.dir, 'runs', `${runId}.events.jsonl`);
  }
}
