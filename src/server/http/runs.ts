import { EventsExpiredError, InputNotPendingError, NotFoundError, ServerRequestError } from '../errors.js';
import { checkAnswer } from '../runs/inputs.js';
import type { Decision, Principal, RunInput, RunRecord } from '../types.js';
import { afterIdOf, json, limitOf, ownedThread, runView, threadIdOf, type RouteContext, type RouteDeps, type RouteSpec } from './route.js';
import { runEventsFormat, SSE_HEADERS, streamRun } from './sse.js';
import { queueOptions } from './threads.js';
import { waitForEnd } from './wait.js';

type RunBody = { prompt?: string; decisions?: Decision[]; continue?: true };

const started = {
  '404': { description: 'No such thread.', schema: 'Error' },
  '409': { description: 'The thread runs something already, or a decision names a call that is not waiting.', schema: 'Error' },
  '429': { description: 'The tenant has as many runs queued or running as the server takes (`retry-after`).', schema: 'Error' },
} as const;

/** The run routes: start (in the background, waiting, streaming), list, get, stream, wait, cancel, answer a tool's question. */
export function runRoutes(deps: RouteDeps): RouteSpec[] {
  const { backend } = deps;
  const start = async ({ principal, params, body }: RouteContext): Promise<RunRecord> => {
    const threadId = threadIdOf(params.threadId);
    return backend.createRun(principal, threadId, inputOf(body as RunBody, deps.limits.maxPromptChars), queueOptions(deps, false));
  };
  const owned = async (principal: Principal, runId: string | undefined): Promise<RunRecord> => {
    const run = runId === undefined ? undefined : await backend.getRun(principal.tenant, runId);
    if (run === undefined) throw new NotFoundError('run', runId ?? '');
    return run;
  };
  // A run as the API shows it, with the questions its tools wait on (read only while it runs).
  const view = async (run: RunRecord) => ({
    ...runView(run),
    pendingInputs: run.status === 'running' ? await backend.pendingInputs(run.id) : [],
  });
  const stream = (run: RunRecord, afterId: number, status = 200): Response => {
    if (run.eventsExpired) throw new EventsExpiredError(run.id);
    const body = streamRun(backend.tails, run.id, afterId, runEventsFormat, deps.keepAliveMs);
    return new Response(body, { status, headers: { ...SSE_HEADERS, 'x-run-id': run.id, 'content-location': `/runs/${run.id}` } });
  };
  const waited = async (principal: Principal, run: RunRecord, request: Request): Promise<Response> => {
    await waitForEnd(backend.tails, run.id, request.signal, deps.keepAliveMs);
    return json(await view((await backend.getRun(principal.tenant, run.id)) ?? run));
  };
  return [
    {
      method: 'post',
      path: '/threads/{threadId}/runs',
      operationId: 'createRun',
      tag: 'runs',
      summary: 'Start a run in the background',
      description: 'Queues the run and answers at once; a worker executes it. Follow it with GET /runs/{runId}/stream or /wait.',
      body: 'RunCreate',
      responses: { '202': { description: 'The queued run.', schema: 'Run' }, ...started },
      async handle(context) {
        const run = await start(context);
        return json(await view(run), 202, { location: `/runs/${run.id}` });
      },
    },
    {
      method: 'post',
      path: '/threads/{threadId}/runs/wait',
      operationId: 'createRunAndWait',
      tag: 'runs',
      summary: 'Start a run and answer when it ends',
      description: 'Leaving early does not stop the run: it goes on in the background.',
      body: 'RunCreate',
      responses: { '200': { description: 'The run, ended (settled, waiting, faulted or canceled).', schema: 'Run' }, ...started },
      async handle(context) {
        return waited(context.principal, await start(context), context.request);
      },
    },
    {
      method: 'post',
      path: '/threads/{threadId}/runs/stream',
      operationId: 'createRunAndStream',
      tag: 'runs',
      summary: 'Start a run and stream its events (SSE)',
      description:
        'The stream is the one GET /runs/{runId}/stream gives (its id is in `x-run-id`): leaving early does not stop the run, and reconnecting there with `Last-Event-ID` resumes it.',
      body: 'RunCreate',
      responses: { '200': { description: "The run's events.", schema: 'RunEvent', stream: 'sse' }, ...started },
      async handle(context) {
        return stream(await start(context), 0);
      },
    },
    {
      method: 'get',
      path: '/threads/{threadId}/runs',
      operationId: 'listRuns',
      tag: 'runs',
      summary: "The thread's runs, newest first",
      params: [{ name: 'limit', in: 'query', description: 'At most this many (1-100, default 20).', schema: { type: 'integer' } }],
      responses: { '200': { description: 'The runs.', schema: 'RunList' }, '404': { description: 'No such thread.', schema: 'Error' } },
      async handle({ principal, params, query }) {
        const thread = await ownedThread(backend, principal.tenant, params.threadId);
        return json({ runs: await Promise.all((await backend.listRuns(principal.tenant, thread.id, limitOf(query))).map(view)) });
      },
    },
    {
      method: 'get',
      path: '/runs/{runId}',
      operationId: 'getRun',
      tag: 'runs',
      summary: 'A run: its status, the questions its tools wait on, and its result or error once it ended',
      responses: {
        '200': { description: 'The run.', schema: 'Run' },
        '404': { description: 'No such run for this tenant.', schema: 'Error' },
      },
      async handle({ principal, params }) {
        return json(await view(await owned(principal, params.runId)));
      },
    },
    {
      method: 'get',
      path: '/runs/{runId}/stream',
      operationId: 'streamRun',
      tag: 'runs',
      summary: "The run's events (SSE), from the start or after Last-Event-ID",
      description:
        'Any server instance serves any run: the events stored so far (text deltas coalesced), then the live ones, then the stream ends after the terminal event. A finished run replays for the retention period.',
      params: [
        {
          name: 'Last-Event-ID',
          in: 'header',
          description: 'Resume after this event id (EventSource sends it when it reconnects).',
          schema: { type: 'integer' },
        },
        {
          name: 'after',
          in: 'query',
          description: 'The same as Last-Event-ID, for clients that cannot set headers.',
          schema: { type: 'integer' },
        },
      ],
      responses: {
        '200': { description: 'The events.', schema: 'RunEvent', stream: 'sse' },
        '404': { description: 'No such run.', schema: 'Error' },
        '410': { description: 'The run ended longer ago than the retention period.', schema: 'Error' },
      },
      async handle({ principal, params, request, query }) {
        const afterId = afterIdOf(request, query);
        return stream(await owned(principal, params.runId), afterId);
      },
    },
    {
      method: 'get',
      path: '/runs/{runId}/wait',
      operationId: 'waitRun',
      tag: 'runs',
      summary: 'Answer when the run has ended',
      responses: { '200': { description: 'The run, ended.', schema: 'Run' }, '404': { description: 'No such run.', schema: 'Error' } },
      async handle({ principal, params, request }) {
        const run = await owned(principal, params.runId);
        return run.finishedAt !== null ? json(await view(run)) : waited(principal, run, request);
      },
    },
    {
      method: 'post',
      path: '/runs/{runId}/cancel',
      operationId: 'cancelRun',
      tag: 'runs',
      summary: 'Cancel a run, on whichever worker runs it',
      description:
        'A queued run ends `canceled` at once. A running one is aborted on its worker (the tool calls in flight see their signal, every call without a result is answered as aborted, nothing settled is lost) and ends `canceled`. An ended run stays as it is.',
      responses: {
        '202': { description: 'The run, as it stands after the request.', schema: 'Run' },
        '404': { description: 'No such run.', schema: 'Error' },
      },
      async handle({ principal, params }) {
        if (params.runId === undefined) throw new NotFoundError('run', '');
        return json(await view(await backend.cancelRun(principal.tenant, params.runId)), 202);
      },
    },
    {
      method: 'post',
      path: '/runs/{runId}/inputs/{requestId}',
      operationId: 'answerInput',
      tag: 'runs',
      summary: "Answer a question a run's tool asks (`input_requested`), on whichever worker runs it",
      description:
        "The question is in the run's `pendingInputs` and its stream (`input_requested`: `requestId`, `message`, `schema`). An `accept` carries `content` matching the question's schema; `decline` and `cancel` carry nothing. The answer is checked here and kept for the worker executing the run (one answer per question: a second is refused, even before the tool took the first); the run's `input_answered` event says the tool got it. Any server instance takes it.",
      body: 'InputAnswer',
      responses: {
        '202': { description: 'Kept for the worker executing the run, which is woken to take it.', schema: 'InputAnswered' },
        '400': {
          description: 'The answer does not fit the question (`invalid_answer`, with its `issues`); the tool goes on waiting.',
          schema: 'Error',
        },
        '404': { description: 'No such run for this tenant.', schema: 'Error' },
        '409': {
          description: 'The run is not waiting on this question (answered already, ended, or taken over by another worker).',
          schema: 'Error',
        },
      },
      async handle({ principal, params, body }) {
        const run = await owned(principal, params.runId);
        const requestId = params.requestId ?? '';
        const request =
          run.status === 'running' ? (await backend.pendingInputs(run.id)).find((pending) => pending.requestId === requestId) : undefined;
        if (request === undefined) throw new InputNotPendingError(run.id, requestId);
        const answer = await checkAnswer(request, body as { action: string; content?: unknown });
        if (!(await backend.answerInput(principal.tenant, run.id, { runId: run.id, requestId, answer })))
          throw new InputNotPendingError(run.id, requestId);
        return json({ runId: run.id, requestId, action: answer.action }, 202);
      },
    },
  ];
}

/** What a run body asks for; the schema has checked its shape already. */
export function inputOf(body: RunBody, maxPromptChars: number): RunInput {
  if (body.prompt !== undefined) {
    if (body.prompt.trim() === '') throw new ServerRequestError('The prompt is empty.');
    if (body.prompt.length > maxPromptChars)
      throw new ServerRequestError(`The prompt is longer than this server's limit of ${maxPromptChars} characters.`);
    return { kind: 'prompt', prompt: body.prompt };
  }
  if (body.decisions !== undefined) {
    const ids = new Set(body.decisions.map((d) => d.approvalId));
    if (ids.size !== body.decisions.length) throw new ServerRequestError('Two decisions name the same call.');
    return { kind: 'decisions', decisions: body.decisions };
  }
  return { kind: 'continue' };
}
