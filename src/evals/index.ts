// Evaluations (`indusagi/evals`): run a dataset through an agent definition, one fresh session per case,
// score every case, and summarize; scorers for text, structure, trajectories and model judges.
export { evaluate } from './evaluate.js';
export { loadCases } from './data.js';
export { scorer, exactMatch, contains, regex, jsonSchema, structuredEqual, numericCloseness } from './scorers.js';
export { trajectoryMatch } from './trajectory-scorers.js';
export type { ToolExpectation, TrajectoryMode, TrajectoryOptions } from './trajectory-scorers.js';
export { modelJudge } from './judge.js';
export type { ModelJudgeOptions } from './judge.js';
export { percentile, groupSummaries } from './summary.js';
export { recordModel, replayModel, requestKey, loadRecordings } from './record-replay.js';
export type { RecordedReply, ReplayOptions } from './record-replay.js';
export { currentCase } from './case-context.js';
export { compare, signTest } from './compare.js';
export { htmlReport, textSummary } from './report.js';
export { defineEval } from './define.js';
export type { EvalContext, EvalDefinition, EvalRunner } from './define.js';
export type { Comparison, CompareOptions, CaseComparison, Delta, ScorerComparison } from './compare.js';
export type { CaseContext } from './case-context.js';
export {
  EvalOptionsError,
  EvalDataError,
  EvalJournalError,
  ReplayMissError,
  RecordingFileError,
  JudgeReplyError,
  LocomoDataError,
} from './errors.js';
export { loadLocomo, locomoCases, locomoCategory, locomoTurnText, LOCOMO_CATEGORIES } from './locomo.js';
export type { LocomoCaseMetadata, LocomoCaseOptions, LocomoConversation, LocomoData, LocomoQuestion, LocomoTurn } from './locomo.js';
export { memoryRecallEval } from './memory-recall.js';
export type { MemoryRecallOptions, MemoryRecallResult } from './memory-recall.js';
export { locomoQaEval, LOCOMO_ANSWER_SYSTEM, LOCOMO_JUDGE_RUBRIC } from './locomo-qa.js';
export type { LocomoQaOptions } from './locomo-qa.js';
export type {
  CaseInput,
  CaseResult,
  CaseScore,
  CaseStatus,
  EvalCase,
  EvalLimits,
  EvalProgress,
  EvalResult,
  EvalSummary,
  EvaluableAgent,
  EvaluateOptions,
  EvalTelemetry,
  GroupBy,
  GroupSummary,
  Scorer,
  ScorerInput,
  ScoreResult,
  ScorerSummary,
  TrajectoryStep,
} from './types.js';
