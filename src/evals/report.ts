// The evaluation as people read it: a few lines for a terminal, and a self-contained HTML page (no
// script, no request: inline CSS and SVG) with the summary, each scorer's score distribution, the
// comparison with a baseline, and every case to open: input, answer, scores and reasons, trajectory.
import type { Comparison } from './compare.js';
import type { CaseResult, EvalResult, GroupSummary, TrajectoryStep } from './types.js';

/** The summary for a terminal: cases by status, per scorer mean and pass rate, cost and latency. */
export function textSummary(result: EvalResult, comparison?: Comparison): string {
  const s = result.summary;
  const statuses = Object.entries(s.statuses)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  const lines = [
    `${result.name} (run ${result.runId}): ${s.cases} cases, ${statuses}${result.status === 'done' ? '' : ` [${result.status}]`}`,
  ];
  const width = Math.max(6, ...s.scorers.map((x) => x.name.length));
  for (const scorer of s.scorers) {
    lines.push(`  ${scorer.name.padEnd(width)}  mean ${scorer.mean.toFixed(3)}  pass ${(scorer.passRate * 100).toFixed(1)}%`);
  }
  if (s.groups !== undefined && s.groups.length > 0) {
    // One line per group, each scorer's mean in the order above: a table a terminal lines up.
    const label = Math.max(5, ...s.groups.map((g) => g.group.length));
    lines.push(
      `  ${'group'.padEnd(label)}  ${'n'.padStart(5)}  ${s.scorers.map((x) => x.name.padStart(Math.max(6, x.name.length))).join('  ')}`,
    );
    for (const g of s.groups) {
      const means = g.scorers.map((x) => x.mean.toFixed(3).padStart(Math.max(6, x.name.length)));
      lines.push(`  ${g.group.padEnd(label)}  ${String(g.cases).padStart(5)}  ${means.join('  ')}`);
    }
  }
  const cost = `$${s.costUsd.toFixed(4)}${s.unpriced > 0 ? ` (+${s.unpriced} unpriced)` : ''}`;
  lines.push(`  tokens ${s.usage.inputTokens} in / ${s.usage.outputTokens} out, cost ${cost}, judges $${s.judgeCostUsd.toFixed(4)}`);
  lines.push(`  latency p50 ${Math.round(s.latencyMs.p50)} ms, p95 ${Math.round(s.latencyMs.p95)} ms`);
  for (const c of result.cases.filter((x) => x.status === 'faulted' || x.status === 'replay_miss').slice(0, 10)) {
    lines.push(`  ${c.status} ${c.id}: ${c.error?.message ?? ''}`);
  }
  if (comparison !== undefined) {
    lines.push(`  against ${comparison.baseline.name} (run ${comparison.baseline.runId}), ${comparison.paired} paired cases:`);
    for (const x of comparison.scorers) {
      lines.push(
        `    ${x.name.padEnd(width)}  ${x.verdict}  +${x.wins} -${x.losses} =${x.ties}  delta ${x.meanDelta.toFixed(3)}  sign p ${x.signTestP.toPrecision(2)}`,
      );
    }
    lines.push(`    cost ${signed(comparison.costUsd.delta, 4, '$')}, latency p50 ${signed(comparison.latencyMs.p50.delta, 0)} ms`);
  }
  return `${lines.join('\n')}\n`;
}

