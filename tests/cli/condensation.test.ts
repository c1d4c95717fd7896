import Anthropic from '@anthropic-ai/sdk';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatConfig } from '../../src/cli/chat/config.js';
import { openMemoryFile } from '../../src/cli/memory-file.js';
import { Workspace } from '../../src/cli/tools/index.js';
import { DEMO_MODEL_CARD, startDemoModel, type DemoModel } from '../../src/demo/index.js';
import { createAgent, SessionStore, type Agent, type RunEvent } from '../../src/entries/runtime.js';

let dir: string;
let demo: DemoModel;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-cli-condense-'));
  demo = await startDemoModel({ chunkDelayMs: 0 });
});
afterEach(async () => {
  await demo.close();
  await rm(dir, { recursive: true, force: true });
});

/** An agent made as the chat makes one over the offline demo model, on session `sessionId` of a store in `dir`. */
async function chatAgent(sessionId: string): Promise<{ agent: Agent; store: SessionStore }> {
  const demoModel = {
    model: DEMO_MODEL_CARD.id,
    contextWindow: DEMO_MODEL_CARD.contextWindow,
    maxOutputTokens: DEMO_MODEL_CARD.maxOutputTokens,
    offline: true,
  };
  const config = chatConfig(demoModel, await Workspace.open(dir), await openMemoryFile(join(dir, 'memory.jsonl')));
  const store = new SessionStore(join(dir, 'sessions'));
  const agent = createAgent({ ...config, sessionId }, { store, client: new Anthropic({ baseURL: demo.baseURL, apiKey: 'offline-demo' }) });
  return { agent, store };
}

describe('the chat configuration over the demo model', () => {
  it('condenses within a few turns of an ordinary demo conversation, and the chat goes on', async () => {
    const { agent, store } = await chatAgent('demo');
    const compactedAt: number[] = [];
    let turn = 0;
    agent.subscribe((event: RunEvent) => {
      if (event.kind === 'compacted') compactedAt.push(turn);
    });

    for (const prompt of ['list files', 'tell me a long story', 'tell me a long story', 'tell me a long story', 'what time is it?']) {
      turn++;
      const snapshot = await agent.submit(prompt);
      expect(snapshot.status).toBe('settled');
    }
    expect(compactedAt).toEqual([5]);
    await agent.close();

    const graph = await store.loadSession('demo');
    const context = graph.contextTo(graph.leaf!);
    expect(context[0].blocks[0]).toMatchObject({ kind: 'text', text: expect.stringContaining('Summary of the earlier conversation') });
  });

  it('never makes the context larger: /compact of a short chat changes nothing, a longer one shrinks it', async () => {
    const { agent, store } = await chatAgent('short');
    // What the demo model counted for each call: the size of the context as sent.
    const inputs: number[] = [];
    agent.subscribe((event: RunEvent) => {
      if (event.kind === 'usage' && event.usage.outputTokens > 0) inputs.push(event.usage.inputTokens);
    });
    for (const prompt of ['list files', 'what time is it?', 'help']) await agent.submit(prompt);
    const sizeBefore = (await store.loadSession('short')).size;

    // Five turns can go, but a summary of them (with its note on the history tools) is no smaller.
    expect((await agent.condense()).compacted).toBeNull();
    expect((await store.loadSession('short')).size).toBe(sizeBefore);

    // Two turns more, so the summary replaces more than the one reply the next call adds (help's is long).
    await agent.submit('list files');
    await agent.submit('help');
    const before = inputs.at(-1)!;
    const { compacted } = await agent.condense();
    expect(compacted).not.toBeNull();
    expect(compacted!.tokensAfter).toBeLessThan(compacted!.tokensBefore);
    expect(compacted!.summary.length).toBeLessThan(200);
    // The same prompt again, as the model counts the call: it sends less than before the summary.
    await agent.submit('help');
    expect(inputs.at(-1)!).toBeLessThan(before);
    await agent.close();
  });
});
