import { describe, expect, it } from 'vitest';
import { estimateContextTokens, findCutPoint, type Turn } from '../../../src/entries/runtime.js';
import { COMPACTION_PREFIX } from '../../../src/entries/compaction.js';
import { type ModelTool } from '../../../src/entries/models.js';
import {
  CompactionInputError,
  Compactor,
  ContextOverflowError,
  SummarizerError,
  estimateTextTokens,
  estimateToolsTokens,
  estimateTurnTokens,
  isSummaryTurn,
} from '../../../src/runtime/compaction/index.js';
import { modelCard } from '../../../src/runtime/models/index.js';
import { assistant, calls, promptOf, recordingInvoker, results, tailIsSelfContained, toolLoop, user } from './helpers.js';

// limit = floor(10,000 × 0.8) = 8,000 estimated tokens; summaries are capped at 8,000 / 4 = 2,000.
const card = modelCard('test-model', { contextWindow: 10_000, maxOutputTokens: 4_000 });
const policy = { triggerRatio: 0.8, keepRecent: 4 };
/** A turn of exactly `tokens` estimated tokens (surcharge included). */
const sized = (tokens: number, role: 'user' | 'assistant' = 'user', label = ''): Turn =>
  (role === 'user' ? user : assistant)(label.padEnd((tokens - 4) * 4, '.'));
const ok = () => recordingInvoker(() => 'Goal: keep going. Identifiers: /repo/build.ts');

