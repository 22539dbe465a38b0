// What the learner does at each step, keyed by the step's id. The step lights `control` (a
// selector on the page) and completes when the page announces `event` on its bus (www/ui/bus.js)
// with a detail that `done(detail, ctx, started)` accepts: the lesson hears what was done, it
// does not reach into the modules that did it. `started` is what the page showed when the step
// opened ({ selection, pick, rows }), for tasks that ask for a change.
//
// The instruction's words are in www/lesson/quiz-texts.js, under `task.<step id>`.

const focusHover = (detail) => detail?.view === 'focus-heatmap' && detail.cell != null;

export const TASKS = {
  overview: { control: '#source-input', event: 'keystroke', done: () => true },
  qkv: {
    control: '#journey-token',
    event: 'journey-pick',
    done: (d, _ctx, started) => d.position !== started.pick?.position || d.stack !== started.pick?.stack,
  },
  dot: {
    control: '#focus-heatmap',
    event: 'hover',
    select: true,
    done: (d, ctx) => focusHover(d) && d.cell.row === ctx.pick.position,
  },
  softmax: { control: '#focus-heatmap', event: 'hover', select: true, done: focusHover },
  weighted: {
    control: '#journey-panel .j-block[data-part=selfAttention] canvas.j-contributions',
    event: 'journey-look',
    done: (d) => d.block === 'selfAttention' && d.vector === 'contributions',
  },
  heads: {
    control: '#head-select',
    event: 'selection',
    done: (d, _ctx, started) => d.head !== started.selection?.head,
  },
  matrix: { control: '#focus-heatmap', event: 'hover', select: true, done: focusHover },
  scale: { control: '.stages-scale', event: 'stages-scale', done: (d) => d.scaled === false },
  norm: {
    control: '#journey-layer',
    event: 'journey-pick',
    done: (d, _ctx, started) => d.layer !== started.pick?.layer,
  },
  ffn: {
    control: '#journey-panel .j-block[data-part=feedForward]',
    event: 'journey-look',
    done: (d) => d.block === 'feedForward' && d.vector === 'hidden',
  },
  positional: { control: '#positional canvas', event: 'positional-look', done: () => true },
  sinusoids: { control: '#positional .positional-pair', event: 'positional-pair', done: () => true },
  placement: {
    control: '#journey-panel .j-block[data-part=selfAttention]',
    event: 'journey-look',
    done: (d) => d.vector === 'normed-input' || d.vector === 'normed',
  },
  padding: { control: '#mask-padding', event: 'hover', done: (d) => d?.view === 'mask-padding' && d.cell != null },
  causal: {
    control: '#mask-causal',
    event: 'hover',
    done: (d) => d?.view === 'mask-causal' && d.cell != null && d.cell.col > d.cell.row,
  },
  teacher: { control: '#prefix-button', event: 'decoder-step', done: (d) => d.operation === 'prefix' || d.operation === 'force' },
  decoderBlock: { control: '#journey-stack', event: 'journey-pick', done: (d) => d.stack === 'decoder' },
  cross: { control: '#step-forward', event: 'decoder-step', done: (d) => d.operation === 'step' },
  decoding: { control: '#model-view', event: 'heads-off', done: (d) => d.spec !== '' },
};

/** Whether step `id`'s task can be done for `ctx` (every task can, today). */
export function taskApplies(id, _ctx) {
  return id in TASKS;
}
