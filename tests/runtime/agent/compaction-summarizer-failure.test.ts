// A summarizer call that fails (network, API error, refusal) faults the run `summarizer_failed` and
// loses nothing: the run's turns are on disk up to the fault, uncompacted, and a later submit works.
import { describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../../src/entries/runtime.js';
import type { RunFault } from '../../../src/entries/errors.js';
import { serverAndDirPerTest, type TempDir } from '../../support/server-and-dir.js';
import { reply, type AnthropicTestServer, type Script } from '../../../src/testing/index.js';
import {
  COMPACTION_PREFIX,
  contentOf,
  fakeModel,
  isSummarizerRequest,
  readChunkTool,
  record,
  storedSession,
  tempDir,
} from './compaction-helpers.js';

const PROMPT = 'Read the whole document, chunk by chunk.';
const SUMMARY = 'Goal: read the document. Progress: many chunks read.';

let server: AnthropicTestServer;
let dir: TempDir;
serverAndDirPerTest(tempDir, (s, d) => ((server = s), (dir = d)));

describe.each<{ failure: string; answer: Script }>([
  { failure: 'a dropped connection', answer: reply.text(SUMMARY, { interrupt: { afterFrames: 2, with: 'drop' } }) },
  { failure: 'an API error', answer: reply.httpError(529, { message: 'Overloaded' }) },
  { failure: 'a refusal', answer: reply.text('I cannot help with that.', { stopReason: 'refusal' }) },
])('the summarizer fails with $failure', ({ answer }) => {
  it('faults summarizer_failed, keeps every turn of the run on disk, and the next submit compacts and settles', async () => {
    fakeModel(server, {
      // Reads chunk after chunk until told to continue, then answers.
      agent: (body, n) =>
        JSON.stringify(body.messages.at(-1)).includes('Please continue.')
          ? reply.text('Finished reading.')
          : reply.tools([{ name: 'read_chunk', input: { n }, id: `toolu_${n}` }]),
      summarize: (_body, n) => (n === 0 ? answer : reply.text(SUMMARY)),
    });
    const agent = createAgent(
      // History recall off: the summary turn is pinned exactly (recall adds a note; tests/runtime/history cover it).
      {
        model: 'claude-test',
        sessionId: 'doc',
        contextWindow: 6_000,
        maxOutputTokens: 500,
        compaction: { keepRecent: 4 },
        tools: [readChunkTool(() => 1_200)],
        history: false,
      },
      { client: server.client(), store: new SessionStore(dir.path) },
    );
    const events = record(agent);

    const fault = (await agent.submit(PROMPT).catch((error: unknown) => error)) as RunFault;

    expect(fault).toMatchObject({ name: 'RunFault', kind: 'summarizer_failed' });
    expect(events.at(-1)).toMatchObject({ kind: 'faulted', error: { kind: 'summarizer_failed' } });
    expect(events.some((e) => e.kind === 'compacted')).toBe(false);
    // The run stopped at the summarizer: every call before it was answered and its tool ran.
    const calls = server.requests.findIndex(isSummarizerRequest);
    expect(calls).toBeGreaterThan(1);
    expect(server.requests).toHaveLength(calls + 1);
    const pairs = Array.from({ length: calls }, (_, i) => [`call toolu_${i}`, `result toolu_${i}`]).flat();
    expect(contentOf(fault.snapshot.messages)).toEqual([PROMPT, ...pairs]);
    // Persisted before the next run: the file already holds the run up to the fault, uncompacted.
    const failed = await storedSession(dir.path, 'doc');
    expect(failed.summaries).toHaveLength(0);
    expect(contentOf(failed.path)).toEqual([PROMPT, ...pairs]);
    expect(failed.graph.resume(failed.leaf)).toEqual(fault.snapshot.messages);

    // The next submit compacts this time and settles.
    const snapshot = await agent.submit('Please continue.');
    expect(snapshot).toMatchObject({ status: 'settled', text: 'Finished reading.' });
    expect(snapshot.messages[0].blocks[0]).toEqual({ kind: 'text', text: `${COMPACTION_PREFIX}\n${SUMMARY}` });
    expect(server.requests.filter(isSummarizerRequest)).toHaveLength(2);
    await agent.close();

    const after = await storedSession(dir.path, 'doc');
    expect(contentOf(after.path)).toEqual([PROMPT, ...pairs, 'Please continue.', `${COMPACTION_PREFIX}\n${SUMMARY}`, 'Finished reading.']);
  });
});
