// The benchmark's two tables as cells, in the language in use: the page draws them
// (www/bench/table.js) and the Markdown copy writes them (www/bench/markdown.js), from the same
// rows. A cell is { text, ms?, range? }: `ms` (a median) marks a timing, `range` its min–max.
import { ms } from './stats.js';
import { reasonText, t } from './texts.js';

/** A table's columns: [key of its heading, alignment]. */
export const COLUMNS = {
  translate: [
    ['model', 'left'],
    ['sourceTokens', 'right'],
    ['engine', 'left'],
    ['outputTokens', 'right'],
    ['encoder', 'right'],
    ['greedy', 'right'],
    ['runs', 'right'],
    ['note', 'left'],
  ],
  train: [
    ['config', 'left'],
    ['engine', 'left'],
    ['msPerStep', 'right'],
    ['stepsTimed', 'right'],
    ['runs', 'right'],
    ['note', 'left'],
  ],
};

const text = (value) => ({ text: value == null ? '–' : String(value) });
const timing = (s) => (s ? { text: ms(s.median), ms: s.median, range: `${ms(s.min)}–${ms(s.max)}` } : text(null));

/** What the row's note says: its state where it is not done, and whether its tokens differ from the CPU's. */
function note(row) {
  const { state, reason } = row;
  if (state === 'absent') return reason ? `${t('state.absent')} (${reasonText(reason)})` : t('state.absent');
  if (state === 'unavailable' || state === 'failed') return t(`state.${state}`, { reason: reasonText(reason) });
  const parts = state === 'done' ? [] : [t(`state.${state}`)];
  if (row.differs) parts.push(t('differs'));
  return parts.join('; ');
}

/** The default training config in words. */
const configText = (config) => (config ? t('trainConfig', config) : '–');

/** The cells of one row (a plan row with what the worker said of it). */
export function rowCells(row) {
  const engine = text(t(`engine.${row.engine}`));
  const runs = row.encode?.runs ?? row.step?.runs;
  if (row.section === 'train') {
    return [text(configText(row.config)), engine, timing(row.step), text(row.steps), text(runs), text(note(row))];
  }
  return [text(row.model), text(row.n), engine, text(row.out), timing(row.encode), timing(row.greedy), text(runs), text(note(row))];
}

/** The headings of `section`'s table. */
export const headings = (section) => COLUMNS[section].map(([key]) => t(key));

/** The WebGPU adapter in words: vendor / architecture / description, or none (and why). */
export function adapterText(env) {
  if (!env) return t('unknown');
  if (!env.adapter) return env.reason ? `${t('none')} (${reasonText(env.reason)})` : t('none');
  const { vendor, architecture, description, device, fallback } = env.adapter;
  const parts = [vendor, architecture, description || device].filter(Boolean);
  return `${parts.join(' / ') || t('unknown')}${fallback ? ` (${t('fallbackAdapter')})` : ''}`;
}
