// The playground's run settings in the page's link: the fragment field `pg` (www/app/links.js
// keeps it with the page's other fields) holds only what differs from the defaults, as
// `field:value` pairs joined by commas (`pg=positional:none,seed:3`); an open playground with
// the defaults is `pg=`. Settings read from a link are checked by the training module, field by
// field: one it refuses is dropped, named in the panel's message, and its default is used.
import { announce } from '../ui/bus.js';
import { typed } from './switches.js';

/** The fragment field. */
export const LINK_FIELD = 'pg';

/** The `pg` field of `hash` ('#…'), or null where the link has none. */
export function linkSpec(hash) {
  try {
    return new URLSearchParams(String(hash ?? '').replace(/^#/, '')).get(LINK_FIELD);
  } catch {
    return null;
  }
}

/** Whether `hash` asks for the playground (main.js opens it then). */
export const linkOpensPlayground = (hash) => linkSpec(hash) != null;

/** `config`'s fields that differ from `defaults`, as the `pg` field's text. */
export function encodeSpec(config, defaults) {
  return Object.keys(defaults)
    .filter((field) => field in config && config[field] !== defaults[field])
    .map((field) => `${field}:${config[field]}`)
    .join(',');
}

/**
 * The `pg` text → { config: the fields it sets, typed as `defaults` are; problems: [{ field, value }]
 * for a pair that is not `field:value` or a value of the wrong type }. A field the defaults lack
 * stays as text: the module refuses it by name.
 */
export function parseSpec(spec, defaults) {
  const config = {};
  const problems = [];
  for (const part of String(spec ?? '').split(',')) {
    if (!part) continue;
    const cut = part.indexOf(':');
    const field = cut < 0 ? part : part.slice(0, cut);
    const raw = cut < 0 ? '' : part.slice(cut + 1);
    const value = Object.hasOwn(defaults, field) ? typed(raw, defaults[field]) : raw;
    if (cut < 0 || value == null) problems.push({ field, value: raw });
    else config[field] = value;
  }
  return { config, problems };
}

/**
 * The settings a link asks for, checked by `check` (the training client's): { config (whole,
 * checked), refused: [{ field, value, problem? }] }. Each field the module refuses is dropped and
 * the rest checked again, so that every refused field is named, not only the first.
 */
export async function settleLink(spec, defaults, check) {
  const { config, problems } = parseSpec(spec, defaults);
  const refused = [...problems];
  const wanted = { ...config };
  for (let tries = 0; tries <= Object.keys(config).length; tries++) {
    try {
      return { config: await check(wanted), refused };
    } catch (error) {
      const problem = error?.problem;
      const field = problem?.params?.field ?? unknownField(problem, wanted);
      if (!field || !Object.hasOwn(wanted, field)) {
        // Nothing to drop: the link's settings as a whole are refused.
        refused.push({ field: null, value: spec, problem });
        return { config: await check({}), refused };
      }
      refused.push({ field, value: String(wanted[field]), problem });
      delete wanted[field];
    }
  }
  return { config: await check({}), refused };
}

/** The field a parse error names (serde: "unknown field `colour`, expected …"), if one of `wanted`'s. */
function unknownField(problem, wanted) {
  const named = /`(\w+)`/.exec(problem?.params?.message ?? '')?.[1];
  return named && Object.hasOwn(wanted, named) ? named : null;
}

/** The run's settings go into the link: app/links.js listens ('playground-link', { spec }). */
export function writeLink(config, defaults) {
  announce('playground-link', { spec: config ? encodeSpec(config, defaults) : null });
}
