import type { RunEvent } from '../../runtime/contract/events.js';
import { ChunkTranslator, type UIMessageChunk } from '../../ui-message/chunks.js';
import { readChatRequest } from '../../ui-message/request.js';
import { loadReportProblems } from '../../runtime/store/index.js';
import { loadSessionWithReport } from '../../runtime/store/load-session.js';
import { uiMessagesFromTurns, type UIMessage, type UIMessagePart } from '../../ui-message/messages.js';
import { withAgentParts } from '../../ui-message/agent-history.js';
import { UI_MESSAGE_STREAM_HEADERS } from '../../ui-message/stream.js';
import { ApprovalNotPendingError, ServerRequestError } from '../errors.js';
import type { RunInput, RunRecord, StoredEvent, ThreadRecord } from '../types.js';
import { editFrom, regenerateFrom, threadMessagesOf, versionEnd, type ThreadMessage } from './chat-thread.js';
import { json, liveMessages, ownedThread, threadIdOf, type RouteDeps, type RouteSpec } from './route.js';
import { streamRun, type StreamFormat } from './sse.js';
import { forkThread, queueOptions } from './threads.js';
import { inputOf } from './runs.js';
import { endedEvents } from './wait.js';

/**
 * The AI SDK UI message stream routes, so a `useChat` page is a client: its chat id is the thread id
 * (the thread is made on its first message). `POST /chat` starts a run and streams it; with
 * `resume: true`, `GET /chat/{id}/stream` replays the thread's run in progress from its start (what
 * `useChat` expects of a resumed stream) and follows it live, from any server instance; `GET
 * /chat/{id}/messages` gives the thread for `useChat`'s initial `messages`. The thread is a tree: a
 * regenerate or an edit branches it, and `POST /chat/{id}/version` shows another branch.
 */
