import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { DEMO_MODEL_CARD } from '../../demo/index.js';
import {
  compare,
  evaluate,
  htmlReport,
  recordModel,
  replayModel,
  textSummary,
  type EvalContext,
  type EvalDefinition,
  type EvalProgress,
  type EvalResult,
  type EvalRunner,
  type EvaluateOptions,
} from '../../evals/index.js';
import type { ModelInvoker } from '../../runtime/contract/model.js';
import { CliUsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { chooseModel } from '../model.js';
import type { EvalCommand } from '../args.js';
import type { Io } from '../run.js';
import { openSessionStore } from '../session-store.js';

/**
 * `indusagi eval FILE`: loads the module, builds its evaluation with the model the command chose (or
 * the recording, with `--replay`), runs it and reports. Exit 0 when every case ran and was scored; 1
 * when a case faulted or missed its recording (the scores alone never fail the command: that is what
 * `describeEval` and its threshold are for).
 */
export async function runEval(command: EvalCommand, io: Io): Promise<number> {
  const definition = await loadDefinition(command.file);
  const baseline = command.baseline === undefined ? undefined : await readResult(command.baseline);
  const store = openSessionStore(command.store);
  let close = async () => {};
  try {
    let model: ModelInvoker;
    let modelId: string;
    let card: EvalContext['card'];
    let offline = true;
    if (command.replay !== undefined) {
      modelId =
        command.model === undefined
          ? await recordedModel(command.replay)
          : command.model.provider === 'demo'
            ? DEMO_MODEL_CARD.id
            : command.model.model;
      card = modelId === DEMO_MODEL_CARD.id ? DEMO_MODEL_CARD : undefined;
      model = replayModel(command.replay, card === undefined ? { modelId } : { modelId, card: DEMO_MODEL_CARD });
    } else {
      const choice = await chooseModel(io.env, command.model);
      close = () => choice.close();
      modelId = choice.model;
      offline = choice.offline;
      card =
        choice.contextWindow === undefined
          ? undefined
          : { contextWindow: choice.contextWindow, maxOutputTokens: choice.maxOutputTokens ?? 4096 };
      model = command.record === undefined ? choice.invokeModel : recordModel(choice.invokeModel, command.record);
    }
    const options = await definition({ model, modelId, card, store, offline });
    const bar = io.stderr.isTTY === true && !command.json ? progressBar(io.stderr) : undefined;
    const result = isRunner(options)
      ? await runItself(command, options, (progress) => bar?.(progress.done, progress.total))
      : await evaluate({
          ...options,
          store: options.store ?? store,
          concurrency: command.concurrency ?? options.concurrency,
          journal: command.journal ?? options.journal,
          onProgress: (progress) => {
            bar?.(progress.done, progress.total);
            options.onProgress?.(progress);
          },
        });
    if (bar !== undefined) io.stderr.write('\n');
    const comparison = baseline === undefined ? undefined : compare(baseline, result);
    if (command.html !== undefined) await writeFile(command.html, htmlReport(result, comparison));
    io.stdout.write(
      command.json ? `${JSON.stringify(comparison === undefined ? result : { ...result, comparison })}\n` : textSummary(result, comparison),
    );
    const broken = result.summary.statuses.faulted + result.summary.statuses.replay_miss;
    return broken > 0 ? EXIT.failed : EXIT.ok;
  } finally {
    await close();
    await store.close();
  }
}

function isRunner(options: EvaluateOptions | EvalRunner): options is EvalRunner {
  return typeof (options as Partial<EvalRunner>)?.run === 'function' && (options as Partial<EvaluateOptions>).agent === undefined;
}

/**
 * A module's evaluation that runs itself (`{ run }`: `memoryRecallEval`'s, no agent, no model): the
 * flags that steer `evaluate`'s agents do not reach it, so they are refused rather than ignored.
 */
async function runItself(command: EvalCommand, runner: EvalRunner, onProgress: (progress: EvalProgress) => void): Promise<EvalResult> {
  const given = (
    [
      ['--model', command.model],
      ['--record', command.record],
      ['--replay', command.replay],
      ['--concurrency', command.concurrency],
      ['--journal', command.journal],
    ] as const
  ).flatMap(([flag, value]) => (value === undefined ? [] : [flag]));
  if (given.length > 0)
    throw new CliUsageError(
      `eval: ${command.file} runs its evaluation itself (no agent, no model): ${given.join(', ')} does not apply to it`,
    );
  const result = await runner.run({ onProgress });
  if (typeof result !== 'object' || result === null || !Array.isArray(result.cases) || typeof result.summary !== 'object')
    throw new CliUsageError(`eval: ${command.file}: \`run\` must resolve to an evaluation's result (what memoryRecallEval returns)`);
  return result;
}

async function loadDefinition(file: string): Promise<EvalDefinition> {
  let loaded: { default?: unknown };
  try {
    loaded = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    throw new CliUsageError(`eval: ${file} could not be loaded: ${(error as Error).message}`);
  }
  if (typeof loaded.default !== 'function') {
    throw new CliUsageError(
      `eval: ${file} must default-export an evaluation: defineEval(({ model, modelId, store }) => ({ agent, data, scorers }))`,
    );
  }
  return loaded.default as EvalDefinition;
}

async function readResult(file: string): Promise<EvalResult> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new CliUsageError(`--baseline ${file}: not the JSON of an evaluation (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || !Array.isArray((value as EvalResult).cases)) {
    throw new CliUsageError(`--baseline ${file}: not the JSON of an evaluation (indusagi eval --json)`);
  }
  return value as EvalResult;
}

/** The model id the recordings were made with: a replay must ask for the same one, or every request misses. */
async function recordedModel(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliUsageError(`--replay ${file}: ${(error as Error).message}`);
  }
  const first = text.split('\n').find((line) => line.trim() !== '');
  const model = first === undefined ? undefined : (JSON.parse(first) as { model?: unknown }).model;
  if (typeof model !== 'string') throw new CliUsageError(`--replay ${file}: holds no recorded reply (record with --record ${file})`);
  return model;
}

function progressBar(stream: NodeJS.WriteStream): (done: number, total: number) => void {
  return (done, total) => {
    const width = 30;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
  };
}
