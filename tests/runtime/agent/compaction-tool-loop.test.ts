// Compaction inside one long tool loop, through the real SDK and the loopback server: the check runs
// before every model call, the summary lands in the session DAG under the current leaf, a second
// compaction carries the first summary forward, and a tail that cannot fit keeps fewer turns or faults.
import { describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../../src/entries/runtime.js';
import type { RunFault } from '../../../src/entries/errors.js';
import { serverAndDirPerTest, type TempDir } from '../../support/server-and-dir.js';
import { reply, type AnthropicTestServer } from '../../../src/testing/index.js';
import {
  COMPACTION_PREFIX,
  chunkText,
  compactedEvents,
  contentOf,
  fakeModel,
  firstText,
  isSummarizerRequest,
  promptTokens,
  readChunkTool,
  record,
  shapes,
  storedSession,
  tempDir,
} from './compaction-helpers.js';

const WINDOW = 6_000;
const OUT = 500;
// What a request may hold: the trigger ratio's share of the window, less the reply's reserve.
const BUDGET = WINDOW * 0.8;
const PROMPT = 'Read the whole document, chunk by chunk, then tell me what it says.';

let server: AnthropicTestServer;
let dir: TempDir;
serverAndDirPerTest(tempDir, (s, d) => ((server = s), (dir = d)));

/** The model reads chunks 0..steps-1, one per call, then answers. */
function readingModel(steps: number, summaries: string[]) {
  fakeModel(server, {
    agent: (_body, n) =>
      n < steps ? reply.tools([{ name: 'read_chunk', input: { n }, id: `toolu_${n}` }]) : reply.text('The document is about a fox.'),
    summarize: (_body, n) => reply.text(summaries[n]),
  });
}

function agentWith(options: { keepRecent: number; chunkChars: (n: number) => number }) {
  return createAgent(
    // History recall off: the summary turn is pinned exactly (recall adds a note; tests/runtime/history cover it).
    {
      model: 'claude-test',
      sessionId: 'reading',
      contextWindow: WINDOW,
      maxOutputTokens: OUT,
      compaction: { keepRecent: options.keepRecent },
      tools: [readChunkTool(options.chunkChars)],
      history: false,
    },
    { client: server.client(), store: new SessionStore(dir.path) },
  );
}

const agentRequests = () => server.requests.filter((r) => !isSummarizerRequest(r));

describe('compaction between the steps of one tool loop', () => {
  it('compacts mid-run, sends the summary first on every later call, and records it under the leaf it followed', async () => {
    const SUMMARY = 'Goal: read the document. Progress: chunks 0 onward read; they describe a fox. Identifiers: read_chunk.';
    readingModel(16, [SUMMARY]);
    const agent = agentWith({ keepRecent: 4, chunkChars: () => 1_200 });
    const events = record(agent);

    const snapshot = await agent.submit(PROMPT);

    expect(snapshot.status).toBe('settled');
    expect(snapshot.text).toBe('The document is about a fox.');
    const requests = server.requests;
    expect(requests.filter(isSummarizerRequest)).toHaveLength(1);
    const at = requests.findIndex(isSummarizerRequest);
    const before = requests[at - 1].body;
    const after = requests[at + 1].body;
    // One run: the call before the summary was answered with a tool call, and the call after it carries
    // that call's result, so the compaction ran between two steps of the same loop.
    expect(firstText(before.messages[0])).toBe(PROMPT);
    expect(firstText(after.messages[0])).toBe(`${COMPACTION_PREFIX}\n${SUMMARY}`);
    // Every request before the summarizer's was an agent call, the n-th asking for chunk n.
    const lastCallBefore = at - 1;
    expect(after.messages.at(-1).content[0]).toMatchObject({ type: 'tool_result', tool_use_id: `toolu_${lastCallBefore}` });
    expect(after.messages.slice(1).map((m: any) => m.role)).toEqual(['assistant', 'user', 'assistant', 'user']);
    for (const later of requests.slice(at + 1)) expect(firstText(later.body.messages[0])).toBe(`${COMPACTION_PREFIX}\n${SUMMARY}`);
    // The summarizer saw the start of the work, which the kept tail no longer holds.
    expect(firstText(requests[at].body.messages[0])).toContain(PROMPT);
    expect(firstText(requests[at].body.messages[0])).toContain('chunk 0 begins.');
    // The check ran before every call: no request, as the API counts it, outgrew the window.
    for (const r of requests) expect(promptTokens(r.body) + r.body.max_tokens).toBeLessThanOrEqual(WINDOW);

    const compacted = compactedEvents(events);
    expect(compacted).toHaveLength(1);
    expect(compacted[0].summary).toBe(SUMMARY);
    expect(compacted[0].removed).toBe(before.messages.length + 2 - (after.messages.length - 1));
    expect(compacted[0].tokensBefore + OUT).toBeGreaterThan(BUDGET);
    expect(compacted[0].tokensAfter + OUT).toBeLessThanOrEqual(BUDGET);
    // Published mid-run: tools ran before it and after it.
    const compactedAt = events.indexOf(compacted[0]);
    expect(events.slice(0, compactedAt).some((e) => e.kind === 'tool_finished')).toBe(true);
    expect(events.slice(compactedAt).some((e) => e.kind === 'tool_finished')).toBe(true);
    await agent.close();

    // On disk: the full history, the summary node right after the result it followed, marking its tail.
    const { graph, leaf, path, summaries } = await storedSession(dir.path, 'reading');
    expect(summaries).toHaveLength(1);
    const summary = summaries[0];
    expect(summary.turn).toEqual({ role: 'user', blocks: [{ kind: 'text', text: `${COMPACTION_PREFIX}\n${SUMMARY}` }] });
    expect(graph.node(summary.parent!)!.turn.blocks).toEqual([
      { kind: 'tool_result', callId: `toolu_${lastCallBefore}`, content: chunkText(lastCallBefore, 1_200) },
    ]);
    expect(graph.node(summary.condenses.firstKept!)!.turn.blocks[0]).toMatchObject({
      kind: 'tool_call',
      id: after.messages[1].content[0].id,
    });
    const pairs = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => [`call toolu_${from + i}`, `result toolu_${from + i}`]).flat();
    expect(contentOf(path)).toEqual([
      PROMPT,
      ...pairs(0, lastCallBefore + 1),
      `${COMPACTION_PREFIX}\n${SUMMARY}`,
      ...pairs(lastCallBefore + 1, 16),
      'The document is about a fox.',
    ]);
    expect(graph.pathTo(leaf)).toHaveLength(1 + 32 + 1 + 1);
    expect(graph.resume(leaf)).toEqual(snapshot.messages);
  });

  it('compacts again later in the run, handing the first summary to the second summarizer call', async () => {
    const FIRST = 'Goal: read the document. Progress: early chunks read. Identifiers: marker ALPHA-7731.';
    const SECOND = 'Goal: read the document. Progress: most chunks read. Identifiers: marker ALPHA-7731.';
    readingModel(30, [FIRST, SECOND]);
    const agent = agentWith({ keepRecent: 4, chunkChars: () => 1_200 });
    const events = record(agent);

    const snapshot = await agent.submit(PROMPT);

    expect(snapshot.status).toBe('settled');
    const summarizerCalls = server.requests.filter(isSummarizerRequest);
    expect(summarizerCalls).toHaveLength(2);
    const secondInput = firstText(summarizerCalls[1].body.messages[0]);
    expect(secondInput).toContain(`<previous-summary>\n${FIRST}\n</previous-summary>`);
    // The first summary is carried as a summary, not repeated as a transcript line.
    expect(secondInput.split(FIRST)).toHaveLength(2);
    expect(compactedEvents(events).map((e) => e.summary)).toEqual([FIRST, SECOND]);
    // After the second compaction the context holds the second summary only.
    const last = agentRequests().at(-1)!.body;
    expect(firstText(last.messages[0])).toBe(`${COMPACTION_PREFIX}\n${SECOND}`);
    expect(JSON.stringify(last.messages)).not.toContain(FIRST);
    expect(snapshot.messages[0].blocks[0]).toEqual({ kind: 'text', text: `${COMPACTION_PREFIX}\n${SECOND}` });
    await agent.close();

    const { graph, leaf, summaries } = await storedSession(dir.path, 'reading');
    expect(summaries.map((n) => n.turn.blocks[0])).toEqual([
      { kind: 'text', text: `${COMPACTION_PREFIX}\n${FIRST}` },
      { kind: 'text', text: `${COMPACTION_PREFIX}\n${SECOND}` },
    ]);
    expect(graph.resume(leaf)).toEqual(snapshot.messages);
    // Nothing was deleted: every call of the run is still on the path.
    expect(graph.pathTo(leaf).filter((t) => t.blocks[0].kind === 'tool_call')).toHaveLength(30);
  });
});