export function chatRoutes(deps: RouteDeps): RouteSpec[] {
  const { backend } = deps;
  const respond = (run: RunRecord, continued?: UIMessage): Response =>
    new Response(streamRun(backend.tails, run.id, 0, uiFormat(run, continued), deps.keepAliveMs), {
      headers: { ...UI_MESSAGE_STREAM_HEADERS, 'x-run-id': run.id },
    });
  const wholeGraph = async (thread: ThreadRecord) => (await loaded(thread)).graph;
  // Every branch (a message's versions are siblings), with what the store could not read back.
  // A sub-agent's work lives in its own session (of the same tenant): rebuilt, a reload shows its card as it was live.
  const agentParts = <M extends UIMessage>(thread: ThreadRecord, messages: M[]) =>
    withAgentParts(messages, deps.sessions(thread.tenant), thread.id);
  const loaded = (thread: ThreadRecord) => loadSessionWithReport(deps.sessions(thread.tenant), thread.id, { whole: true });
  /**
   * The thread's messages with the reply a canceled run was streaming when it stopped: the conductor
   * keeps no half turn, so the text of the run's last step is read back from its events (while they
   * are kept) and shown after the thread, marked `stopped`, until another run follows it.
   */
  const withStopped = async (thread: ThreadRecord, messages: ThreadMessage[], signal: AbortSignal): Promise<ThreadMessage[]> => {
    const [last] = await backend.listRuns(thread.tenant, thread.id, 1);
    if (last === undefined || last.status !== 'canceled' || last.eventsExpired || last.input.kind === 'fork') return messages;
    let text = '';
    for (const { event } of await endedEvents(backend.tails, last.id, signal, deps.keepAliveMs)) {
      if (event.kind === 'text_delta') text += event.delta;
      else if (event.kind.startsWith('tool_') || event.kind === 'approval_requested') text = '';
    }
    if (text === '') return messages;
    const part = { type: 'text' as const, text, state: 'done' as const };
    const end = messages.at(-1);
    if (end?.role === 'assistant')
      return [...messages.slice(0, -1), { ...end, parts: [...end.parts, part], metadata: { ...end.metadata, stopped: true } }];
    return [...messages, { id: `${last.id}-stopped`, role: 'assistant', parts: [part], metadata: { stopped: true } }];
  };
  return [
    {
      method: 'post',
      path: '/chat',
      operationId: 'chat',
      tag: 'chat',
      summary: "useChat's request: a prompt, or decisions on waiting calls, streamed as a UI message stream",
      description:
        "The body `useChat`'s default transport posts (`{ id, messages }`); only the last message is read. Leaving does not stop the run: `resume` picks it up.",
      body: 'ChatRequest',
      responses: {
        '200': { description: 'The run as a UI message stream (SSE, `x-vercel-ai-ui-message-stream: v1`).', stream: 'ui-message' },
        '409': { description: 'The thread runs something already.', schema: 'Error' },
      },
      async handle({ principal, body, request: { signal } }) {
        // A body useChat would not send is a ChatRequestError, which the app answers 400 like any bad input.
        const request = readChatRequest(body);
        const threadId = threadIdOf(request.chatId);
        // A regenerate or an edit keeps what it replaces: the thread's leaf moves back first (a fork run,
        // so the session tree gains a branch), then the prompt is answered again, or the edit sent, there.
        if (request.kind === 'prompt' && (request.trigger === 'regenerate-message' || request.messageId !== undefined)) {
          const graph = await wholeGraph(await ownedThread(backend, principal.tenant, threadId));
          const regenerate = request.trigger === 'regenerate-message';
          const from = regenerate ? regenerateFrom(graph, request.messageId) : editFrom(graph, request.messageId!);
          await forkThread(deps, principal, threadId, from, signal);
          const input: RunInput = regenerate ? { kind: 'continue' } : inputOf({ prompt: request.text }, deps.limits.maxPromptChars);
          return respond(await backend.createRun(principal, threadId, input, queueOptions(deps, false)));
        }
        if (request.kind === 'continue') throw new ServerRequestError('A useChat request is a prompt or decisions.');
        if (request.kind === 'prompt') {
          const input = inputOf({ prompt: request.text }, deps.limits.maxPromptChars);
          return respond(await backend.createRun(principal, threadId, input, queueOptions(deps, true)));
        }
        // Decisions answer calls a thread waits on: a thread that does not exist waits on none, and a
        // refused request must not leave an empty thread behind (it would be the tenant's newest).
        if ((await backend.getThread(principal.tenant, threadId)) === undefined)
          throw new ApprovalNotPendingError(threadId, request.decisions[0]?.approvalId ?? '');
        const input = inputOf({ decisions: request.decisions }, deps.limits.maxPromptChars);
        return respond(await backend.createRun(principal, threadId, input, queueOptions(deps, false)));
      },
    },
    {
      method: 'get',
      path: '/chat/{threadId}/stream',
      operationId: 'resumeChat',
      tag: 'chat',
      summary: "useChat's resume: the thread's run in progress, replayed from its start, then live",
      responses: {
        '200': { description: 'The run as a UI message stream.', stream: 'ui-message' },
        '204': { description: 'Nothing is running on the thread (or there is no such thread yet).' },
      },
      async handle({ principal, params }) {
        const thread = await backend.getThread(principal.tenant, threadIdOf(params.threadId));
        const run = thread?.activeRunId == null ? undefined : await backend.getRun(principal.tenant, thread.activeRunId);
        if (thread === undefined || run === undefined) return new Response(null, { status: 204 });
        if (run.input.kind !== 'decisions') return respond(run);
        // A continuation: the page's message is rebuilt first, as it stood when the decisions were made.
        const before = await agentParts(
          thread,
          uiMessagesFromTurns({
            messages: (await liveMessages(deps, thread)).slice(0, run.base.length),
            pendingApprovals: thread.pendingApprovals,
          }),
        );
        const continued = before.findLast((message) => message.role === 'assistant');
        return respond(run, continued);
      },
    },
    {
      method: 'get',
      path: '/chat/{threadId}/messages',
      operationId: 'chatMessages',
      tag: 'chat',
      summary: "The thread as useChat's initial messages",
      description:
        "The live path of the thread's session tree. While a run is under way, the thread as it stood before it (with the run's prompt, and no node ids): the resumed stream brings the rest.",
      responses: {
        '200': {
          description:
            "`{ messages: UIMessage[], problems: string[] }` (empty for a thread that does not exist yet); `problems`: what the session store could not read back (a damaged line skipped, say). Between runs each message's id is the session node it starts at, and its `metadata` says so (`node`) and lists its other versions (`versions: { index, ids }`), what a regenerate, an edit or `POST /chat/{id}/version` names.",
        },
      },
      async handle({ principal, params, request }) {
        const thread = await backend.getThread(principal.tenant, threadIdOf(params.threadId));
        if (thread === undefined) return json({ messages: [], problems: [] });
        const run = thread.activeRunId === null ? undefined : await backend.getRun(principal.tenant, thread.activeRunId);
        if (run === undefined) {
          const { graph, report } = await loaded(thread);
          const messages = await withStopped(
            thread,
            await agentParts(thread, threadMessagesOf(graph, thread.pendingApprovals)),
            request.signal,
          );
          return json({ messages, problems: loadReportProblems(report) });
        }
        const turns = await liveMessages(deps, thread);
        const messages = await agentParts(
          thread,
          uiMessagesFromTurns({ messages: turns.slice(0, run.base.length), pendingApprovals: thread.pendingApprovals }),
        );
        if (run.input.kind === 'prompt') messages.push(promptMessage(run.id, run.input.prompt));
        return json({ messages, problems: [] });
      },
    },
    {
      method: 'post',
      path: '/chat/{threadId}/version',
      operationId: 'showChatVersion',
      tag: 'chat',
      summary: 'Show another version of a message',
      description:
        "Moves the thread's live leaf to the newest end of the branch that starts at `messageId` (one of a message's `metadata.versions.ids`), as a fork run on a worker, and answers the thread's messages as they now stand; the next prompt goes on from there.",
      body: 'ChatVersion',
      responses: {
        '200': { description: '`{ messages: UIMessage[], problems: string[] }`, as GET /chat/{id}/messages.' },
        '404': { description: 'No such thread, or no such message in it.', schema: 'Error' },
        '409': { description: 'The thread runs something.', schema: 'Error' },
      },
      async handle({ principal, params, body, request }) {
        const thread = await ownedThread(backend, principal.tenant, params.threadId);
        const threadId = thread.id;
        const { messageId } = body as { messageId: string };
        await forkThread(deps, principal, threadId, versionEnd(await wholeGraph(thread), messageId), request.signal);
        const moved = (await backend.getThread(principal.tenant, threadId)) ?? thread;
        // As GET /chat/{id}/messages answers: a page swaps its messages for these, problems and all.
        const { graph, report } = await loaded(moved);
        const messages = await agentParts(moved, threadMessagesOf(graph, moved.pendingApprovals));
        return json({ messages, problems: loadReportProblems(report) });
      },
    },
  ];
}

