// The Heads panel: what switching heads off changes in the shown output, and which heads the
// output needs. With heads off: the intact output beside the one decoded without them (the
// tokens that changed marked), and for every token of the intact output how much its
// log-probability fell, teacher-forced on that output so the two line up (Session.ablate). And
// each head's importance for the output, the fall of its total log-probability when that head
// alone is off (Session.importance), ranked in a bar chart with the time measuring took.

import { el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { fixed3, headKey, headLabel } from './heads-text.js';

/**
 * `createHeads(container, { onMeasure, onAllOn, onFocus })`: the panel's two buttons call the first
 * two; a head of the ranking, clicked, is focused through `onFocus({ kind, layer, head })`.
 */
export function createHeads(container, { onMeasure, onAllOn, onFocus }) {
  const measure = el('button', { className: 'heads-measure', attrs: { type: 'button' } });
  const allOn = el('button', { className: 'heads-all-on', i18n: 'heads.allOn', attrs: { type: 'button' } });
  const status = el('span', { className: 'muted heads-status', attrs: { role: 'status' } });
  const report = el('div', { className: 'heads-report' });
  const chart = el('div', { className: 'heads-importance' });
  measure.addEventListener('click', onMeasure);
  allOn.addEventListener('click', onAllOn);
  container.replaceChildren(el('div', { className: 'row' }, measure, allOn, status), report, chart);

  /**
   * Show `view`: { study, ablation: { spec, heads, report }, importance, busy: { ablating,
   * measuring }, live (the shown output can be measured), saved (a saved trace is shown) }.
   */
  function render({ ablation, importance, busy, live, saved }) {
    measure.textContent = t(busy.measuring ? 'heads.measuring' : 'heads.measure');
    measure.disabled = !live || busy.measuring;
    allOn.disabled = !ablation.spec;
    status.textContent = statusText(ablation, busy, live, saved);
    container.dataset.busy = String(busy.ablating || busy.measuring);
    const shown = ablation.report;
    if (report.dataset.shown !== reportKey(shown)) {
      report.dataset.shown = reportKey(shown);
      report.replaceChildren(...(shown ? reportParts(shown) : []));
    } else if (shown) relabel(report);
    chart.replaceChildren(...(importance ? importanceParts(importance, onFocus) : []));
  }

  return { render };
}

/** The status line: why nothing can be measured, which heads are off, or that every one is on. */
function statusText(ablation, busy, live, saved) {
  if (saved) return t('heads.noModel');
  if (!live) return t('heads.needOutput');
  if (!ablation.spec) return t('heads.noneOff');
  const list = ablation.heads.length ? ablation.heads.map(headLabel).join(', ') : ablation.spec;
  return `${t('heads.offList', { list })}${busy.ablating ? ` ${t('heads.working')}` : ''}`;
}

/** What a report shows, as a key: the same report is not built again. */
const reportKey = (report) => (report ? `${report.key}|${report.spec}` : '');

/** The texts of a report already built, in the language in use (elements carry their keys). */
function relabel(root) {
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll('[data-heads-text]'))
    node.textContent = t(node.dataset.headsText, JSON.parse(node.dataset.params));
}

/** A text that follows the language: `key` with `params`. */
function words(tag, className, key, params) {
  return el(tag, { className, text: t(key, params), data: { headsText: key, params: JSON.stringify(params) } });
}

/** The two outputs, the changed tokens marked, and the table of falls with its total. */
function reportParts(report) {
  const changed = new Set(report.changed);
  const line = (key, tokens, marked, className) =>
    el(
      'div',
      { className: `tokens-line ${className}` },
      el('span', { className: 'label', i18n: key }),
      el(
        'div',
        { className: 'tokens' },
        ...tokens.map((token, i) => el('span', { className: `token${marked(i) ? ' changed' : ''}`, text: token, data: { position: i } })),
      ),
    );
  const summary = report.changed.length
    ? words('p', 'heads-changed', 'heads.changedSome', { count: report.changed.length })
    : words('p', 'heads-changed', 'heads.changedNone', {});
  return [
    line('heads.intact', report.originalTokens, () => false, 'heads-original'),
    line('heads.ablated', report.ablatedTokens, (i) => changed.has(i), 'heads-ablated'),
    summary,
    fallTable(report),
  ];
}

/** Per original token: log p intact, with the heads off, and the fall, with a bar; the total below. */
function fallTable(report) {
  const top = Math.max(...Array.from(report.drop, Math.abs), 1e-9);
  const head = el(
    'tr',
    {},
    ...['heads.position', 'heads.token', 'heads.logP', 'heads.logPOff', 'heads.fall', 'heads.fallBar'].map((key) =>
      el('th', { i18n: key, attrs: { scope: 'col' } }),
    ),
  );
  const rows = report.originalTokens.map((token, i) => {
    const drop = report.drop[i];
    const bar = el('i', { className: drop < 0 ? 'negative' : '' });
    bar.style.width = `${Math.round((Math.abs(drop) / top) * 100)}%`;
    return el(
      'tr',
      { data: { position: i } },
      el('td', { text: String(i) }),
      el('td', { className: 'heads-token', text: token }),
      el('td', { text: fixed3(report.logP[i]) }),
      el('td', { text: fixed3(report.logPAblated[i]) }),
      el('td', { className: 'heads-fall', text: fixed3(drop) }),
      el('td', { className: 'heads-fall-bar' }, bar),
    );
  });
  const total = el(
    'tr',
    { className: 'heads-total' },
    el('th', { i18n: 'heads.total', attrs: { scope: 'row', colspan: 4 } }),
    el('td', { className: 'heads-fall', text: fixed3(report.totalDrop) }),
    el('td'),
  );
  return el('table', { className: 'heads-table' }, el('thead', {}, head), el('tbody', {}, ...rows, total));
}

/**
 * The heading, the time measuring took, and every head ranked by the fall of the output's log p;
 * a head's name is a button that focuses it.
 */
function importanceParts(importance, onFocus) {
  const sorted = [...importance.heads].sort((a, b) => b.drop - a.drop);
  const top = Math.max(...sorted.map((h) => Math.abs(h.drop)), 1e-9);
  const rows = sorted.map((h, i) => {
    const bar = el('i', { className: h.drop < 0 ? 'negative' : '' });
    bar.style.width = `${Math.round((Math.abs(h.drop) / top) * 100)}%`;
    const name = el('button', { className: 'heads-rank-label', text: `${i + 1}. ${headLabel(h)}`, attrs: { type: 'button' } });
    name.addEventListener('click', () => onFocus({ kind: h.kind, layer: h.layer, head: h.head }));
    return el(
      'li',
      { className: 'heads-rank', data: { head: headKey(h), rank: i + 1 } },
      name,
      el('span', { className: 'heads-rank-bar' }, bar),
      el('span', { className: 'heads-rank-value', text: fixed3(h.drop) }),
    );
  });
  return [
    el('h3', { className: 'heads-subtitle', text: t('heads.importanceTitle') }),
    el('p', {
      className: 'explain',
      text: t('heads.importanceExplain', { total: fixed3(importance.totalLogP), tokens: importance.tokens }),
    }),
    el('p', {
      className: 'muted heads-time',
      text: t('heads.measured', { count: importance.heads.length, ms: Math.round(importance.ms), backend: importance.backend }),
    }),
    el('ol', { className: 'heads-ranking' }, ...rows),
  ];
}
