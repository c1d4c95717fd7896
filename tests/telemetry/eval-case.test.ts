// Every evaluation case is a span: evaluate({ telemetry }) runs each case inside an evaluate_case span,
// recorded by the real OpenTelemetry SDK in memory, with the traced agent's runs nested under it.
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { contains, evaluate } from '../../src/evals/index.js';
import { createTelemetry } from '../../src/telemetry/index.js';
import { agentConfig, definition, scratchStore, scriptedModel } from '../evals/scripted.js';
import { spanTrees, startOtel, type Otel } from './otel-sdk.js';

let otel: Otel;
beforeAll(() => void (otel = startOtel()));
afterAll(() => otel.shutdown());
beforeEach(() => otel.reset());
let cleanup: (() => Promise<void>) | undefined;
afterEach(() => cleanup?.());

describe('an evaluation with telemetry', () => {
  it('is one evaluate_case span per case, with its status and scores, over the runs of the case', async () => {
    const scratch = await scratchStore();
    cleanup = scratch.cleanup;
    const telemetry = createTelemetry({ tracer: otel.tracer });
    const agent = definition(agentConfig(), { invokeModel: scriptedModel(), store: scratch.store, telemetry });
    const result = await evaluate({
      name: 'traced',
      agent,
      store: scratch.store,
      telemetry,
      concurrency: 2,
      data: [
        { id: 'sum', input: 'Please add 2 and 40', expected: '42' },
        { id: 'hello', input: 'hello there', expected: 'goodbye' },
        { id: 'broken', input: 'fail now' },
      ],
      scorers: [contains()],
    });
    const cases = spanTrees(otel.spans()).filter((node) => node.span.name === 'evaluate_case traced');
    expect(cases.map((node) => node.span.attributes['indusagi.eval.case_id']).sort()).toEqual(['broken', 'hello', 'sum']);
    for (const node of cases) {
      const c = result.cases.find((x) => x.id === node.span.attributes['indusagi.eval.case_id'])!;
      expect(node.span.attributes).toMatchObject({
        'gen_ai.operation.name': 'evaluate_case',
        'indusagi.eval.name': 'traced',
        'indusagi.eval.run_id': result.runId,
        'gen_ai.conversation.id': c.sessionId,
        'indusagi.eval.case_status': c.status,
        'indusagi.eval.score.contains': c.scores[0].score,
      });
      // The case's agent run is under its case, in the case's session.
      const runs = node.children.filter((child) => child.span.name.startsWith('invoke_agent'));
      expect(runs).toHaveLength(1);
      expect(runs[0].span.attributes['gen_ai.conversation.id']).toBe(c.sessionId);
    }
    const byId = (id: string) => cases.find((node) => node.span.attributes['indusagi.eval.case_id'] === id)!.span;
    expect(byId('sum').status.code).not.toBe(SpanStatusCode.ERROR);
    expect(byId('hello').attributes['indusagi.eval.score.contains']).toBe(0);
    expect(byId('broken').attributes['indusagi.eval.case_status']).toBe('faulted');
    expect(byId('broken').status.code).toBe(SpanStatusCode.ERROR);
  });
});