describe('Compactor.plan', () => {
  it('equals a full re-estimate at every step of a growing, replaced and resumed history', () => {
    const systemText = 'You are a careful engineer. '.repeat(20);
    const tools: ModelTool[] = [
      { name: 'files_read', description: 'Reads a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
    ];
    const compactor = new Compactor({ card, policy, invokeModel: ok(), systemText, tools });
    const overhead = estimateTextTokens(systemText) + estimateToolsTokens(tools);
    const full = (h: Turn[]) => overhead + estimateContextTokens(h);

    let seed = 3;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let history: Turn[] = [];
    for (let step = 0; step < 200; step++) {
      const r = random();
      if (r < 0.8) history = [...history, sized(5 + Math.floor(random() * 300), random() < 0.5 ? 'user' : 'assistant')];
      else if (r < 0.9)
        history = history.map((t) => structuredClone(t)); // a resume: same content, new objects
      else history = [sized(50), ...history.slice(Math.floor(history.length / 2))]; // a replaced context
      const plan = compactor.plan(history);
      expect(plan.estimatedTokens, `step ${step}`).toBe(full(history));
      expect(plan.shouldCompact).toBe(plan.estimatedTokens > 8_000);
    }
  });

  it('reads only the turns appended since the last call, however long the history', () => {
    const reads = new Map<number, number>();
    const counted = (i: number): Turn => {
      const blocks = sized(20).blocks;
      return {
        role: 'user',
        get blocks() {
          reads.set(i, (reads.get(i) ?? 0) + 1);
          return blocks;
        },
      };
    };
    const history = Array.from({ length: 5_000 }, (_, i) => counted(i));
    const compactor = new Compactor({ card, policy, invokeModel: ok() });
    compactor.plan(history);
    reads.clear();

    history.push(counted(5_000), counted(5_001));
    const plan = compactor.plan(history);
    compactor.observeUsage(history, 1_234);
    compactor.plan(history);

    expect(plan.estimatedTokens).toBe(5_002 * 20);
    expect([...reads.keys()].sort()).toEqual([5_000, 5_001]);
  });

  it('reserves the requested max_tokens for the reply', () => {
    const history = [sized(3_000), sized(3_000)];
    expect(new Compactor({ card, policy, invokeModel: ok(), maxOutputTokens: 2_000 }).plan(history).shouldCompact).toBe(false);
    expect(new Compactor({ card, policy, invokeModel: ok(), maxOutputTokens: 2_001 }).plan(history).shouldCompact).toBe(true);
  });

  it('refuses a bad policy or budget at construction', () => {
    expect(() => new Compactor({ card, policy: { keepRecent: -2 }, invokeModel: ok() })).toThrow(CompactionInputError);
    expect(() => new Compactor({ card, policy, invokeModel: ok(), maxOutputTokens: -1 })).toThrow(CompactionInputError);
    expect(() => new Compactor({ card, policy, invokeModel: ok(), summaryMaxTokens: 1.5 })).toThrow(CompactionInputError);
  });
});

describe('Compactor.observeUsage', () => {
  it('starts the next estimate from the reported count plus the estimate of what was added since', () => {
    const compactor = new Compactor({ card, policy, invokeModel: ok(), systemText: 's'.repeat(400) });
    const history = [sized(100), sized(100), sized(100)];
    expect(compactor.plan(history).estimatedTokens).toBe(400);

    compactor.observeUsage(history, 7_900);
    expect(compactor.plan(history)).toEqual({ shouldCompact: false, estimatedTokens: 7_900 });
    history.push(sized(150, 'assistant'), sized(50));
    // The heuristic alone would say 600; the API's count says the next call is over the limit.
    expect(compactor.plan(history)).toEqual({ shouldCompact: true, estimatedTokens: 8_100 });

    // A report for a prefix of what the compactor has seen anchors at that prefix.
    compactor.observeUsage(history.slice(0, 4), 1_000);
    expect(compactor.plan(history).estimatedTokens).toBe(1_050);
  });

  it('is dropped when the history is replaced, e.g. by a resume', () => {
    const compactor = new Compactor({ card, policy, invokeModel: ok() });
    const history = [sized(100), sized(100)];
    compactor.plan(history);
    compactor.observeUsage(history, 5_000);
    const resumed = history.map((t) => structuredClone(t));
    expect(compactor.plan(resumed).estimatedTokens).toBe(200);
  });

  it('refuses a count that is not a whole number of tokens', () => {
    const compactor = new Compactor({ card, policy, invokeModel: ok() });
    expect(() => compactor.observeUsage([], Number.NaN)).toThrow(CompactionInputError);
    expect(() => compactor.observeUsage([], -5)).toThrow(CompactionInputError);
  });
});

describe('Compactor.compact', () => {
  it('does nothing while the context fits, unless forced', async () => {
    const invoke = ok();
    const compactor = new Compactor({ card, policy, invokeModel: invoke });
    const history = toolLoop(6);
    expect(await compactor.compact(history)).toBeNull();
    expect(invoke.requests).toHaveLength(0);

    const forced = await compactor.compact(history, undefined, { force: true });
    expect(forced?.keptFrom).toBe(findCutPoint(history, 4));
    expect(invoke.requests).toHaveLength(1);
  });

  it('compacts at the keepRecent cut and reports what it did', async () => {
    const invoke = ok();
    const compactor = new Compactor({ card, policy, invokeModel: invoke, systemText: 'be brief' });
    const history = Array.from({ length: 40 }, (_, i) => sized(210, i % 2 ? 'assistant' : 'user', `turn ${i}`));
    const before = structuredClone(history);
    const plan = compactor.plan(history);
    expect(plan.shouldCompact).toBe(true);

    const result = await compactor.compact(history);
    expect(result).not.toBeNull();
    const r = result!;
    expect(r.keptFrom).toBe(36);
    expect(r.removed).toBe(36);
    expect(r.messages).toHaveLength(5);
    expect(r.messages[0]).toBe(r.summaryTurn);
    expect(isSummaryTurn(r.summaryTurn)).toBe(true);
    expect(r.summary).toBe('Goal: keep going. Identifiers: /repo/build.ts');
    r.messages.slice(1).forEach((turn, i) => expect(turn).toBe(history[36 + i]));
    expect(r.tokensBefore).toBe(plan.estimatedTokens);
    expect(r.tokensAfter).toBe(estimateTextTokens('be brief') + estimateContextTokens(r.messages));
    expect(r.usage).toEqual({ inputTokens: 100, outputTokens: 20, cacheWriteTokens: 0, cacheReadTokens: 0 });
    expect(history).toEqual(before);

    // The summarizer got the dropped turns and a cap that fits the room.
    const prompt = promptOf(invoke.requests[0]);
    expect(prompt).toContain('turn 35');
    expect(prompt).not.toContain('turn 36');
    expect(invoke.requests[0].maxOutputTokens).toBe(2_000);

    // The compactor continues from the compacted context, still in step with a full estimate.
    const next = [...r.messages, sized(30)];
    expect(compactor.plan(next)).toEqual({
      shouldCompact: false,
      estimatedTokens: estimateTextTokens('be brief') + estimateContextTokens(next),
    });
  });

  it('keeps fewer turns when the kept tail holds a turn too big to keep, instead of looping', async () => {
    const compactor = new Compactor({ card, policy, invokeModel: ok() });
    const history = [
      ...Array.from({ length: 10 }, () => sized(300)),
      sized(6_000, 'user', 'GIANT'),
      sized(50, 'assistant'),
      sized(50),
      sized(50, 'assistant'),
    ];
    const result = await compactor.compact(history);
    expect(result!.keptFrom).toBe(history.length - 3);
    expect(result!.messages.some((t) => JSON.stringify(t).includes('GIANT'))).toBe(false);
    expect(compactor.plan(result!.messages).shouldCompact).toBe(false);
  });

  it('goes below keepRecent when the whole short history does not fit', async () => {
    const compactor = new Compactor({ card, policy: { keepRecent: 20 }, invokeModel: ok() });
    const history = [sized(100), sized(100, 'assistant'), sized(7_800), sized(100, 'assistant'), sized(100)];
    const result = await compactor.compact(history);
    expect(result!.keptFrom).toBe(3);
  });

  it('never keeps a tool_result without its call when shrinking', async () => {
    const compactor = new Compactor({ card, policy, invokeModel: ok() });
    const history = [
      user('go'),
      calls({ id: 'a' }),
      results({ id: 'a', content: 'x'.repeat(32_000) }),
      calls({ id: 'b' }),
      results({ id: 'b' }),
      assistant('done'),
    ];
    const result = await compactor.compact(history);
    expect(result!.keptFrom).toBe(3);
    expect(tailIsSelfContained(result!.messages)).toBe(true);
  });

  it('faults with context_overflow, before any model call, when even the last call/result pair cannot fit', async () => {
    const invoke = ok();
    const compactor = new Compactor({ card, policy, invokeModel: invoke, maxOutputTokens: 1_000 });
    const history = [...toolLoop(3), calls({ id: 'big' }), results({ id: 'big', content: 'y'.repeat(30_000) })];
    const before = structuredClone(history);
    const error = await compactor.compact(history).catch((e) => e);
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect(error.kind).toBe('context_overflow');
    expect(error.limitTokens).toBe(8_000);
    expect(error.neededTokens).toBeGreaterThan(8_000);
    expect(error.message).toMatch(/last 2 turn\(s\)/);
    expect(invoke.requests).toHaveLength(0);
    expect(history).toEqual(before);
  });

  it('keeps nothing verbatim when keepRecent is 0', async () => {
    const compactor = new Compactor({ card, policy: { keepRecent: 0 }, invokeModel: ok() });
    const history = Array.from({ length: 40 }, () => sized(210));
    const result = await compactor.compact(history);
    expect(result!.keptFrom).toBe(40);
    expect(result!.messages).toEqual([result!.summaryTurn]);
  });

  it('returns null when there is nothing it may drop', async () => {
    const invoke = ok();
    const compactor = new Compactor({ card, policy, invokeModel: invoke });
    expect(await compactor.compact([sized(9_000)])).toBeNull();
    expect(await compactor.compact([sized(9_000)], undefined, { force: true })).toBeNull();
    expect(invoke.requests).toHaveLength(0);
  });

  it('faults with summarizer_failed and loses nothing when the summary call fails, then can try again', async () => {
    const invoke = recordingInvoker((_, call) => (call === 0 ? new Error('socket hang up') : 'Goal: recovered'));
    const compactor = new Compactor({ card, policy, invokeModel: invoke });
    const history = Array.from({ length: 40 }, () => sized(210));
    const before = structuredClone(history);

    const error = await compactor.compact(history).catch((e) => e);
    expect(SummarizerError.isInstance(error)).toBe(true);
    expect(error.kind).toBe('summarizer_failed');
    expect(history).toEqual(before);
    expect(compactor.plan(history).shouldCompact).toBe(true);

    const result = await compactor.compact(history);
    expect(result!.summary).toBe('Goal: recovered');
  });

  it('folds a summary that came out too long into a later cut, carrying it forward', async () => {
    // Tail at the keepRecent cut: 4 × 1,250 = 5,000 tokens, leaving room for ~2,988 of summary.
    const history = [
      ...Array.from({ length: 8 }, (_, i) => sized(400, 'user', `old ${i}`)),
      ...Array.from({ length: 4 }, (_, i) => sized(1_250, i % 2 ? 'assistant' : 'user', `recent ${i}`)),
    ];
    const long = 'Identifiers: BILL-4471 ' + 'z'.repeat(13_000);
    const invoke = recordingInvoker((_, call) => (call === 0 ? long : 'Goal: short now. Identifiers: BILL-4471'));
    const compactor = new Compactor({ card, policy, invokeModel: invoke });

    const result = await compactor.compact(history, undefined, { force: true });
    expect(invoke.requests).toHaveLength(2);
    const second = promptOf(invoke.requests[1]);
    expect(second.split('<transcript>')[0]).toContain('Identifiers: BILL-4471');
    expect(second).toContain('recent 0');
    expect(second).not.toContain('old 0');
    expect(result!.keptFrom).toBe(9);
    expect(result!.summary).toBe('Goal: short now. Identifiers: BILL-4471');
    expect(result!.usage.inputTokens).toBe(200);
  });

  it('gives up with context_overflow after a bounded number of calls when every summary is too long', async () => {
    const history = [...Array.from({ length: 8 }, () => sized(400)), ...Array.from({ length: 4 }, () => sized(1_250))];
    const invoke = recordingInvoker(() => 'z'.repeat(40_000));
    const error = await new Compactor({ card, policy, invokeModel: invoke }).compact(history, undefined, { force: true }).catch((e) => e);
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect(invoke.requests.length).toBeLessThanOrEqual(4);
  });

  it('carries the previous summary forward when compacting again', async () => {
    const invoke = recordingInvoker((_, call) =>
      call === 0 ? 'Goal: ship. Identifiers: BILL-4471, /srv/billing/schema.sql' : 'Goal: ship. Identifiers: BILL-4471',
    );
    const compactor = new Compactor({ card, policy, invokeModel: invoke });
    const first = await compactor.compact(Array.from({ length: 40 }, () => sized(210)));

    const grown = [...first!.messages, ...Array.from({ length: 36 }, () => sized(210))];
    expect(compactor.plan(grown).shouldCompact).toBe(true);
    const second = await compactor.compact(grown);

    const carried = promptOf(invoke.requests[1]).split('<transcript>')[0];
    expect(carried).toContain('PREVIOUS SUMMARY');
    expect(carried).toContain('BILL-4471, /srv/billing/schema.sql');
    expect(second!.messages.filter(isSummaryTurn)).toHaveLength(1);
    expect((second!.messages[0].blocks[0] as { text: string }).text.startsWith(`${COMPACTION_PREFIX}\nGoal: ship.`)).toBe(true);
  });

  it('never replaces turns with a summary that is not smaller than they are, forced or not: null, history untouched', async () => {
    // 12 short turns: the 8 a forced compaction may drop hold about 8 × 10 tokens; the summary is ~500.
    const history = Array.from({ length: 12 }, (_, i) => sized(10, i % 2 ? 'assistant' : 'user'));
    const before = structuredClone(history);
    const invoke = recordingInvoker(() => 'Goal: '.padEnd(2_000, 'z'));
    const discarded: Array<{ summaryTokens: number; replacedTokens: number; inputTokens: number }> = [];
    const compactor = new Compactor({
      card,
      policy,
      invokeModel: invoke,
      onDiscarded: (d) =>
        discarded.push({ summaryTokens: d.summaryTokens, replacedTokens: d.replacedTokens, inputTokens: d.usage.inputTokens }),
    });
    expect(await compactor.compact(history, undefined, { force: true, keepAllRecent: true })).toBeNull();
    expect(await compactor.compact(history, undefined, { force: true })).toBeNull();
    expect(history).toEqual(before);
    // The summarizer was asked (and billed) each time; what it cost is handed on, not lost.
    expect(invoke.requests).toHaveLength(2);
    expect(discarded).toHaveLength(2);
    for (const d of discarded) {
      expect(d.summaryTokens).toBeGreaterThanOrEqual(d.replacedTokens);
      expect(d.inputTokens).toBe(100);
    }
    // The compactor still tracks the untouched history: nothing was adopted.
    expect(compactor.plan(history).estimatedTokens).toBe(estimateContextTokens(history));
  });

  it('reports tokensAfter on the scale of tokensBefore: a calibrated count shrinks as the estimate does', async () => {
    const history = Array.from({ length: 12 }, (_, i) => sized(100, i % 2 ? 'assistant' : 'user'));
    const compactor = new Compactor({ card, policy, invokeModel: ok() });
    compactor.plan(history);
    // The API counts less than the heuristic (as the demo model does, which counts tools by name).
    compactor.observeUsage(history, 1_000);
    const result = (await compactor.compact(history, undefined, { force: true, keepAllRecent: true }))!;
    expect(result.tokensBefore).toBe(1_000);
    const estimatedAfter = estimateContextTokens(result.messages);
    expect(result.tokensAfter).toBe(Math.round((1_000 * estimatedAfter) / estimateContextTokens(history)));
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
  });

  it('passes the abort signal to the summarizer', async () => {
    const invoke = ok();
    const controller = new AbortController();
    await new Compactor({ card, policy, invokeModel: invoke }).compact(
      Array.from({ length: 40 }, () => sized(210)),
      controller.signal,
    );
    expect(invoke.requests[0].signal).toBe(controller.signal);
  });
});

it('sizes test turns exactly', () => {
  expect(estimateTurnTokens(sized(1_250))).toBe(1_250);
});
