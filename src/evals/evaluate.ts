import { randomUUID } from 'node:crypto';
import type { RunSnapshot } from '../runtime/contract/events.js';
import type { RunLimits } from '../runtime/contract/limits.js';
import type { ModelUsage } from '../runtime/contract/model.js';
import type { PromptBlock, Turn } from '../runtime/contract/turn.js';
import { IndusagiError, errorMessage } from '../errors/index.js';
import { RunFault } from '../runtime/loop/errors.js';
import { loadSession, SessionWriter, type SessionStoreLike } from '../runtime/store/index.js';
import { sessionCost, zeroUsage, addUsage } from '../runtime/usage/index.js';
import { inCase } from './case-context.js';
import { loadCases } from './data.js';
import { EvalOptionsError, ReplayMissError } from './errors.js';
import { summarize } from './summary.js';
import { TrajectoryRecorder } from './trajectory.js';
import type { CaseInput, CaseResult, CaseScore, EvalCase, EvalResult, EvaluateOptions, Scorer, ScorerInput } from './types.js';

const NAME = /^[A-Za-z0-9_.-]{1,80}$/;

/**
 * Runs every case of `data` through the agent, each in a fresh session (`agent.open({ sessionId })`)
 * named `<name>-<run>-<case id>`, and scores it with every scorer. `concurrency` cases run at once;
 * `limits` bounds the whole evaluation (a case that would start past them is `skipped`, and each run
 * is given what is left of the time); `signal` cancels it (cases not started are
 * `cancelled`; the result is still returned). A case that fails is a result (`faulted`, `replay_miss`),
 * never a rejection: `evaluate` rejects only for options or data it cannot run with.
 */
export async function evaluate<E = unknown>(options: EvaluateOptions<E>): Promise<EvalResult> {
  const { agent, scorers } = checkOptions(options);
  const cases = await loadCases(options.data);
  const name = options.name ?? 'eval';
  const ids = caseIds(cases);
  const runId = randomUUID().slice(0, 8);
  const concurrency = options.concurrency ?? 4;
  const startedAt = new Date();
  const began = performance.now();
  const spent = { tokens: 0, costUsd: 0 };
  const results: CaseResult[] = new Array(cases.length);
  let limited = false;
  let done = 0;

  // Tokens and cost are checked between cases (a case in flight finishes, so the overshoot is at most
  // the cases running at once): handing them to each run would not do, as the runtime's own check
  // counts a call's whole output cap before it is made. Time is exact, so each run gets what is left.
  const remaining = (): RunLimits | 'spent' => {
    if (limited) return 'spent';
    const limits = options.limits ?? {};
    if (limits.maxTokens !== undefined && spent.tokens >= limits.maxTokens) return 'spent';
    if (limits.maxCostUsd !== undefined && spent.costUsd >= limits.maxCostUsd) return 'spent';
    if (limits.maxDurationMs === undefined) return {};
    const left = limits.maxDurationMs - (performance.now() - began);
    return left <= 0 ? 'spent' : { maxDurationMs: left };
  };

  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const index = next++;
      const c = cases[index];
      const sessionId = `${name}-${runId}-${ids[index]}`;
      const base = baseResult(c, index, ids[index], sessionId);
      const budget = remaining();
      if (options.signal?.aborted) results[index] = { ...base, status: 'cancelled' };
      else if (budget === 'spent') {
        limited = true;
        results[index] = {
          ...base,
          status: 'skipped',
          error: { kind: 'budget_exceeded', message: "the evaluation's limits were spent before this case" },
        };
      } else {
        results[index] = await inCase({ caseId: base.id, sessionId: base.sessionId }, () =>
          runCase(options, agent, scorers, c, base, budget),
        );
        // The run stopped at what was left of the evaluation's budget: nothing more is started.
        if (options.limits !== undefined && results[index].error?.kind === 'budget_exceeded') limited = true;
        spent.tokens += tokensOf(results[index].usage);
        spent.costUsd += results[index].costUsd ?? 0;
      }
      done++;
      options.onProgress?.({ done, total: cases.length, last: results[index] });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(cases.length, 1)) }, worker));

  return {
    name,
    runId,
    startedAt: startedAt.toISOString(),
    status: options.signal?.aborted ? 'cancelled' : limited ? 'limited' : 'done',
    cases: results,
    summary: summarize(
      results,
      scorers.map((s) => s.name),
    ),
  };
}

