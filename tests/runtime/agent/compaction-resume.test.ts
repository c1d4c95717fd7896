// Resuming a compacted session in a NEW process rebuilds the compacted context from the session file
// without asking the model to summarize again; resumed with a smaller window, the session is over the
// limit and compacts on its next submit, carrying the stored summary forward.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../../src/entries/runtime.js';
import type { RunEvent, RunSnapshot } from '../../../src/entries/runtime.js';
import { runJsonChild } from '../../support/child-process.js';
import { serverAndDirPerTest, type TempDir } from '../../support/server-and-dir.js';
import { reply, type AnthropicTestServer } from '../../../src/testing/index.js';
import {
  COMPACTION_PREFIX,
  compactedEvents,
  fakeModel,
  firstText,
  isSummarizerRequest,
  promptTokens,
  readChunkTool,
  record,
  storedSession,
  tempDir,
} from './compaction-helpers.js';

const fixture = fileURLToPath(new URL('./fixtures/resume-process.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

const FIRST = 'Goal: read the document. Progress: chunks read so far describe a fox. Identifiers: marker ALPHA-7731.';
const SECOND = 'Goal: read the document. Done: it describes a fox. Identifiers: marker ALPHA-7731.';
const settings = { contextWindow: 6_000, maxOutputTokens: 500, keepRecent: 4, chunkChars: 1_200 };

type ChildResult = {
  resumed: RunSnapshot;
  snapshot: RunSnapshot;
  compacted: Extract<RunEvent, { kind: 'compacted' }>[];
  error?: { kind: string; message: string };
};

/** Resumes the session and submits `prompt` in a fresh Node process (spawned async, so this process's server answers it). */
function inChild(args: Record<string, unknown>): Promise<ChildResult> {
  return runJsonChild<ChildResult>(fixture, args, { cwd: repoRoot });
}

let server: AnthropicTestServer;
let dir: TempDir;
serverAndDirPerTest(tempDir, (s, d) => ((server = s), (dir = d)));

/** A long tool loop in this process that compacts once, leaving a compacted session on disk. */
async function compactedSession(): Promise<RunSnapshot> {
  fakeModel(server, {
    agent: (_body, n) =>
      n < 16 ? reply.tools([{ name: 'read_chunk', input: { n }, id: `toolu_${n}` }]) : reply.text('The document is about a fox.'),
    summarize: () => reply.text(FIRST),
  });
  const agent = createAgent(
    {
      model: 'claude-test',
      sessionId: 'doc',
      ...settings,
      compaction: { keepRecent: settings.keepRecent },
      tools: [readChunkTool(() => settings.chunkChars)],
    },
    { client: server.client(), store: new SessionStore(dir.path) },
  );
  const snapshot = await agent.submit('Read the whole document, chunk by chunk.');
  await agent.close();
  expect(server.requests.filter(isSummarizerRequest)).toHaveLength(1);
  expect(snapshot.messages[0].blocks[0]).toEqual({ kind: 'text', text: `${COMPACTION_PREFIX}\n${FIRST}` });
  return snapshot;
}

describe('resuming a compacted session in a new process', () => {
  it('a new process sends the stored summary first without a summarizer call; with a smaller window, the next submit compacts', async () => {
    const compacted = await compactedSession();
    const child = { storeDir: dir.path, sessionId: 'doc', baseURL: server.baseURL, ...settings };
    fakeModel(server, { agent: () => reply.text('It is about a fox.'), summarize: () => reply.text(SECOND) });

    // Same window: the rebuilt context fits, so the first request is the conversation, summary first.
    let before = server.requests.length;
    const same = await inChild({ ...child, prompt: 'What was the document about?' });
    expect(same.error).toBeUndefined();
    expect(same.resumed.messages).toEqual(compacted.messages);
    const sent = server.requests.slice(before);
    expect(sent.filter(isSummarizerRequest)).toHaveLength(0);
    expect(sent).toHaveLength(1);
    expect(firstText(sent[0].body.messages[0])).toBe(`${COMPACTION_PREFIX}\n${FIRST}`);
    expect(sent[0].body.messages).toHaveLength(compacted.messages.length + 1);
    expect(firstText(sent[0].body.messages.at(-1))).toBe('What was the document about?');
    expect(same.compacted).toEqual([]);
    expect(same.snapshot).toMatchObject({ status: 'settled', text: 'It is about a fox.' });

    // Resumed (here in this process) with a window a third the size: the same context is over the
    // limit, so the next submit compacts before its call, carrying the stored summary forward.
    before = server.requests.length;
    const agent = createAgent(
      {
        model: 'claude-test',
        sessionId: 'doc',
        ...settings,
        contextWindow: 2_000,
        compaction: { keepRecent: settings.keepRecent },
        tools: [readChunkTool(() => settings.chunkChars)],
      },
      { client: server.client(), store: new SessionStore(dir.path) },
    );
    const events = record(agent);
    expect((await agent.resume('doc')).messages).toEqual(same.snapshot.messages);
    const smaller = await agent.submit('Remind me of the marker.');
    await agent.close();
    const next = server.requests.slice(before);
    expect(next.map(isSummarizerRequest)).toEqual([true, false]);
    expect(firstText(next[0].body.messages[0])).toContain(`<previous-summary>\n${FIRST}\n</previous-summary>`);
    expect(firstText(next[1].body.messages[0])).toBe(`${COMPACTION_PREFIX}\n${SECOND}`);
    expect(promptTokens(next[1].body) + next[1].body.max_tokens).toBeLessThanOrEqual(2_000);
    expect(compactedEvents(events).map((e) => e.summary)).toEqual([SECOND]);
    expect(smaller.messages[0].blocks[0]).toEqual({ kind: 'text', text: `${COMPACTION_PREFIX}\n${SECOND}` });

    // On disk: both summaries, the second under the prompt it was made for; the whole history kept.
    const { graph, leaf, path, summaries } = await storedSession(dir.path, 'doc');
    expect(summaries.map((n) => n.turn.blocks[0])).toEqual([
      { kind: 'text', text: `${COMPACTION_PREFIX}\n${FIRST}` },
      { kind: 'text', text: `${COMPACTION_PREFIX}\n${SECOND}` },
    ]);
    expect(graph.node(summaries[1].parent!)!.turn.blocks).toEqual([{ kind: 'text', text: 'Remind me of the marker.' }]);
    expect(graph.resume(leaf)).toEqual(smaller.messages);
    expect(path.filter((t) => t.blocks[0].kind === 'tool_call')).toHaveLength(16);
  });
});
