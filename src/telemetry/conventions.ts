// The attribute, span and metric names this package emits. `gen_ai.*`, `error.type` and the metric names
// are spelled as the OpenTelemetry GenAI semantic conventions spell them; `indusagi.*` names are ours,
// for operations the conventions do not cover (condensation, the session store). docs/telemetry.md
// tables every one of them.

export const ATTR_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_AGENT_NAME = 'gen_ai.agent.name';
export const ATTR_CONVERSATION_ID = 'gen_ai.conversation.id';
export const ATTR_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const ATTR_RESPONSE_ID = 'gen_ai.response.id';
export const ATTR_RESPONSE_MODEL = 'gen_ai.response.model';
export const ATTR_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_RESPONSE_TIME_TO_FIRST_CHUNK = 'gen_ai.response.time_to_first_chunk';
export const ATTR_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const ATTR_USAGE_CACHE_CREATION_INPUT_TOKENS = 'gen_ai.usage.cache_creation.input_tokens';
export const ATTR_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const ATTR_TOOL_DESCRIPTION = 'gen_ai.tool.description';
export const ATTR_TOOL_TYPE = 'gen_ai.tool.type';
export const ATTR_TOKEN_TYPE = 'gen_ai.token.type';
export const ATTR_MEMORY_STORE_ID = 'gen_ai.memory.store.id';
export const ATTR_MEMORY_RECORD_ID = 'gen_ai.memory.record.id';
export const ATTR_MEMORY_RECORD_COUNT = 'gen_ai.memory.record.count';
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';

// Opt-in content (`captureContent`), recorded as JSON strings in the conventions' message schemas.
export const ATTR_INPUT_MESSAGES = 'gen_ai.input.messages';
export const ATTR_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const ATTR_SYSTEM_INSTRUCTIONS = 'gen_ai.system_instructions';
export const ATTR_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const ATTR_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const ATTR_MEMORY_QUERY_TEXT = 'gen_ai.memory.query.text';
export const ATTR_MEMORY_RECORDS = 'gen_ai.memory.records';

// Ours.
export const ATTR_RUN_OPERATION = 'indusagi.run.operation';
export const ATTR_RUN_STATUS = 'indusagi.run.status';
export const ATTR_CALL_PURPOSE = 'indusagi.model_call.purpose';
export const ATTR_CONDENSE_TOKENS_BEFORE = 'indusagi.condensation.tokens_before';
export const ATTR_CONDENSE_TOKENS_AFTER = 'indusagi.condensation.tokens_after';
export const ATTR_CONDENSE_TURNS_REMOVED = 'indusagi.condensation.turns_removed';
export const ATTR_CONDENSE_SUMMARIES = 'indusagi.condensation.summarizer_calls';
export const ATTR_SESSION_RECORDS = 'indusagi.session.records';
export const ATTR_SESSION_BYTES = 'indusagi.session.bytes';
export const ATTR_SESSION_LINES = 'indusagi.session.lines';
export const ATTR_SESSION_SKIPPED_LINES = 'indusagi.session.skipped_lines';
export const ATTR_SESSION_TRUNCATED_TAIL = 'indusagi.session.truncated_tail';
export const ATTR_SESSION_LIVE_PATH = 'indusagi.session.live_path';
export const ATTR_MEMORY_FORGOTTEN = 'indusagi.memory.forgotten';
/** The operation was on a scope's working-memory block (`getWorking`, `setWorking`, `forgetWorking`), not on records. */
export const ATTR_MEMORY_WORKING = 'indusagi.memory.working';
/** The working-memory block's version: the one read, or the one a write reached. */
export const ATTR_MEMORY_WORKING_VERSION = 'indusagi.memory.working.version';
/** The configured name of the MCP server a tool comes from (the conventions name none for it). */
export const ATTR_MCP_SERVER = 'indusagi.mcp.server';
export const ATTR_GUARDRAIL_NAME = 'indusagi.guardrail.name';
export const ATTR_GUARDRAIL_STAGE = 'indusagi.guardrail.stage';
export const ATTR_GUARDRAIL_TRIGGERED = 'indusagi.guardrail.triggered';
export const ATTR_GUARDRAIL_MESSAGE = 'indusagi.guardrail.message';

export const OP_INVOKE_AGENT = 'invoke_agent';
export const OP_CHAT = 'chat';
export const OP_EXECUTE_TOOL = 'execute_tool';
export const OP_CREATE_MEMORY = 'create_memory';
export const OP_SEARCH_MEMORY = 'search_memory';
export const OP_UPDATE_MEMORY = 'update_memory';
export const OP_DELETE_MEMORY = 'delete_memory';

export const SPAN_CONDENSE = 'indusagi.condense';
export const SPAN_SESSION_ACQUIRE = 'indusagi.session.acquire';
export const SPAN_SESSION_READ = 'indusagi.session.read';
export const SPAN_SESSION_APPEND = 'indusagi.session.append';
export const SPAN_SESSION_RELEASE = 'indusagi.session.release';
export const SPAN_GUARDRAIL = 'indusagi.guardrail';

export const EVENT_RUN_STARTED = 'indusagi.run_started';
export const EVENT_MODEL_RETRY = 'indusagi.model_retry';
export const ATTR_RETRY_ATTEMPT = 'indusagi.retry.attempt';
export const ATTR_RETRY_DELAY_MS = 'indusagi.retry.delay_ms';
export const ATTR_RETRY_REASON = 'indusagi.retry.reason';
export const ATTR_HTTP_STATUS = 'http.response.status_code';
export const EVENT_APPROVAL_REQUESTED = 'indusagi.approval_requested';
export const EVENT_GUARDRAIL_TRIPPED = 'indusagi.guardrail_tripped';

/** `error.type` of a tool call the loop answered without running it (unknown tool, bad input, rejected, aborted first). */
export const ERROR_TOOL_NOT_RUN = 'tool_not_run';
/** `error.type` when nothing more specific is known (the conventions' fallback). */
export const ERROR_OTHER = '_OTHER';

export const METRIC_TOKEN_USAGE = 'gen_ai.client.token.usage';
export const METRIC_OPERATION_DURATION = 'gen_ai.client.operation.duration';
export const METRIC_TIME_TO_FIRST_CHUNK = 'gen_ai.client.operation.time_to_first_chunk';
export const METRIC_INVOKE_AGENT_DURATION = 'gen_ai.invoke_agent.duration';
export const METRIC_EXECUTE_TOOL_DURATION = 'gen_ai.execute_tool.duration';

/** The conventions' advised histogram buckets. */
export const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
export const SECONDS_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
export const AGENT_SECONDS_BUCKETS = [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 51.2, 102.4, 204.8, 409.6];

// An evaluation case (`evaluate({ telemetry })` of indusagi/evals): one INTERNAL span per case, its runs under it.
export const OP_EVALUATE_CASE = 'evaluate_case';
export const ATTR_EVAL_NAME = 'indusagi.eval.name';
export const ATTR_EVAL_RUN_ID = 'indusagi.eval.run_id';
export const ATTR_EVAL_CASE_ID = 'indusagi.eval.case_id';
export const ATTR_EVAL_CASE_STATUS = 'indusagi.eval.case_status';
/** Followed by the scorer's name: `indusagi.eval.score.contains`. */
export const ATTR_EVAL_SCORE_PREFIX = 'indusagi.eval.score.';
