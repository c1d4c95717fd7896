import { describe, expect, it } from 'vitest';
import { estimateContextTokens, summarize, type Turn } from '../../../src/entries/runtime.js';
import { COMPACTION_PREFIX } from '../../../src/entries/compaction.js';
import { type ModelReply } from '../../../src/entries/models.js';
import { CompactionInputError, SummarizerError, estimateTextTokens, makeSummaryTurn } from '../../../src/runtime/compaction/index.js';
import { assistant, calls, promptOf, recordingInvoker, results, user } from './helpers.js';

const history: Turn[] = [
  user('Migrate the billing service to Postgres. Do not touch the public API.'),
  {
    role: 'assistant',
    blocks: [
      { kind: 'thinking', text: 'PRIVATE-REASONING' },
      { kind: 'text', text: 'Reading the schema first.' },
    ],
  },
  calls({ id: 'toolu_01', name: 'files_read', input: { path: '/srv/billing/schema.sql' } }),
  results({ id: 'toolu_01', content: 'CREATE TABLE invoices (id uuid, amount_cents int);' }),
  calls({ id: 'toolu_02', name: 'shell_run', input: { cmd: 'psql -c "select 1"' } }),
  results({ id: 'toolu_02', content: 'connection refused', isError: true }),
];

const reply = (text: string, stopReason = 'end_turn'): ModelReply => ({
  turn: { role: 'assistant', blocks: [{ kind: 'text', text }] },
  stopReason,
});