function checkOptions<E>(options: EvaluateOptions<E>): { agent: EvaluateOptions<E>['agent']; scorers: ReadonlyArray<Scorer<E>> } {
  if (typeof options !== 'object' || options === null) throw new EvalOptionsError('evaluate needs options: { agent, data, scorers }');
  const { agent, scorers, concurrency, name } = options;
  if (typeof agent?.open !== 'function')
    throw new EvalOptionsError('`agent` must be an agent definition: an object with `open({ sessionId })`');
  if (!Array.isArray(scorers)) throw new EvalOptionsError('`scorers` must be an array of scorers');
  const seen = new Set<string>();
  for (const s of scorers) {
    if (typeof s?.name !== 'string' || typeof s.score !== 'function')
      throw new EvalOptionsError('each scorer needs a `name` and a `score` function');
    if (seen.has(s.name)) throw new EvalOptionsError(`two scorers are named "${s.name}"; give one another name`);
    seen.add(s.name);
  }
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1))
    throw new EvalOptionsError('`concurrency` must be a whole number >= 1');
  if (name !== undefined && !NAME.test(name))
    throw new EvalOptionsError('`name` must be 1 to 80 letters, digits, "_", "." or "-" (it names the sessions)');
  for (const [key, value] of Object.entries(options.limits ?? {})) {
    if (!(typeof value === 'number' && value > 0)) throw new EvalOptionsError(`limits.${key} must be a number > 0`);
  }
  if (options.limits?.maxCostUsd !== undefined && options.store === undefined) {
    throw new EvalOptionsError('limits.maxCostUsd needs `store`: the cost of a case is read from its stored session');
  }
  return { agent, scorers };
}

function caseIds(cases: readonly EvalCase[]): string[] {
  const width = String(cases.length).length;
  const ids = cases.map((c, i) => c.id ?? String(i + 1).padStart(width, '0'));
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw new EvalOptionsError(`two cases have the id "${id}"`);
    seen.add(id);
  }
  return ids;
}

function baseResult(c: EvalCase, index: number, id: string, sessionId: string): CaseResult {
  return {
    id,
    index,
    sessionId,
    status: 'settled',
    input: c.input,
    expected: c.expected,
    metadata: c.metadata ?? {},
    output: '',
    trajectory: [],
    usage: zeroUsage(),
    latencyMs: 0,
    scores: [],
    judgeUsage: zeroUsage(),
  };
}

async function runCase<E>(
  options: EvaluateOptions<E>,
  definition: EvaluateOptions<E>['agent'],
  scorers: ReadonlyArray<Scorer<E>>,
  c: EvalCase<E>,
  base: CaseResult,
  limits: RunLimits,
): Promise<CaseResult> {
  const result: CaseResult = { ...base };
  const recorder = new TrajectoryRecorder();
  const started = performance.now();
  let snapshot: RunSnapshot | undefined;
  try {
    const prompt = await promptOf(c.input, options.store, base.sessionId);
    const agent = definition.open({ sessionId: base.sessionId });
    const unsubscribe = agent.subscribe((event) => recorder.see(event));
    try {
      snapshot = await agent.submit(prompt, {
        signal: options.signal,
        limits,
        ...(options.output === undefined ? {} : { output: options.output }),
      });
    } finally {
      unsubscribe();
      await agent.close();
    }
  } catch (error) {
    const miss = missOf(error);
    result.status = miss ? 'replay_miss' : 'faulted';
    result.error = { kind: miss ? 'replay_miss' : IndusagiError.isInstance(error) ? error.kind : 'internal', message: errorMessage(error) };
    if (RunFault.isInstance(error)) snapshot = error.snapshot;
  }
  result.latencyMs = performance.now() - started;
  result.output = snapshot?.text ?? '';
  if (snapshot?.output !== undefined) result.structured = snapshot.output;
  result.trajectory = recorder.steps;
  result.usage = recorder.usage;
  if (options.store !== undefined) result.costUsd = await costOf(options.store, [base.sessionId, ...recorder.sessions]);
  if (result.status === 'settled') await score(result, scorers);
  else
    result.scores = scorers.map((s) => ({
      name: s.name,
      score: 0,
      reason: `not scored: the case ended ${result.status} (${result.error?.message})`,
      passed: false,
    }));
  return result;
}

