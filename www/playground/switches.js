// The playground's switches: one control per setting of a run (PlaygroundConfig, camelCase as the
// training module's facts give its defaults), each with a one-line explanation. Values are read
// back with the defaults' types; the training module checks them (`check`) before a run starts.
import { el, option, optionT } from '../ui/dom.js';

/**
 * Each setting: its field, how it is chosen (a select of `choices`, or a number input), and the
 * keys of its option texts where they are words (`playground.WORDS.value`). The facts give the
 * tasks and the limits; the model's own options (positional encodings, norms, heads, layers)
 * are the module's ranges, which `check` enforces.
 */
const SETTINGS = [
  { field: 'task', choices: (facts) => facts.tasks.map((task) => task.name), words: 'taskName' },
  { field: 'positional', choices: () => ['sinusoidal', 'learned', 'none'], words: 'positionalName' },
  { field: 'scaledAttention', choices: () => [true, false], words: 'onOff' },
  { field: 'causalDecoder', choices: () => [true, false], words: 'onOff' },
  { field: 'normalisation', choices: () => ['post', 'pre', 'none'], words: 'normName' },
  { field: 'heads', choices: () => [1, 2, 4] },
  { field: 'layers', choices: () => [1, 2] },
  { field: 'dModel', number: () => ({ min: 16, max: 64, step: 4 }) },
  { field: 'learningRate', number: (facts) => ({ min: 0, max: facts.maxLearningRate, step: 'any' }) },
  { field: 'warmup', number: (facts) => ({ min: 0, max: facts.maxSteps, step: 1 }) },
  { field: 'batchSize', number: (facts) => ({ min: 1, max: facts.maxBatch, step: 1 }) },
  { field: 'seed', number: (facts) => ({ min: 0, max: facts.maxSeed, step: 1 }) },
  { field: 'steps', number: (facts) => ({ min: 1, max: facts.maxSteps, step: 1 }) },
];

/** The fields a run's settings have, in the order the panel shows them. */
export const FIELDS = SETTINGS.map((setting) => setting.field);

/** `raw` (a control's text) as a value of the type `fallback` has; null when it is not one. */
export function typed(raw, fallback) {
  if (typeof fallback === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : null;
  if (typeof fallback === 'number') {
    const text = String(raw).trim();
    return /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : null;
  }
  return String(raw);
}

/** The control of `setting`: a select or a number input, with its id. */
function control(setting, facts) {
  const id = `playground-${setting.field}`;
  if (setting.number) {
    const { min, max, step } = setting.number(facts);
    return el('input', { attrs: { id, type: 'number', min, max, step, inputmode: 'decimal' }, data: { field: setting.field } });
  }
  const select = el('select', { attrs: { id }, data: { field: setting.field } });
  for (const value of setting.choices(facts)) {
    const key = setting.words && `playground.${setting.words}.${value}`;
    select.append(key ? optionT(String(value), key) : option(String(value)));
  }
  return select;
}

/**
 * The switches, built into `container` from `facts` and showing `facts.defaults`. `onChange(field)`
 * is called when the learner changes one. Returns { values(): the settings shown, show(config),
 * input(field): the control of `field`, setDisabled(flag) }.
 */
export function createSwitches(container, facts, { onChange }) {
  const inputs = new Map();
  for (const setting of SETTINGS) {
    const input = control(setting, facts);
    inputs.set(setting.field, input);
    input.addEventListener('change', () => onChange(setting.field));
    const key = `playground.switch.${setting.field}`;
    container.append(
      el(
        'div',
        { className: 'playground-switch', data: { field: setting.field } },
        el('label', { attrs: { for: input.id }, i18n: key }),
        input,
        el('p', { className: 'switch-explain', i18n: `${key}.explain` }),
      ),
    );
  }

  const show = (config) => {
    for (const [field, input] of inputs) if (field in config) input.value = String(config[field]);
  };
  show(facts.defaults);

  return {
    /** The settings shown, typed as the defaults are (a field that cannot be read keeps its text). */
    values() {
      const config = {};
      for (const [field, input] of inputs) config[field] = typed(input.value, facts.defaults[field]) ?? input.value;
      return config;
    },
    show,
    input: (field) => inputs.get(field),
    setDisabled(flag) {
      for (const input of inputs.values()) input.disabled = flag;
    },
  };
}