describe('summarize', () => {
  it('asks, without tools and under its own system prompt, for goal, constraints, progress, decisions, open items and exact identifiers', async () => {
    const invoke = recordingInvoker(() => 'Goal: migrate billing.');
    const text = await summarize(history, invoke, { model: 'claude-sonnet-4-6' });

    expect(text).toBe('Goal: migrate billing.');
    expect(invoke.requests).toHaveLength(1);
    const [request] = invoke.requests;
    expect(request.model).toBe('claude-sonnet-4-6');
    expect(request.tools).toEqual([]);
    for (const heading of ['Goal', 'Constraints', 'Progress', 'Decisions', 'Open items', 'Identifiers']) {
      expect(request.system).toContain(`${heading}:`);
    }
    expect(request.system).toMatch(/file path, id, .*number.*verbatim/);
    expect(request.messages).toHaveLength(1);
    expect(request.messages[0].role).toBe('user');
  });

  it('renders the dropped turns as a transcript with tool calls and results, leaving thinking out', async () => {
    const invoke = recordingInvoker(() => 'ok');
    await summarize(history, invoke, { model: 'claude-sonnet-4-6' });
    const prompt = promptOf(invoke.requests[0]);
    expect(prompt).toContain('User: Migrate the billing service to Postgres. Do not touch the public API.');
    expect(prompt).toContain('Assistant called tool files_read [call toolu_01] with input: {"path":"/srv/billing/schema.sql"}');
    expect(prompt).toContain('Tool result [call toolu_01]: CREATE TABLE invoices (id uuid, amount_cents int);');
    expect(prompt).toContain('Tool result [call toolu_02] (error): connection refused');
    expect(prompt).not.toContain('PRIVATE-REASONING');
    expect(prompt).not.toContain('PREVIOUS SUMMARY');
  });

  it('hands a previous summary over labelled to be carried forward, not as transcript', async () => {
    const previous = makeSummaryTurn('Goal: ship v2.\nIdentifiers: ticket BILL-4471, branch feat/pg');
    const invoke = recordingInvoker(() => 'merged');
    await summarize([previous, ...history], invoke, { model: 'claude-sonnet-4-6' });
    const prompt = promptOf(invoke.requests[0]);
    const [carried, transcript] = prompt.split('<transcript>');
    expect(carried).toMatch(/PREVIOUS SUMMARY.*Carry forward everything in it that is still relevant/);
    expect(carried).toContain('ticket BILL-4471, branch feat/pg');
    expect(carried).not.toContain(COMPACTION_PREFIX);
    expect(transcript).not.toContain('BILL-4471');
    expect(invoke.requests[0].system).toMatch(/previous summary is given, merge it in/);
  });

  it('clips a huge tool result to its head and tail with a marker', async () => {
    const huge = 'HEAD-/var/log/app.log ' + 'x'.repeat(200_000) + ' TAIL-exit code 137';
    const invoke = recordingInvoker(() => 'ok');
    await summarize([user('why did it crash'), calls({ id: 'c1' }), results({ id: 'c1', content: huge })], invoke, {
      model: 'claude-sonnet-4-6',
    });
    const prompt = promptOf(invoke.requests[0]);
    expect(prompt).toContain('HEAD-/var/log/app.log');
    expect(prompt).toContain('TAIL-exit code 137');
    expect(prompt).toMatch(/…\[\d+ characters clipped\]…/);
    expect(prompt.length).toBeLessThan(5_000);
  });

  it('keeps the whole request within its input budget however long the dropped history is', async () => {
    const long: Turn[] = [user('GOAL-MARK: port the renderer to WebGPU')];
    for (let i = 0; i < 400; i++) long.push(assistant(`step ${i} `.padEnd(5_000, '.')), user(`ack ${i}`));
    long.push(user('LATEST-MARK: tests are green'));
    expect(estimateContextTokens(long)).toBeGreaterThan(500_000);

    const invoke = recordingInvoker(() => 'ok');
    await summarize(long, invoke, { model: 'claude-sonnet-4-6', maxOutputTokens: 1_000, inputBudgetTokens: 20_000 });
    const [request] = invoke.requests;
    const requestTokens = estimateContextTokens(request.messages) + estimateTextTokens(request.system ?? '');
    expect(requestTokens).toBeLessThanOrEqual(20_000);
    expect(request.maxOutputTokens).toBe(1_000);
    const prompt = promptOf(request);
    expect(prompt).toContain('GOAL-MARK: port the renderer to WebGPU');
    expect(prompt).toContain('LATEST-MARK: tests are green');
    expect(prompt).toMatch(/characters clipped/);
  });

  it('strips a prefix the model echoes, so the summary turn carries it exactly once', async () => {
    const invoke = recordingInvoker(() => `${COMPACTION_PREFIX}\n${COMPACTION_PREFIX} Goal: keep going`);
    const text = await summarize(history, invoke, { model: 'claude-sonnet-4-6' });
    expect(text).toBe('Goal: keep going');
    const turnText = (makeSummaryTurn(text).blocks[0] as { text: string }).text;
    expect(turnText.split(COMPACTION_PREFIX)).toHaveLength(2);
  });

  it('fails with a typed SummarizerError, cause attached, when the call rejects', async () => {
    const network = new Error('ECONNRESET');
    const error = await summarize(
      history,
      recordingInvoker(() => network),
      { model: 'claude-sonnet-4-6' },
    ).catch((e) => e);
    expect(SummarizerError.isInstance(error)).toBe(true);
    expect(error.kind).toBe('summarizer_failed');
    expect(error.cause).toBe(network);
    expect(error.message).toContain('ECONNRESET');
  });

  it('fails on a refusal, an empty answer or a summary cut off at max_tokens', async () => {
    const cases: [ModelReply, RegExp][] = [
      [reply('I cannot help with that', 'refusal'), /refused/],
      [reply('   '), /no text/],
      [reply(COMPACTION_PREFIX), /no text/],
      [{ turn: { role: 'assistant', blocks: [] }, stopReason: 'end_turn' }, /no text/],
      [reply('Goal: half a sum', 'max_tokens'), /ended early \(stop reason max_tokens\)/],
    ];
    for (const [answer, message] of cases) {
      const error = await summarize(
        history,
        recordingInvoker(() => answer),
        { model: 'claude-sonnet-4-6' },
      ).catch((e) => e);
      expect(SummarizerError.isInstance(error), String(message)).toBe(true);
      expect(error.kind).toBe('summarizer_failed');
      expect(error.message).toMatch(message);
    }
  });

  it('lets an abort through as the abort it is, not as a summarizer fault', async () => {
    const controller = new AbortController();
    const abortError = new DOMException('The operation was aborted', 'AbortError');
    const invoke = recordingInvoker(() => {
      controller.abort();
      return abortError;
    });
    const error = await summarize(history, invoke, { model: 'claude-sonnet-4-6', signal: controller.signal }).catch((e) => e);
    expect(error).toBe(abortError);
    expect(invoke.requests[0].signal).toBe(controller.signal);
  });

  it('refuses to summarize nothing', async () => {
    const invoke = recordingInvoker(() => 'ok');
    await expect(summarize([], invoke, { model: 'claude-sonnet-4-6' })).rejects.toThrow(CompactionInputError);
    expect(invoke.requests).toHaveLength(0);
  });
});
