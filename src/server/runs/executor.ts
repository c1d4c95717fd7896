import type { Agent } from '../../runtime/agent/types.js';
import type { InputDelivery, WorkerIdentity } from '../backend/types.js';
import { executeClaimed, type ExecutionDeps } from './execution.js';

type Active = { cancel: AbortController; done: Promise<void>; tenant?: string; agent?: Agent };

/**
 * The runs one process executes: each is claimed (one attempt at a time across every worker), executed,
 * stopped when someone, on any server instance, cancels it, and given the answers someone sends to its
 * tools' questions. The job engine calls `execute` once per job; `drain` waits for what is under way.
 */
export class RunExecutor {
  private readonly active = new Map<string, Active>();
  private readonly offCancel: () => void;
  private readonly offInput: () => void;

  constructor(
    private readonly deps: ExecutionDeps,
    /** This process as a worker: its heartbeat id may change (after it was counted dead and came back). */
    private readonly workerId: () => string,
  ) {
    this.offCancel = deps.backend.onCancel((runId) => this.active.get(runId)?.cancel.abort());
    this.offInput = deps.backend.onInput((runId) => {
      for (const id of runId === undefined ? this.active.keys() : [runId]) void this.collect(id);
    });
  }

  /** How many runs this process is executing. */
  get running(): number {
    return this.active.size;
  }

  /** The runs this process is executing (or claiming) now. */
  executing(): string[] {
    return [...this.active.keys()];
  }

  /**
   * Claims and executes run `runId` for the job held by `holder` (the job engine's lock holder). Does
   * nothing when the run is finished, canceled, executing here already, or held by another live worker.
   * Rejects only when the run's end could not be stored, so the job engine tries again.
   */
  async execute(runId: string, holder: string): Promise<void> {
    if (this.active.has(runId)) return;
    // Listening before the claim: a cancel that arrives between the two still stops the run.
    const cancel = new AbortController();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const entry: Active = { cancel, done };
    this.active.set(runId, entry);
    try {
      const identity: WorkerIdentity = { workerId: this.workerId(), holder };
      const claim = await this.deps.backend.claimRun(runId, identity);
      if (claim === undefined) return;
      if (claim.run.cancelRequested) cancel.abort();
      entry.tenant = claim.run.tenant;
      await executeClaimed(this.deps, claim, cancel.signal, (agent) => (entry.agent = agent));
    } finally {
      this.active.delete(runId);
      finish();
    }
  }

  /** Resolves once every run under way here has ended. */
  async drain(): Promise<void> {
    await Promise.all([...this.active.values()].map((entry) => entry.done));
  }

  close(): void {
    this.offCancel();
    this.offInput();
  }

  /**
   * Someone answered a question of run `runId` (every process hears of every answer): when the run
   * executes here, the answers kept for the questions its tools wait on are read and given to them.
   * The server checked each against its question and kept one per question; the conductor refuses one
   * only when its question is gone meanwhile (the run ended), which no client waits to hear of (the
   * run's `input_answered` event tells which answer was taken).
   */
  private async collect(runId: string): Promise<void> {
    const entry = this.active.get(runId);
    const agent = entry?.agent;
    if (entry?.tenant === undefined || agent === undefined) return;
    const waiting = agent.pendingInputs().map((request) => request.requestId);
    if (waiting.length === 0) return;
    let answers: InputDelivery[];
    try {
      answers = await this.deps.backend.storedAnswers(entry.tenant, runId, waiting);
    } catch (error) {
      this.deps.log(`run ${runId}: reading the answers to its tools' questions failed (read again at the next answer or reconnect)`, error);
      return;
    }
    for (const { requestId, answer } of answers) {
      // Two wake-ups close together read the same answer: the first gives it, the second finds it taken.
      if (!agent.pendingInputs().some((request) => request.requestId === requestId)) continue;
      try {
        agent.answer(requestId, answer);
      } catch (error) {
        this.deps.log(`run ${runId}: the answer to input request ${requestId} was not taken`, error);
      }
    }
  }
}
