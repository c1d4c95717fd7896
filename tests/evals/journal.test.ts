// Durable evaluations: an evaluation killed halfway (SIGKILL, a real process) resumes from its journal,
// and no case is run or billed twice; a case cut off mid-run goes on from its stored session.
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFixture, startLines } from '../support/child-process.js';
import { EvalJournalError, EvalOptionsError, evaluate, type EvalResult } from '../../src/evals/index.js';
import { loadSession } from '../../src/runtime/store/index.js';
import { SessionStore } from '../../src/runtime/store/index.js';
import { agentConfig, definition, scriptedModel } from './scripted.js';

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-eval-journal-'));
  bundle = await bundleFixture(new URL('./fixtures/journal-process.ts', import.meta.url), dir);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '');

describe('evaluate with a journal', () => {
  it('killed halfway, resumes where it stopped: every case runs and is billed once, the cut-off case goes on from its session', async () => {
    const args = { storeDir: join(dir, 'kill/sessions'), journal: join(dir, 'kill/sums.journal'), billed: join(dir, 'kill/billed.log') };
    // Two cases at once: once c6 and c7 both wait on the model and c1 to c5 are reported done (a case
    // is reported only once its journal line is on disk), c1 to c5 are journaled.
    const first = startLines(bundle, { ...args, hangFrom: 6 });
    await Promise.all([
      first.waitFor(/^hanging c6$/),
      first.waitFor(/^hanging c7$/),
      ...[1, 2, 3, 4, 5].map((n) => first.waitFor(new RegExp(`^done c${n}$`))),
    ]);
    first.process.kill('SIGKILL');
    expect(await first.exited).toBe(null);
    const before = lines(args.journal).length - 1;
    expect(before).toBe(5);

    const second = startLines(bundle, args);
    const printed = await second.waitFor(/^result /);
    expect(await second.exited).toBe(0);
    const result = JSON.parse(printed.slice('result '.length)) as EvalResult;

    expect(result.status).toBe('done');
    expect(result.cases.map((c) => [c.id, c.status, c.output])).toEqual(
      Array.from({ length: 10 }, (_, i) => [`c${i + 1}`, 'settled', `It is ${2 * (i + 1)}.`]),
    );
    expect(result.summary.scorers.map((s) => s.passRate)).toEqual([1, 1]);
    // The second process ran only what the first had not finished.
    expect(second.lines.filter((line) => line.startsWith('done ')).length).toBe(10 - before);
    // Billed once each: the first call of every case and its answer; c6's and c7's tool calls were stored before the kill.
    const billed = lines(args.billed);
    expect([...billed].sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => [`c${i + 1} answer`, `c${i + 1} call`])
        .flat()
        .sort(),
    );
    // One line per case in the journal, after its header.
    const journal = lines(args.journal).map((line) => JSON.parse(line));
    expect(journal[0]).toMatchObject({ kind: 'evaluation', name: 'sums', runId: result.runId });
    expect(
      journal
        .slice(1)
        .map((line) => line.result.id)
        .sort(),
    ).toEqual(result.cases.map((c) => c.id).sort());
    // The cut-off case: one session, one prompt in it, its trajectory whole.
    const c6 = result.cases[5];
    expect(c6.sessionId).toBe(`sums-${result.runId}-c6`);
    expect(c6.trajectory).toEqual([{ name: 'calculator', callId: 'call_c6', input: { a: 6, b: 6 }, result: '12', isError: false }]);
    expect(c6.usage.inputTokens).toBe(200);
    // Its cost counts the attempt the kill cut off too (its tool call), as every case's: two calls at
    // claude-haiku-5-5's $1 / $5 per million.
    for (const c of result.cases) expect(c.costUsd).toBeCloseTo((2 * (100 * 1 + 20 * 5)) / 1e6, 12);
    const graph = await loadSession(new SessionStore(args.storeDir), c6.sessionId);
    const prompts = graph.nodesTo(graph.leaf!).filter((n) => n.turn.role === 'user' && n.turn.blocks.some((b) => b.kind === 'text'));
    expect(prompts).toHaveLength(1);
  });

  it("refuses another evaluation's journal, a journal naming cases the data lacks, and a journal without a store", async () => {
    const store = new SessionStore(join(dir, 'refuse/sessions'));
    const agent = definition(agentConfig(), { invokeModel: scriptedModel(), store });
    const journal = join(dir, 'refuse/a.journal');
    const first = await evaluate({ name: 'a', agent, store, journal, data: [{ id: 'x', input: 'hello' }], scorers: [] });
    expect(first.cases[0].output).toBe('echo: hello');
    await expect(evaluate({ name: 'b', agent, store, journal, data: [{ id: 'x', input: 'hello' }], scorers: [] })).rejects.toSatisfy(
      (e) => EvalJournalError.isInstance(e) && /journal of evaluation "a"/.test((e as Error).message),
    );
    await expect(evaluate({ name: 'a', agent, store, journal, data: [{ id: 'y', input: 'hello' }], scorers: [] })).rejects.toSatisfy(
      (e) => EvalJournalError.isInstance(e) && /case "x" is not in the data/.test((e as Error).message),
    );
    await expect(evaluate({ name: 'a', agent, journal, data: [{ id: 'x', input: 'hello' }], scorers: [] })).rejects.toBeInstanceOf(
      EvalOptionsError,
    );
  });

  it('reports a case done only once its line is in the journal, and writes each case once with cases at once', async () => {
    const store = new SessionStore(join(dir, 'once/sessions'));
    const agent = definition(agentConfig(), { invokeModel: scriptedModel(), store });
    const journal = join(dir, 'once/o.journal');
    const data = Array.from({ length: 9 }, (_, i) => ({ id: `q${i}`, input: i % 2 === 0 ? `add ${i} and 1` : `hello ${i}` }));
    const seenInJournal: boolean[] = [];
    const result = await evaluate({
      name: 'o',
      agent,
      store,
      journal,
      data,
      scorers: [],
      concurrency: 3,
      onProgress: ({ last }) => seenInJournal.push(lines(journal).some((line) => JSON.parse(line).result?.id === last.id)),
    });
    expect(result.cases.map((c) => c.status)).toEqual(data.map(() => 'settled'));
    expect(seenInJournal).toEqual(data.map(() => true));
    const ids = lines(journal)
      .slice(1)
      .map((line) => JSON.parse(line).result.id as string);
    expect(ids.sort()).toEqual(data.map((c) => c.id).sort());
  });

  it('a torn last line (a kill mid-append) is cut off, and the evaluation goes on from the whole lines', async () => {
    const store = new SessionStore(join(dir, 'torn/sessions'));
    const model = scriptedModel();
    const agent = definition(agentConfig(), { invokeModel: model, store });
    const journal = join(dir, 'torn/t.journal');
    const data = [
      { id: 'one', input: 'hello' },
      { id: 'two', input: 'there' },
    ];
    const first = await evaluate({ name: 't', agent, store, journal, data, scorers: [], concurrency: 1 });
    const text = await readFile(journal, 'utf8');
    // Keep the header and case one, and half of case two's line.
    const [header, one, two] = text.split('\n');
    await writeFile(journal, `${header}\n${one}\n${two.slice(0, 40)}`);
    const calls = model.calls;
    const again = await evaluate({ name: 't', agent, store, journal, data, scorers: [], concurrency: 1 });
    expect(again.runId).toBe(first.runId);
    expect(again.cases.map((c) => c.output)).toEqual(['echo: hello', 'echo: there']);
    // Case two's session held its answer already: it settles from the session, with no new model call.
    expect(model.calls).toBe(calls);
    expect(lines(journal)).toHaveLength(3);
  });
});
