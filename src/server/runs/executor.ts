import type { Agent } from '../../runtime/agent/types.js';
import type { InputDelivery, WorkerIdentity } from '../backend/types.js';
import { executeClaimed, type ExecutionDeps } from './execution.js';

type Active = { cancel: AbortController; done: Promise<void>; agent?: Agent };

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
    this.offInput = deps.backend.onInput((delivery) => this.answer(delivery));
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
   * An answer for a run: taken when the run executes here (every process hears every answer). The
   * server checked it against the question before sending; the conductor refuses it only when the
   * question is gone meanwhile (answered through another instance first, or its run ended), which no
   * client waits to hear of (the run's `input_answered` event tells which answer was taken).
   */
  private answer({ runId, requestId, answer }: InputDelivery): void {
    const agent = this.active.get(runId)?.agent;
    if (agent === undefined) return;
    try {
      agent.answer(requestId, answer);
    } catch (error) {
      this.deps.log(`run ${runId}: the answer to input request ${requestId} was not taken`, error);
    }
  }
}
