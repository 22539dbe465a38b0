// The benchmark's tables on the page, redrawn from the rows whenever one changes. Each row carries
// data-id and data-state, each timing cell data-ms (its median): what the browser test reads.
import { COLUMNS, headings, rowCells } from './cells.js';

function element(tag, { className, text, data } = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text != null) node.textContent = text;
  for (const [name, value] of Object.entries(data ?? {})) node.dataset[name] = String(value);
  return node;
}

function cellNode(cell, side) {
  const td = element('td', { className: side === 'right' ? 'num' : '', text: cell.text });
  if (cell.ms != null) td.dataset.ms = String(cell.ms);
  if (cell.range) td.append(' ', element('span', { className: 'range', text: `(${cell.range})` }));
  return td;
}

/** Draw `rows` (one section's) into `table`: its head and its body. */
export function drawTable(table, section, rows) {
  const head = element('tr');
  COLUMNS[section].forEach(([, side], i) => {
    head.append(element('th', { className: side === 'right' ? 'num' : '', text: headings(section)[i] }));
  });
  const body = rows.map((row) => {
    const tr = element('tr', { className: `state-${row.state}`, data: { id: row.id, state: row.state, engine: row.engine } });
    rowCells(row).forEach((cell, i) => {
      tr.append(cellNode(cell, COLUMNS[section][i][1]));
    });
    return tr;
  });
  table.tHead.replaceChildren(head);
  table.tBodies[0].replaceChildren(...body);
}