/** The report as one HTML document that needs nothing else to open. */
export function htmlReport(result: EvalResult, comparison?: Comparison): string {
  const s = result.summary;
  const rows = s.scorers
    .map(
      (x) => `<tr><td>${esc(x.name)}</td><td>${x.mean.toFixed(3)}</td><td>${(x.passRate * 100).toFixed(1)}%</td><td>${x.scored}</td></tr>`,
    )
    .join('');
  const histograms = s.scorers
    .map((x) =>
      histogram(
        x.name,
        result.cases.flatMap((c) => c.scores.filter((y) => y.name === x.name).map((y) => y.score)),
      ),
    )
    .join('');
  const cases = result.cases.map(caseDetails).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(result.name)}: evaluation ${esc(result.runId)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#1b1b1b}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.25rem .6rem;text-align:left}
.plots{display:flex;flex-wrap:wrap;gap:1.5rem}figure{margin:0}figcaption{font-weight:600}
details{border:1px solid #ddd;border-radius:4px;margin:.3rem 0;padding:.3rem .6rem}summary{cursor:pointer}
.settled{color:#1a7f37}.faulted,.replay_miss{color:#b42318}.skipped,.cancelled{color:#777}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.4rem;margin:.3rem 0}.pass{color:#1a7f37}.fail{color:#b42318}
ul.tree{margin:.2rem 0 .2rem 1rem;padding-left:.5rem}
</style></head><body>
<h1>${esc(result.name)}</h1>
<p>Run <code>${esc(result.runId)}</code>, started ${esc(result.startedAt)}: ${s.cases} cases (${Object.entries(s.statuses)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ')})${result.status === 'done' ? '' : `, <strong>${esc(result.status)}</strong>`}.</p>
<table><tr><th>scorer</th><th>mean</th><th>pass rate</th><th>scored</th></tr>${rows}</table>
${
  s.groups === undefined || s.groups.length === 0
    ? ''
    : groupsTable(
        s.groups,
        s.scorers.map((x) => x.name),
      )
}
<p>Tokens ${s.usage.inputTokens} in, ${s.usage.outputTokens} out; cost $${s.costUsd.toFixed(4)}${s.unpriced > 0 ? ` (${s.unpriced} cases unpriced)` : ''}; judges $${s.judgeCostUsd.toFixed(4)}. Latency p50 ${Math.round(s.latencyMs.p50)} ms, p95 ${Math.round(s.latencyMs.p95)} ms.</p>
<h2>Score distribution</h2><div class="plots">${histograms}</div>
${comparison === undefined ? '' : comparisonSection(comparison)}
<h2>Cases</h2>
${cases}
</body></html>
`;
}

/** Each group's mean and pass rate per scorer, one row a group. */
function groupsTable(groups: GroupSummary[], scorers: string[]): string {
  const head = scorers.map((name) => `<th>${esc(name)} mean</th><th>${esc(name)} pass</th>`).join('');
  const body = groups
    .map(
      (g) =>
        `<tr><td>${esc(g.group)}</td><td>${g.cases}</td>${g.scorers.map((x) => `<td>${x.mean.toFixed(3)}</td><td>${(x.passRate * 100).toFixed(1)}%</td>`).join('')}</tr>`,
    )
    .join('');
  return `<h2>By group</h2><table class="groups"><tr><th>group</th><th>cases</th>${head}</tr>${body}</table>`;
}

function histogram(name: string, scores: number[]): string {
  const bins = new Array(10).fill(0);
  for (const score of scores) bins[Math.min(9, Math.floor(score * 10))]++;
  const max = Math.max(1, ...bins);
  const bars = bins
    .map((n, i) => {
      const h = Math.round((n / max) * 100);
      return `<rect x="${i * 24 + 2}" y="${110 - h}" width="20" height="${h}" fill="#4a72b0"><title>${(i / 10).toFixed(1)}-${((i + 1) / 10).toFixed(1)}: ${n}</title></rect>`;
    })
    .join('');
  return `<figure data-scorer="${esc(name)}"><figcaption>${esc(name)}</figcaption><svg role="img" aria-label="${esc(name)} scores from 0 to 1" width="244" height="128" viewBox="0 0 244 128">${bars}<line x1="0" y1="110" x2="244" y2="110" stroke="#333"/><text x="0" y="124" font-size="10">0</text><text x="234" y="124" font-size="10">1</text></svg></figure>`;
}

function comparisonSection(c: Comparison): string {
  const rows = c.scorers
    .map(
      (x) =>
        `<tr><td>${esc(x.name)}</td><td>${esc(x.verdict)}</td><td>${x.wins}</td><td>${x.losses}</td><td>${x.ties}</td><td>${x.meanDelta.toFixed(3)}</td><td>${x.signTestP.toPrecision(3)}</td><td>${x.bootstrapP.toPrecision(3)}</td></tr>`,
    )
    .join('');
  return `<h2>Against ${esc(c.baseline.name)} (run ${esc(c.baseline.runId)})</h2>
<p>${c.paired} paired cases. Cost ${signed(c.costUsd.delta, 4, '$')}, latency p50 ${signed(c.latencyMs.p50.delta, 0)} ms, p95 ${signed(c.latencyMs.p95.delta, 0)} ms.</p>
<table class="comparison"><tr><th>scorer</th><th>verdict</th><th>wins</th><th>losses</th><th>ties</th><th>mean delta</th><th>sign test p</th><th>bootstrap p</th></tr>${rows}</table>`;
}

function caseDetails(c: CaseResult): string {
  const scores = c.scores
    .map((s) => `<li class="${s.passed ? 'pass' : 'fail'}">${esc(s.name)}: ${s.score.toFixed(3)} &mdash; ${esc(s.reason)}</li>`)
    .join('');
  const input = typeof c.input === 'string' ? c.input : JSON.stringify(c.input, null, 2);
  return `<details id="case-${esc(c.id)}"><summary><span class="${c.status}">${esc(c.status)}</span> ${esc(c.id)} &mdash; ${c.scores.map((s) => `${esc(s.name)} ${s.score.toFixed(2)}`).join(', ')}</summary>
<p>${c.sessionId === '' ? 'No session (no agent ran)' : `Session <code>${esc(c.sessionId)}</code>`}, ${Math.round(c.latencyMs)} ms, ${c.usage.inputTokens} in / ${c.usage.outputTokens} out${c.costUsd === undefined ? '' : `, $${c.costUsd.toFixed(5)}`}.</p>
<strong>Input</strong><pre>${esc(input)}</pre><strong>Answer</strong><pre>${esc(c.output)}</pre>
${c.expected === undefined ? '' : `<strong>Expected</strong><pre>${esc(JSON.stringify(c.expected, null, 2))}</pre>`}
${c.error === undefined ? '' : `<strong>Error</strong><pre>${esc(`${c.error.kind}: ${c.error.message}`)}</pre>`}
<strong>Scores</strong><ul>${scores}</ul>
<strong>Trajectory</strong>${c.trajectory.length === 0 ? ' (no tool calls)' : tree(c.trajectory)}
</details>`;
}

function tree(steps: TrajectoryStep[]): string {
  return `<ul class="tree">${steps
    .map(
      (s) =>
        `<li><code>${esc(s.name)}</code>(${esc(clip(JSON.stringify(s.input)))}) &rarr; ${s.isError ? '<span class="fail">error</span> ' : ''}${esc(clip(typeof s.result === 'string' ? s.result : JSON.stringify(s.result)))}${s.children ? tree(s.children) : ''}</li>`,
    )
    .join('')}</ul>`;
}

function clip(text: string | undefined): string {
  const t = text ?? '';
  return t.length > 400 ? `${t.slice(0, 397)}...` : t;
}

function signed(value: number, digits: number, unit = ''): string {
  return `${value >= 0 ? '+' : '-'}${unit}${Math.abs(value).toFixed(digits)}`;
}

/** Escapes text for HTML content and attribute values. */
function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
