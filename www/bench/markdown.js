// The benchmark as Markdown, for a visitor to paste into an issue or a post: the machine (the
// browser's user agent, the WebGPU adapter, the logical CPU count) and both tables, in the
// language in use.
import { adapterText, COLUMNS, headings, rowCells } from './cells.js';
import { t } from './texts.js';

/** A cell's text, safe inside a Markdown table row. */
const cellText = (value) => String(value).replaceAll('|', '\\|').replaceAll('\n', ' ');

function table(section, rows) {
  const align = COLUMNS[section].map(([, side]) => (side === 'right' ? '---:' : '---'));
  const lines = [`| ${headings(section).map(cellText).join(' | ')} |`, `|${align.join('|')}|`];
  for (const row of rows) {
    const cells = rowCells(row).map((cell) => (cell.range ? `${cell.text} (${cell.range})` : cell.text));
    lines.push(`| ${cells.map(cellText).join(' | ')} |`);
  }
  return lines.join('\n');
}

/**
 * The Markdown of `state` ({ plan, rows: the plan's rows with what the worker said, env }) on a
 * machine described by `machine` ({ userAgent, cpus }).
 */
export function markdown(state, machine) {
  const bySection = (section) => state.rows.filter((row) => row.section === section);
  return [
    `## ${t('markdownTitle')}`,
    '',
    `- ${t('browser')}: ${machine.userAgent}`,
    `- ${t('adapter')}: ${adapterText(state.env)}`,
    `- ${t('cpus')}: ${machine.cpus ?? t('unknown')}`,
    `- ${t('markdownSpread', { warmup: state.plan.warmup })}`,
    '',
    `### ${t('translation')}`,
    '',
    table('translate', bySection('translate')),
    '',
    `### ${t('training')}`,
    '',
    table('train', bySection('train')),
    '',
  ].join('\n');
}