/** The prompt to submit; a conversation's earlier turns are written to the case's session first, so the agent resumes them. */
async function promptOf(input: CaseInput, store: SessionStoreLike | undefined, sessionId: string): Promise<string | PromptBlock[]> {
  if (typeof input === 'string' || Array.isArray(input)) return input;
  const turns: Turn[] = input.messages;
  const last = turns.at(-1);
  if (last === undefined || last.role !== 'user')
    throw new EvalOptionsError('a case given as messages must end with the user turn to answer');
  if (turns.length > 1) {
    if (store === undefined)
      throw new EvalOptionsError('a case given as a conversation needs `store` (its earlier turns are written to the case session)');
    const writer = await SessionWriter.open(store, sessionId);
    try {
      for (const turn of turns.slice(0, -1)) writer.append(turn);
      await writer.persist();
    } finally {
      await writer.close();
    }
  }
  return last.blocks.filter((b): b is PromptBlock => b.kind === 'text' || b.kind === 'image' || b.kind === 'document');
}

/** What the case's sessions (its own and its sub-agents') were billed, priced from their stored replies; undefined when any is unpriced. */
async function costOf(store: SessionStoreLike, sessions: string[]): Promise<number | undefined> {
  let usd = 0;
  for (const id of sessions) {
    const graph = await loadSession(store, id, { whole: true });
    const cost = sessionCost(graph.allNodes());
    if (cost.unpriced.length > 0) return undefined;
    usd += cost.cost?.usd ?? 0;
  }
  return usd;
}

async function score<E>(result: CaseResult, scorers: ReadonlyArray<Scorer<E>>): Promise<void> {
  const input: ScorerInput<E> = {
    input: result.input,
    output: result.output,
    structured: result.structured,
    expected: result.expected as E | undefined,
    trajectory: result.trajectory,
    metadata: result.metadata,
  };
  result.scores = await Promise.all(
    scorers.map(async (s): Promise<CaseScore> => {
      try {
        const verdict = await s.score(input);
        if (typeof verdict?.score !== 'number' || !(verdict.score >= 0 && verdict.score <= 1) || typeof verdict.reason !== 'string') {
          throw new EvalOptionsError(`scorer "${s.name}" returned ${JSON.stringify(verdict)}, not { score: 0..1, reason: string }`);
        }
        return { ...verdict, name: s.name, passed: verdict.score >= (s.threshold ?? 0.5) };
      } catch (error) {
        return { name: s.name, score: 0, reason: `the scorer failed: ${errorMessage(error)}`, passed: false, error: errorMessage(error) };
      }
    }),
  );
  const judge: ModelUsage = zeroUsage();
  let judgeCost: number | undefined = 0;
  for (const s of result.scores) {
    if (s.usage !== undefined) {
      addUsage(judge, s.usage);
      judgeCost = s.costUsd === undefined || judgeCost === undefined ? undefined : judgeCost + s.costUsd;
    }
  }
  result.judgeUsage = judge;
  result.judgeCostUsd = judgeCost;
}

function missOf(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (ReplayMissError.isInstance(e)) return true;
  }
  return false;
}

function tokensOf(usage: ModelUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}
