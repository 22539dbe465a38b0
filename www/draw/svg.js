// Vector figures for export. Two ways to make one:
//   - build it from shapes (`svgElement`, `figure`, `textEl`), as the heatmap does, one <rect> a cell;
//   - paint it with the same code that paints a canvas: `svgContext(width, height)` answers the
//     subset of CanvasRenderingContext2D the views use (paths, rects, arcs, text, transforms,
//     save/restore, rect clips, globalAlpha), writing SVG elements instead of pixels.
// A figure is { svg, width, height } in CSS pixels; `row` and `column` lay figures out. Its
// colours are the page's (www/draw/theme.js).
import { theme } from './theme.js';

export const SVG_NS = 'http://www.w3.org/2000/svg';
export const FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC", "WenQuanYi Zen Hei", sans-serif';

/** A new SVG element with `attributes` set. */
export function svgElement(name, attributes = {}) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) if (value != null) node.setAttribute(key, String(value));
  return node;
}

/** A <text> holding `text` (set as text, never parsed). */
export function textEl(text, attributes = {}) {
  const node = svgElement('text', attributes);
  node.textContent = text;
  return node;
}

/** An empty figure: an <svg> of `width × height` with the page's background and font. */
export function figure(width, height) {
  const w = Math.ceil(width);
  const h = Math.ceil(height);
  const svg = svgElement('svg', { xmlns: SVG_NS, width: w, height: h, viewBox: `0 0 ${w} ${h}`, 'font-family': FONT_FAMILY });
  svg.append(svgElement('rect', { class: 'background', width: w, height: h, fill: theme().background }));
  return { svg, width: w, height: h };
}

/** `figures` side by side (`gap` px apart) under an optional `title`, wrapping after `maxWidth`. */
export function row(figures, { gap = 16, title = '', maxWidth = 1400 } = {}) {
  const present = figures.filter(Boolean);
  const top = title ? 22 : 0;
  const placed = [];
  let x = 0;
  let y = top;
  let lineHeight = 0;
  let width = 0;
  for (const f of present) {
    if (x > 0 && x + f.width > maxWidth) {
      x = 0;
      y += lineHeight + gap;
      lineHeight = 0;
    }
    placed.push({ f, x, y });
    x += f.width + gap;
    width = Math.max(width, x - gap);
    lineHeight = Math.max(lineHeight, f.height);
  }
  const out = figure(Math.max(width, 1), y + lineHeight);
  if (title) out.svg.append(textEl(title, { x: 0, y: 15, fill: theme().text, 'font-size': 13 }));
  for (const { f, x: fx, y: fy } of placed) out.svg.append(nest(f, fx, fy));
  return out;
}

/** `figures` one under another. */
export function column(figures, { gap = 12 } = {}) {
  const present = figures.filter(Boolean);
  const width = Math.max(1, ...present.map((f) => f.width));
  const height = present.reduce((sum, f) => sum + f.height, 0) + gap * Math.max(0, present.length - 1);
  const out = figure(width, height);
  let y = 0;
  for (const f of present) {
    out.svg.append(nest(f, 0, y));
    y += f.height + gap;
  }
  return out;
}

/** `f` with `caption` above it. */
export function captioned(caption, f) {
  if (!f) return null;
  const lines = wrap(caption, Math.max(f.width, 200), 12);
  const top = lines.length * 15 + 4;
  const out = figure(Math.max(f.width, Math.min(420, measure(caption, 12) + 2)), f.height + top);
  lines.forEach((line, i) => {
    out.svg.append(textEl(line, { x: 0, y: 12 + i * 15, fill: theme().muted, 'font-size': 12 }));
  });
  out.svg.append(nest(f, 0, top));
  return out;
}

/** A figure's <svg> as a child placed at (x, y) (an <svg> inside an <svg> keeps its own coordinates). */
function nest(f, x, y) {
  const inner = f.svg.cloneNode(true);
  inner.removeAttribute('xmlns');
  inner.setAttribute('x', String(x));
  inner.setAttribute('y', String(y));
  return inner;
}

const made = {
  measurer: null, // a 2D context that measures text, made on first use
  clips: 0, // clip ids stay unique when figures are nested in one file
};

/** The 2D context that measures text in `font`. */
function measurer(font) {
  made.measurer ??= document.createElement('canvas').getContext('2d');
  made.measurer.font = font;
  return made.measurer;
}

