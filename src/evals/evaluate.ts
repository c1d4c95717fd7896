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
import { EvalJournal } from './journal.js';
import type {
  CaseInput,
  CaseResult,
  CaseScore,
  EvalCase,
  EvalResult,
  EvaluateOptions,
  Scorer,
  ScorerInput,
  TrajectoryStep,
} from './types.js';

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
  const concurrency = options.concurrency ?? 4;
  const began = performance.now();
  const fresh = { runId: randomUUID().slice(0, 8), startedAt: new Date().toISOString() };
  // With a journal the run id is the journal's, so a resumed evaluation reopens the same sessions.
  const opened = options.journal === undefined ? undefined : await EvalJournal.open(options.journal, name, ids, fresh);
  const { runId, startedAt } = opened ?? fresh;
  const spent = { tokens: 0, costUsd: 0 };
  const results: CaseResult[] = new Array(cases.length);
  let limited = false;
  let done = 0;
  // What an earlier process finished is taken as it was (and counts against the limits); it is not run again.
  for (const [index, id] of ids.entries()) {
    const finished = opened?.finished.get(id);
    if (finished === undefined) continue;
    results[index] = { ...finished, index };
    spent.tokens += tokensOf(finished.usage);
    spent.costUsd += finished.costUsd ?? 0;
    done++;
  }

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
  // A journal line that could not be written stops the evaluation: no case starts after it.
  let unjournaled = false;
  const worker = async (): Promise<void> => {
    // The last case's journal line, on its way to disk while the next case runs: the write (and its
    // fsync) overlaps the next run instead of adding to it. The case counts as done, and is reported,
    // only once its line is on disk; killed before that, its session already holds the whole run, so
    // the next process settles it from there without asking the model again.
    let journaled: Promise<void> = Promise.resolve();
    while (next < cases.length && !unjournaled) {
      const index = next++;
      if (results[index] !== undefined) continue;
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
        const run = () =>
          inCase({ caseId: base.id, sessionId: base.sessionId }, () =>
            runCase(options, agent, scorers, c, base, budget, opened?.resumed === true ? options.store : undefined),
          );
        const info = { evaluation: name, runId, caseId: base.id, sessionId: base.sessionId };
        const result = await (options.telemetry === undefined ? run() : options.telemetry.evalCase(info, run));
        // A case cut short by the signal did not finish: left out of the journal, the next run picks its session up.
        if (opened !== undefined && !options.signal?.aborted) {
          const written = opened.journal.record(result);
          journaled = Promise.all([journaled, written]).then(() => undefined);
          // Marked handled now (it is awaited below, and rethrows there), and no further case starts.
          written.catch(() => (unjournaled = true));
        }
        results[index] = result;
        // The run stopped at what was left of the evaluation's budget: nothing more is started.
        if (options.limits !== undefined && result.error?.kind === 'budget_exceeded') limited = true;
        spent.tokens += tokensOf(result.usage);
        spent.costUsd += result.costUsd ?? 0;
      }
      const last = results[index];
      const report = () => {
        done++;
        options.onProgress?.({ done, total: cases.length, last });
      };
      // Without a journal at once, so a signal fired from onProgress stops the next case before it starts.
      if (opened === undefined) report();
      else {
        journaled = journaled.then(report);
        journaled.catch(() => undefined);
      }
    }
    await journaled;
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(cases.length, 1)) }, worker));
  } finally {
    await opened?.journal.close();
  }

  return {
    name,
    runId,
    startedAt,
    status: options.signal?.aborted ? 'cancelled' : limited ? 'limited' : 'done',
    cases: results,
    summary: summarize(
      results,
      scorers.map((s) => s.name),
      options.groupBy,
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
  if (
    options.groupBy !== undefined &&
    !(typeof options.groupBy === 'function' || (typeof options.groupBy === 'string' && options.groupBy !== ''))
  )
    throw new EvalOptionsError('`groupBy` must be a metadata key or a function of the case');
  if (options.telemetry !== undefined && typeof options.telemetry?.evalCase !== 'function')
    throw new EvalOptionsError('`telemetry` must be what createTelemetry() of indusagi/telemetry returns (it has no evalCase)');
  if (options.journal !== undefined && (typeof options.journal !== 'string' || options.journal === ''))
    throw new EvalOptionsError('`journal` must be the path of a file');
  if (options.journal !== undefined && options.store === undefined)
    throw new EvalOptionsError('`journal` needs `store`: a case cut off by a kill is picked up from its stored session');
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
  // The store a killed run's sessions are in, when this evaluation goes on from its journal (a
  // journal needs a store: checkOptions refuses one without); undefined for a fresh run.
  resumedFrom: SessionStoreLike | undefined,
): Promise<CaseResult> {
  const result: CaseResult = { ...base };
  const recorder = new TrajectoryRecorder();
  const started = performance.now();
  let snapshot: RunSnapshot | undefined;
  let before: { steps: TrajectoryStep[]; usage: ModelUsage } | undefined;
  try {
    const stored = resumedFrom === undefined ? undefined : await storedRun(resumedFrom, base.sessionId, c.input);
    const prompt = stored?.steps === undefined ? await promptOf(c.input, options.store, base.sessionId, stored?.turns ?? 0) : undefined;
    const agent = definition.open({ sessionId: base.sessionId });
    const unsubscribe = agent.subscribe((event) => recorder.see(event));
    try {
      const runOptions = { signal: options.signal, limits, ...(options.output === undefined ? {} : { output: options.output }) };
      if (prompt !== undefined) snapshot = await agent.submit(prompt, runOptions);
      else {
        // Killed mid-case: the session holds the prompt and every step that settled before the kill.
        // The run goes on from there, so no stored model reply is asked (or billed) again.
        await agent.resume(base.sessionId);
        before = { steps: stored!.steps!, usage: await agent.sessionUsage() };
        snapshot = await agent.continue(runOptions);
      }
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
  result.trajectory = before === undefined ? recorder.steps : [...before.steps, ...recorder.steps];
  if (before !== undefined) addUsage(before.usage, recorder.usage);
  result.usage = before?.usage ?? recorder.usage;
  // A fresh case is priced from its run's usage events (each names the model billed), as its stored
  // replies would be, without reading them back. A resumed one from its stored sessions: they hold
  // what the killed attempt was billed too, which this process never saw.
  result.costUsd =
    before === undefined || resumedFrom === undefined
      ? recorder.costUsd()
      : await costOf(resumedFrom, [base.sessionId, ...recorder.sessions]);
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

/**
 * What a killed run left in this case's session: how many turns, and when it holds more than the
 * conversation the case was given (its prompt, at least), the tool calls of what it stored, in order
 * (`steps` undefined: the case starts as new). The calls a sub-agent made before the kill are in the
 * sub-agent's session, not the case's, so they are not nested here.
 */
async function storedRun(
  store: SessionStoreLike,
  sessionId: string,
  input: CaseInput,
): Promise<{ turns: number; steps?: TrajectoryStep[] }> {
  const graph = await loadSession(store, sessionId);
  const path = graph.leaf === null ? [] : graph.nodesTo(graph.leaf);
  const given = typeof input === 'object' && !Array.isArray(input) ? input.messages.length - 1 : 0;
  if (path.length <= given) return { turns: path.length };
  const steps: TrajectoryStep[] = [];
  const byId = new Map<string, TrajectoryStep>();
  for (const node of path.slice(given)) {
    for (const block of node.turn.blocks) {
      if (block.kind === 'tool_call') {
        const step: TrajectoryStep = { name: block.name, callId: block.id, input: block.input };
        byId.set(block.id, step);
        steps.push(step);
      } else if (block.kind === 'tool_result') {
        const step = byId.get(block.callId);
        if (step !== undefined) {
          step.result = block.content;
          step.isError = block.isError === true;
        }
      }
    }
  }
  return { turns: path.length, steps };
}

/** The prompt to submit; a conversation's earlier turns are written to the case's session first, so the agent resumes them. */
async function promptOf(
  input: CaseInput,
  store: SessionStoreLike | undefined,
  sessionId: string,
  stored: number,
): Promise<string | PromptBlock[]> {
  if (typeof input === 'string' || Array.isArray(input)) return input;
  const turns: Turn[] = input.messages;
  const last = turns.at(-1);
  if (last === undefined || last.role !== 'user')
    throw new EvalOptionsError('a case given as messages must end with the user turn to answer');
  // `stored`: a killed run wrote the earlier turns already (one persist: all of them or none).
  if (turns.length > 1 && stored === 0) {
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