/**
 * The stream of a run in the UI message protocol. A prompt's reply is a new message named after the
 * run; decisions continue the page's last message, or, on a resume, `continued` drawn again first.
 */
function uiFormat(run: RunRecord, continued: UIMessage | undefined): StreamFormat {
  const decisions = run.input.kind === 'decisions' ? run.input.decisions : [];
  const prefix = continued === undefined ? [] : continued.parts.flatMap((part, i) => partChunks(part, `${continued.id}-${i}`));
  const known = [
    ...decisions.map((d) => d.approvalId),
    ...prefix.flatMap((c) => (c.type === 'tool-input-available' ? [c.toolCallId] : [])),
  ];
  const translator = new ChunkTranslator(
    run.id,
    known,
    decisions.filter((d) => !d.approved).map((d) => d.approvalId),
  );
  const opening: UIMessageChunk[] =
    continued === undefined
      ? translator.begin(run.input.kind !== 'decisions')
      : [{ type: 'start', messageId: continued.id }, { type: 'start-step' }, ...prefix];
  return {
    start: frames(opening),
    events(batch: readonly StoredEvent[]) {
      const chunks: UIMessageChunk[] = [];
      for (const { event } of batch) {
        if (event.kind === 'settled') chunks.push(...translator.end());
        else if (event.kind === 'faulted')
          chunks.push(...translator.end({ aborted: event.error.kind === 'aborted', message: event.error.message }));
        else if (event.kind !== 'run_taken_over') chunks.push(...translator.chunksOf(event as RunEvent));
      }
      return frames(chunks);
    },
    end: 'data: [DONE]\n\n',
  };
}

function frames(chunks: readonly UIMessageChunk[]): string {
  return chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('');
}

function partChunks(part: UIMessagePart, textId: string): UIMessageChunk[] {
  if (part.type === 'text')
    return [
      { type: 'text-start', id: textId },
      { type: 'text-delta', id: textId, delta: part.text },
      { type: 'text-end', id: textId },
    ];
  if (part.type === 'data-agent') return [part];
  const input: UIMessageChunk = {
    type: 'tool-input-available',
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    input: part.input,
    dynamic: true,
  };
  switch (part.state) {
    case 'approval-requested':
      return [input, { type: 'tool-approval-request', approvalId: part.approval.id, toolCallId: part.toolCallId }];
    case 'output-available':
      return [input, { type: 'tool-output-available', toolCallId: part.toolCallId, output: part.output, dynamic: true }];
    case 'output-error':
      return [input, { type: 'tool-output-error', toolCallId: part.toolCallId, errorText: part.errorText, dynamic: true }];
    default:
      return [input];
  }
}

function promptMessage(runId: string, prompt: string): UIMessage {
  return { id: `${runId}-prompt`, role: 'user', parts: [{ type: 'text', text: prompt, state: 'done' }] };
}
