// Building DOM elements: the one place the page's views create an element and give it its class,
// text, title, attributes and data-* values.

/**
 * `el(tag, { className, text, title, attrs, data }, ...children)`: a new `tag` element with each
 * option that is given set (`attrs` as attributes, `data` as data-* values), then `children`
 * (elements or strings) appended after its text.
 */
export function el(tag, { className, text, title, attrs, data } = {}, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text != null) node.textContent = text;
  if (title != null) node.title = title;
  for (const [name, value] of Object.entries(attrs ?? {})) node.setAttribute(name, String(value));
  for (const [name, value] of Object.entries(data ?? {})) node.dataset[name] = String(value);
  node.append(...children);
  return node;
}

/** An `<option>` of a select: `value`, shown as `text` (the value itself unless given). */
export const option = (value, text = value) => el('option', { text, attrs: { value } });
