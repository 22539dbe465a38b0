// The target-language menu of a multi-target model (a Marian vocabulary with `>>xxx<<` tokens,
// such as opus-mt-en-zh's `>>cmn_Hans<<`): the model writes the language whose code starts the
// text, so picking one puts its code at the start of the sentence (replacing the code there), and
// typing a code moves the menu to it. Models without codes hide the menu. It follows each model
// loaded (the bus's `model-loaded`).
import { listen } from '../ui/bus.js';
import { $, option } from '../ui/dom.js';
import { language, t } from '../ui/i18n.js';
import { translate } from './actions.js';

/** A leading `>>code<<` (after any spaces), as the tokenizer reads one. */
const LEADING_CODE = /^\s*(>>[^<>\s]+<<)\s*/;

/** The code that starts `text`, or null. */
export const leadingCode = (text) => text.match(LEADING_CODE)?.[1] ?? null;

/** `text` with `code` at its start, in place of the code it had. */
export const withCode = (text, code) => `${code} ${text.replace(LEADING_CODE, '')}`;

/** `>>cmn_Hans<<` as people say it: "Chinese, Mandarin (Simplified) · cmn_Hans" where the browser knows the language. */
export function codeName(code, lang = language()) {
  const bare = code.slice(2, -2);
  try {
    const names = new Intl.DisplayNames([lang], { type: 'language', fallback: 'none' });
    const name = names.of(bare.replace(/_/g, '-'));
    return name ? `${name} · ${bare}` : bare;
  } catch {
    return bare; // not a tag the browser can name (e.g. a made-up code)
  }
}

/** Show the model's codes (init's `languages`) in the menu, following the text's code; hide it without any. */
function languagesForModel(codes = []) {
  const menu = $('target-language-select');
  menu.replaceChildren(...codes.map((code) => option(code, codeName(code))));
  $('target-language-row').hidden = codes.length === 0;
  followText();
}

listen('model-loaded', ({ info }) => languagesForModel(info.languages));

/** Move the menu to the code that starts the text (or to none, when the text has none). */
export function followText() {
  const menu = $('target-language-select');
  const code = leadingCode($('source-input').value);
  menu.value = code && [...menu.options].some((o) => o.value === code) ? code : '';
  menu.title = menu.value ? '' : t('targetLanguage.none');
}

/** Wire the menu: a pick rewrites the text's code and translates. */
export function wireLanguages() {
  $('target-language-select').addEventListener('change', (event) => {
    const input = $('source-input');
    input.value = withCode(input.value, event.target.value);
    translate();
  });
  $('source-input').addEventListener('input', followText);
}