/** The figures' font at `size` px, as a canvas font: every view draws and measures text in it. */
export function fontOf(size, weight = '') {
  return `${weight} ${size}px ${FONT_FAMILY}`.trim();
}

/** The width of `text` in `size` px of the figures' font. */
export function measure(text, size = 12, weight = '') {
  return measurer(fontOf(size, weight)).measureText(text).width;
}

/** `text` broken into lines no wider than `width` px (at word boundaries where there are any). */
export function wrap(text, width, size = 12) {
  const lines = [];
  let line = '';
  for (const word of text.split(/(?<=\s)|(?=[\u3000-\u9fff])/u)) {
    if (line && measure(line + word, size) > width) {
      lines.push(line.trimEnd());
      line = word.trimStart();
    } else {
      line += word;
    }
  }
  if (line) lines.push(line.trimEnd());
  return lines;
}

// -----------------------------------------------------------------------------------------------
// A canvas-like context that writes SVG.

const ALIGN = { left: 'start', start: 'start', right: 'end', end: 'end', center: 'middle' };
const BASELINE = { top: 'text-before-edge', hanging: 'hanging', middle: 'central', bottom: 'text-after-edge', ideographic: 'ideographic' };
const IDENTITY = [1, 0, 0, 1, 0, 0];

function multiply([a, b, c, d, e, f], [a2, b2, c2, d2, e2, f2]) {
  return [a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2, a * e2 + c * f2 + e, b * e2 + d * f2 + f];
}

const round = (v) => Math.round(v * 100) / 100;

/** A canvas font ('bold 12px system-ui, sans-serif') as SVG presentation attributes (no style attribute: the page's CSP refuses those). */
function fontAttributes(font) {
  const match = /^(.*?)([\d.]+)px\s+(.+)$/.exec(font.trim());
  if (!match) return {};
  const weight = /bold|[6-9]00/.exec(match[1])?.[0];
  return { 'font-size': match[2], 'font-family': match[3], 'font-weight': weight };
}

/** A context for `paint(ctx, width, height)` functions; its figure is `ctx.figure`. */
export function svgContext(width, height) {
  const out = figure(width, height);
  const defs = svgElement('defs');
  out.svg.append(defs);
  const pen = {
    out,
    defs,
    path: [], // the current path's segments, as path data
    current: {
      fillStyle: '#000',
      strokeStyle: '#000',
      lineWidth: 1,
      font: fontOf(10),
      textAlign: 'start',
      textBaseline: 'alphabetic',
      globalAlpha: 1,
      matrix: IDENTITY,
      clip: null,
    },
    saved: [], // the states save() kept
  };
  const ctx = {
    figure: out,
    canvas: { width, height },
    imageSmoothingEnabled: false,
    ...stateMethods(pen),
    ...pathMethods(pen),
    ...paintMethods(pen),
  };
  // The drawing state a 2D context exposes as plain properties, kept per save()/restore().
  for (const key of ['fillStyle', 'strokeStyle', 'lineWidth', 'font', 'textAlign', 'textBaseline', 'globalAlpha']) {
    Object.defineProperty(ctx, key, {
      get: () => pen.current[key],
      set: (value) => {
        pen.current[key] = value;
      },
      enumerable: true,
    });
  }
  return ctx;
}

/** (x, y) through the current transform, rounded. */
function point({ current }, x, y) {
  const [a, b, c, d, e, f] = current.matrix;
  return [round(a * x + c * y + e), round(b * x + d * y + f)];
}

/** How much the current transform scales lengths. */
const scaleOf = ({ current }) => Math.sqrt(Math.abs(current.matrix[0] * current.matrix[3] - current.matrix[1] * current.matrix[2]));

/** Add `node` to the figure, with the current opacity and clip. */
function add({ out, current }, node) {
  if (current.globalAlpha < 1) node.setAttribute('opacity', String(round(current.globalAlpha * 1000) / 1000));
  if (current.clip) {
    // The clip's path is in figure coordinates: a group without a transform applies it there.
    const group = svgElement('g', { 'clip-path': `url(#${current.clip})` });
    group.append(node);
    out.svg.append(group);
  } else {
    out.svg.append(node);
  }
  return node;
}

