// The JSON Schemas of the server's bodies: request bodies are checked against them before a handler
// runs, and the OpenAPI document (GET /openapi.json) is built from the same objects, so the two cannot
// drift apart.

const id = { type: 'string', minLength: 1, maxLength: 200 } as const;
const object = { type: 'object' } as const;
const time = { type: 'string', format: 'date-time' } as const;
const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });

const Decision = {
  type: 'object',
  additionalProperties: false,
  required: ['approvalId', 'approved'],
  properties: {
    approvalId: { ...id, description: 'The call id (`pendingApprovals[].approvalId`).' },
    approved: { type: 'boolean' },
    reason: { type: 'string', maxLength: 2_000, description: 'Told to the model when the call is rejected.' },
  },
};

export const requestSchemas = {
  ThreadCreate: {
    type: 'object',
    additionalProperties: false,
    properties: {
      id: { ...id, description: 'The thread id (also its session id); a random UUID when absent.' },
      metadata: { ...object, description: 'Anything you want kept with the thread: at most 64 KiB as JSON, nested at most 32 levels.' },
    },
  },
  RunCreate: {
    type: 'object',
    additionalProperties: false,
    description: 'Exactly one of `prompt`, `decisions` or `continue`.',
    properties: {
      prompt: { type: 'string', minLength: 1, description: 'A new prompt for the thread.' },
      decisions: {
        type: 'array',
        minItems: 1,
        maxItems: 64,
        items: Decision,
        description: 'Decisions on calls waiting for approval, applied in order.',
      },
      continue: { const: true, description: 'Pick the thread up where it stands, without a new prompt.' },
    },
    oneOf: [{ required: ['prompt'] }, { required: ['decisions'] }, { required: ['continue'] }],
  },
  ThreadUpdate: {
    type: 'object',
    additionalProperties: false,
    required: ['metadata'],
    properties: {
      metadata: {
        ...object,
        description:
          'Keys to set (null: remove the key); the others stay as they are. The merged metadata is held to the same limits as on create (64 KiB as JSON, 32 levels).',
      },
    },
  },
  ChatVersion: {
    type: 'object',
    additionalProperties: false,
    required: ['messageId'],
    properties: { messageId: { ...id, description: "One of a message's `metadata.versions.ids` (from GET /chat/{id}/messages)." } },
  },
  ThreadFork: {
    type: 'object',
    additionalProperties: false,
    required: ['nodeId'],
    properties: { nodeId: { ...id, description: 'The node (from GET /threads/{id}/history) the next prompt branches from.' } },
  },
  MemoryEdit: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      text: { type: 'string', minLength: 1 },
      kind: nullable({ type: 'string' }),
      meta: nullable(object),
    },
  },
  InputAnswer: {
    type: 'object',
    additionalProperties: false,
    required: ['action'],
    properties: {
      action: {
        enum: ['accept', 'decline', 'cancel'],
        description: 'accept: here is the content; decline: the person said no; cancel: dismissed.',
      },
      content: { ...object, description: "With `accept`: the answer, matching the question's `schema`." },
    },
  },
  ChatRequest: {
    type: 'object',
    required: ['messages'],
    properties: {
      id: { ...id, description: 'The chat id: the thread it runs on (made on its first message).' },
      messages: { type: 'array', minItems: 1, description: "`useChat`'s messages; only the last one is read." },
    },
  },
} as const;

const PendingApproval = {
  type: 'object',
  required: ['approvalId', 'callId', 'name', 'input'],
  properties: { approvalId: { type: 'string' }, callId: { type: 'string' }, name: { type: 'string' }, input: {} },
};

const PendingInput = {
  type: 'object',
  description: "A question a run's tool asks the person (`ToolContext.ask`, an MCP server's elicitation).",
  required: ['requestId', 'callId', 'name', 'message', 'schema'],
  properties: {
    requestId: { type: 'string', description: 'What POST /runs/{runId}/inputs/{requestId} answers.' },
    callId: { type: 'string' },
    name: { type: 'string', description: 'The tool that asks.' },
    message: { type: 'string' },
    schema: { ...object, description: 'The JSON Schema of the content an `accept` carries.' },
    from: { type: 'string', description: 'Who asks (an MCP server).' },
    path: { type: 'array', items: { type: 'string' }, description: "A sub-agent's question: the agent tools it was asked under." },
  },
};

const Usage = {
  type: 'object',
  properties: {
    inputTokens: { type: 'integer' },
    outputTokens: { type: 'integer' },
    cacheWriteTokens: { type: 'integer' },
    cacheReadTokens: { type: 'integer' },
  },
};

const ErrorInfo = { type: 'object', required: ['kind', 'message'], properties: { kind: { type: 'string' }, message: { type: 'string' } } };

const Result = {
  type: 'object',
  required: ['status', 'text', 'pendingApprovals', 'usage'],
  properties: {
    status: { enum: ['settled', 'waiting', 'faulted', 'interrupted', 'running'] },
    text: { type: 'string', description: 'The final assistant text.' },
    pendingApprovals: { type: 'array', items: PendingApproval },
    usage: Usage,
    output: { description: 'The structured answer, when the agent asks for one.' },
  },
};