describe('a tail that does not fit', () => {
  it('keeps fewer turns than keepRecent, down to the last call/result pair, when one tool result is huge', async () => {
    const SUMMARY = 'Goal: read the document. Progress: chunks 0-2 read.';
    readingModel(4, [SUMMARY]);
    // Three ordinary chunks, then one that fills most of the budget on its own.
    const agent = agentWith({ keepRecent: 8, chunkChars: (n) => (n < 3 ? 1_600 : 13_200) });
    const events = record(agent);

    const snapshot = await agent.submit(PROMPT);

    expect(snapshot.status).toBe('settled');
    expect(server.requests.filter(isSummarizerRequest)).toHaveLength(1);
    const after = agentRequests().at(-1)!.body;
    expect(shapes(after)).toEqual(['user:text', 'assistant:tool_use', 'user:tool_result']);
    expect(firstText(after.messages[0])).toBe(`${COMPACTION_PREFIX}\n${SUMMARY}`);
    expect(after.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_3' });
    expect(after.messages[2].content[0].content === chunkText(3, 13_200), 'the huge result is sent whole').toBe(true);
    expect(promptTokens(after) + after.max_tokens).toBeLessThanOrEqual(WINDOW);
    expect(compactedEvents(events)[0].removed).toBe(7);
  });

  it('faults context_overflow, without looping or calling the summarizer, when even the last pair cannot fit', async () => {
    readingModel(1, []);
    const agent = agentWith({ keepRecent: 2, chunkChars: () => 24_000 });
    const events = record(agent);

    const fault = (await agent.submit(PROMPT).catch((error: unknown) => error)) as RunFault;

    expect(fault).toMatchObject({ name: 'RunFault', kind: 'context_overflow' });
    expect(fault.message).toMatch(/cannot be compacted to fit/);
    expect(events.at(-1)).toMatchObject({ kind: 'faulted', error: { kind: 'context_overflow' } });
    // One call asked for the tool; the next was never made, the summarizer neither.
    expect(server.requests).toHaveLength(1);
    // Nothing lost: the huge result is in the snapshot and on disk.
    expect(fault.snapshot.messages.at(-1)!.blocks[0]).toMatchObject({
      kind: 'tool_result',
      callId: 'toolu_0',
      content: chunkText(0, 24_000),
    });
    await agent.close();
    const { path } = await storedSession(dir.path, 'reading');
    expect(contentOf(path)).toEqual([PROMPT, 'call toolu_0', 'result toolu_0']);
  });
});