/** save/restore and the transforms. */
function stateMethods(pen) {
  return {
    save() {
      pen.saved.push({ ...pen.current });
    },
    restore() {
      if (pen.saved.length) pen.current = pen.saved.pop();
    },
    setTransform(a = 1, b = 0, c = 0, d = 1, e = 0, f = 0) {
      pen.current.matrix = [a, b, c, d, e, f];
    },
    translate(x, y) {
      pen.current.matrix = multiply(pen.current.matrix, [1, 0, 0, 1, x, y]);
    },
    rotate(angle) {
      const cos = Math.cos(angle);
      const sin = Math.sin(angle);
      pen.current.matrix = multiply(pen.current.matrix, [cos, sin, -sin, cos, 0, 0]);
    },
    scale(x, y) {
      pen.current.matrix = multiply(pen.current.matrix, [x, 0, 0, y, 0, 0]);
    },
    clearRect() {
      // A figure starts empty; painting never needs to erase.
    },
  };
}

/** The path: its segments, in figure coordinates. */
function pathMethods(pen) {
  const at = (x, y) => point(pen, x, y);
  return {
    beginPath() {
      pen.path = [];
    },
    moveTo(x, y) {
      pen.path.push(`M${at(x, y).join(',')}`);
    },
    lineTo(x, y) {
      pen.path.push(`L${at(x, y).join(',')}`);
    },
    closePath() {
      pen.path.push('Z');
    },
    rect(x, y, w, h) {
      pen.path.push(`M${at(x, y)}L${at(x + w, y)}L${at(x + w, y + h)}L${at(x, y + h)}Z`);
    },
    arc(x, y, r, start, end) {
      // Whole circles are all the views draw: two half arcs.
      const [cx, cy] = at(x, y);
      const radius = round(r * scaleOf(pen));
      if (Math.abs(end - start) >= 2 * Math.PI - 1e-6) {
        pen.path.push(`M${round(cx - radius)},${cy}a${radius},${radius} 0 1,0 ${2 * radius},0a${radius},${radius} 0 1,0 ${-2 * radius},0`);
      } else {
        const [x0, y0] = at(x + r * Math.cos(start), y + r * Math.sin(start));
        const [x1, y1] = at(x + r * Math.cos(end), y + r * Math.sin(end));
        const large = (end - start) % (2 * Math.PI) > Math.PI ? 1 : 0;
        pen.path.push(`M${x0},${y0}A${radius},${radius} 0 ${large},1 ${x1},${y1}`);
      }
    },
    clip() {
      const id = `clip${++made.clips}`;
      const clipPath = svgElement('clipPath', { id });
      clipPath.append(svgElement('path', { d: pen.path.join('') }));
      pen.defs.append(clipPath);
      pen.current.clip = id;
    },
  };
}

/** What puts shapes and text in the figure. */
function paintMethods(pen) {
  const rectPath = (x, y, w, h) => {
    const at = (px, py) => point(pen, px, py);
    return `M${at(x, y)}L${at(x + w, y)}L${at(x + w, y + h)}L${at(x, y + h)}Z`;
  };
  const stroked = (d) => ({
    d,
    fill: 'none',
    stroke: pen.current.strokeStyle,
    'stroke-width': round(pen.current.lineWidth * scaleOf(pen)),
  });
  return {
    stroke() {
      if (pen.path.length) add(pen, svgElement('path', stroked(pen.path.join(''))));
    },
    fill() {
      if (pen.path.length) add(pen, svgElement('path', { d: pen.path.join(''), fill: pen.current.fillStyle }));
    },
    fillRect(x, y, w, h) {
      add(pen, svgElement('path', { d: rectPath(x, y, w, h), fill: pen.current.fillStyle }));
    },
    strokeRect(x, y, w, h) {
      add(pen, svgElement('path', stroked(rectPath(x, y, w, h))));
    },
    fillText(text, x, y) {
      const { current } = pen;
      const node = textEl(String(text), {
        x: round(x),
        y: round(y),
        fill: current.fillStyle,
        ...fontAttributes(current.font),
        'text-anchor': ALIGN[current.textAlign] ?? 'start',
        'dominant-baseline': BASELINE[current.textBaseline],
      });
      if (current.matrix.some((v, i) => v !== IDENTITY[i]))
        node.setAttribute('transform', `matrix(${current.matrix.map(round).join(' ')})`);
      add(pen, node);
    },
    measureText(text) {
      return measurer(pen.current.font).measureText(text);
    },
  };
}

/** The XML text of a figure, ready to save as an .svg file. */
export function serialize(f) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(f.svg)}`;
}