export const responseSchemas = {
  Error: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        ...ErrorInfo,
        description:
          'Switch on `kind`: bad_request, unauthorized, forbidden, not_found, thread_busy, thread_exists, approval_not_pending, approvals_pending, input_not_pending, invalid_answer, body_too_large, unsupported_media_type, events_expired, queue_full, internal.',
      },
    },
  },
  Thread: {
    type: 'object',
    required: ['id', 'status', 'createdAt', 'updatedAt', 'metadata', 'activeRunId', 'pendingApprovals'],
    properties: {
      id: { type: 'string' },
      status: { enum: ['idle', 'busy', 'waiting'], description: 'busy: a run is queued or running; waiting: calls wait for a decision.' },
      createdBy: { type: 'string' },
      metadata: object,
      createdAt: time,
      updatedAt: time,
      activeRunId: nullable({ type: 'string' }),
      pendingApprovals: { type: 'array', items: PendingApproval },
    },
  },
  ThreadState: {
    type: 'object',
    required: ['thread', 'messages'],
    properties: {
      thread: { $ref: '#/components/schemas/Thread' },
      messages: { type: 'array', items: object, description: 'The context as the model will next see it: `Turn`s (role, blocks).' },
    },
  },
  ThreadList: {
    type: 'object',
    required: ['threads'],
    properties: { threads: { type: 'array', items: { $ref: '#/components/schemas/Thread' } } },
  },
  ThreadHistory: {
    type: 'object',
    required: ['leaf', 'nodes'],
    properties: {
      leaf: nullable({ type: 'string' }),
      nodes: {
        type: 'array',
        description: 'Every node of every branch, parents before children: `{ id, parent, at, turn }`.',
        items: {
          type: 'object',
          required: ['id', 'parent', 'turn'],
          properties: { id: { type: 'string' }, parent: nullable({ type: 'string' }), at: { type: 'number' }, turn: object },
        },
      },
    },
  },
  Run: {
    type: 'object',
    required: ['id', 'threadId', 'status', 'input', 'attempt', 'createdAt', 'lastEventId', 'pendingInputs'],
    properties: {
      id: { type: 'string' },
      threadId: { type: 'string' },
      user: { type: 'string' },
      status: { enum: ['queued', 'running', 'settled', 'waiting', 'faulted', 'canceled'] },
      input: object,
      attempt: { type: 'integer', description: 'Executions so far; above 1 after a worker died and another took the run over.' },
      cancelRequested: { type: 'boolean' },
      error: nullable(ErrorInfo),
      result: nullable(Result),
      lastEventId: { type: 'integer', description: 'The id of the newest event of its stream.' },
      createdAt: time,
      startedAt: nullable(time),
      finishedAt: nullable(time),
      eventsExpired: { type: 'boolean', description: 'The stream is past the retention period and cannot be replayed.' },
      pendingInputs: {
        type: 'array',
        items: PendingInput,
        description:
          "The questions the run's tools wait on (empty unless it is running): answer each with POST /runs/{runId}/inputs/{requestId}.",
      },
    },
  },
  InputAnswered: {
    type: 'object',
    required: ['runId', 'requestId', 'action'],
    properties: { runId: { type: 'string' }, requestId: { type: 'string' }, action: { enum: ['accept', 'decline', 'cancel'] } },
  },
  RunList: { type: 'object', required: ['runs'], properties: { runs: { type: 'array', items: { $ref: '#/components/schemas/Run' } } } },
  RunEvent: {
    type: 'object',
    required: ['kind', 'runId'],
    description:
      'One SSE event (`id:` its id, `event:` its kind, `data:` this JSON): run_started, text_delta, tool_started, tool_progress, tool_finished, approval_requested, input_requested, input_answered, usage, model_retry, compacted, context, run_taken_over, then exactly one terminal event, settled or faulted (whose snapshot leaves the messages out).',
    properties: { kind: { type: 'string' }, runId: { type: 'string' } },
  },
  Memory: {
    type: 'object',
    required: ['id', 'text', 'createdAt'],
    properties: {
      id: { type: 'string' },
      text: { type: 'string' },
      kind: { type: 'string' },
      meta: object,
      createdAt: { type: 'number' },
      score: { type: 'number' },
      scope: object,
    },
  },
  MemoryList: {
    type: 'object',
    required: ['memories'],
    properties: { memories: { type: 'array', items: { $ref: '#/components/schemas/Memory' } } },
  },
  Health: {
    type: 'object',
    required: ['ok'],
    properties: {
      ok: { type: 'boolean' },
      mode: { enum: ['local', 'postgres'] },
      database: { enum: ['reachable', 'unreachable'] },
      worker: { type: 'boolean' },
      runsExecuting: { type: 'integer' },
      runsFollowed: { type: 'integer' },
    },
  },
} as const;
