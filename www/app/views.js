// The page's views, one line each: the registry that app/main.js makes them from, app/render.js
// draws them from, and app/saved.js exports them from. A view is a file in www/views/ that makes
// its drawing in one element and draws what it is given (STYLE.md §9, §16); what it does when the
// person acts in it is one of the page's actions, handed to it here (`act`, built by app/main.js),
// so this file imports no action.
//
// An entry: { name, panel, make, draw?, tasks?, refresh?, label?, live?, exportAs? }
//   name      the view's name in parts.views
//   panel     the id of the element it draws in; a panel (a section with a title) is made for it
//             at the end of the page when index.html has none (app/views.js `panelFor`)
//   make      (element, act) → the view
//   draw      (view, state, views) → slices or nothing: drawn with every answer, in a task of its own
//             (the views in sight first), as the user-timing measure `render: <label>`
//   tasks     (view, state) → [[label, draw]]: in place of `draw`, for a view drawn in several tasks
//   refresh   (view, state): drawn again from the state outside an answer: when its part of the
//             state changes (app/render.js `refresh`) and when the language does
//   live      true: it asks the model again, so a saved trace (which has none) does not draw it
//   exportAs  its name in exported files and its section's data-export: PNG and SVG buttons save
//             `view.figure()`
// tokens and focus have no `draw`: app/render.js draws them at once, with the selectors.

import { $, el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { isSummaryHead } from '../views/attention.js';
import { createAttribution } from '../views/attribution.js';
import { createBeamTree } from '../views/beamtree.js';
import { createCompare } from '../views/compare.js';
import { createFocus } from '../views/focus.js';
import { createHeads } from '../views/heads.js';
import { createHeadView } from '../views/headview.js';
import { createJourney } from '../views/journey.js';
import { createMasks } from '../views/masks.js';
import { createModelView } from '../views/modelview.js';
import { createPositional } from '../views/positional.js';
import { createRollout } from '../views/rollout.js';
import { createStages } from '../views/stages.js';
import { createStepper } from '../views/stepper.js';
import { createTimeline } from '../views/timeline.js';
import { createTokens } from '../views/tokens.js';
import { headViewMode } from './controls.js';
import { measurable, specialIds } from './store.js';

export const VIEWS = [
  { name: 'tokens', panel: 'source-tokens', make: () => createTokens($('source-tokens'), $('output-tokens')) },
  {
    name: 'focus',
    panel: 'focus-heatmap',
    exportAs: 'heatmap',
    make: (element, act) => createFocus(element, $('hover-value'), $('kind-explain'), { onTranspose: act.viewChanged }),
  },
  {
    name: 'modelView',
    panel: 'model-view',
    exportAs: 'model-view',
    make: (element, act) => createModelView(element, { onSelect: act.select, onToggle: act.toggleHead }),
    tasks: (view, s) =>
      s.facts.kinds.map((kind) => [
        `model view: ${kind}`,
        () => view.renderKind(s.trace, s.selection, kind, s.hideSinks ? specialIds() : null, s.analysis),
      ]),
  },
  {
    name: 'heads',
    panel: 'heads',
    make: (element, act) => createHeads(element, { onMeasure: act.measureImportance, onAllOn: act.switchAllOn, onFocus: act.select }),
    draw: drawHeads,
  },
  {
    name: 'headView',
    panel: 'head-view',
    label: 'head view',
    exportAs: 'head-view',
    make: (element) => createHeadView(element, headViewMode),
    draw: (view, s) => view.render(s.trace, s.selection, s.analysis),
  },
  {
    name: 'stepper',
    panel: 'stepper',
    exportAs: 'stepper',
    make: (element, act) => createStepper(element, act.force),
    draw: (view, s) => view.render(s.trace, s.selection, s.analysis),
  },
  {
    name: 'stages',
    panel: 'stages',
    exportAs: 'stages',
    make: createStages,
    draw: (view, s) => view.render(s.stages, s.trace, stagesMissing(s)),
  },
  {
    name: 'masks',
    panel: 'masks',
    exportAs: 'masks',
    make: createMasks,
    draw: (view, s) => view.renderCausal(s.trace),
    refresh: (view, s) => s.batch && view.renderBatch(s.batch),
  },
  { name: 'rollout', panel: 'rollout', exportAs: 'rollout', make: createRollout, draw: (view, s) => view.render(s.trace, s.analysis) },
  {
    name: 'attribution',
    panel: 'attribution',
    exportAs: 'attribution',
    live: true,
    // Occlusion reruns the model: skipped (null) when a newer sentence is already on its way.
    make: (element, act) =>
      createAttribution(element, {
        fetch: (row) => act.call('attribution', { row, gen: act.shownGeneration() }).then((r) => (r.stale ? null : r)),
      }),
    draw: (view, s) => view.render(s.trace),
    refresh: (view) => view.relabel(),
  },
  {
    name: 'compare',
    panel: 'compare',
    label: 'comparison',
    exportAs: 'compare',
    live: true,
    make: (element, act) => createCompare(element, { call: act.call }),
    // The page's sentence, model and snapshot as they are when the comparison is drawn.
    draw: (view, s) =>
      view.render(s.trace, s.selection, {
        text: $('source-input').value,
        model: s.model?.name,
        snapshot: s.snapshot,
        off: s.ablation.spec,
      }),
    refresh: (view, s) => view.setOff(s.ablation.spec),
  },
  {
    name: 'journey',
    panel: 'journey',
    live: true,
    // One position through one layer (Session.inspect), picked by a token chip or a stepper row.
    make: (element, act) =>
      createJourney(element, {
        inspect: (args) => act.call('inspect', args),
        chips: { source: $('source-tokens'), output: $('output-tokens'), stepper: $('stepper') },
      }),
    draw: (view, s) => view.render(s.trace, s.config),
  },
  {
    name: 'positional',
    panel: 'positional',
    exportAs: 'positional',
    make: createPositional,
    refresh: (view, s) => s.positional && view.render(s.positional),
  },
  {
    name: 'timeline',
    panel: 'timeline',
    exportAs: 'timeline',
    make: (element, act) => createTimeline(element, { onPick: act.pickSnapshot, onSentence: act.translateSentence }),
    refresh: (view, s) => (s.timeline ? view.render(s.timeline, s.snapshot) : view.clear()),
  },
  {
    name: 'beamTree',
    panel: 'beam-tree-view',
    exportAs: 'beam-tree',
    make: (element, act) => createBeamTree(element, { onPick: act.showBeamNode }),
    refresh: (view, s) => {
      if (!s.beam) return view.clear();
      view.render(s.beam);
      view.highlight(s.beamNode);
    },
  },
];

/** Every view, by name, made on its panel's element with the page's actions `act`. */
export function createViews(act) {
  return Object.fromEntries(VIEWS.map((entry) => [entry.name, entry.make(panelFor(entry), act)]));
}

/** The registry's entry of view `name`. */
export const entryOf = (name) => VIEWS.find((entry) => entry.name === name);

/**
 * The element a view draws in: index.html's, or a new panel at the end of the page, titled and
 * explained by the i18n keys `<name>.title` and `<name>.explain` where they exist.
 */
function panelFor({ name, panel }) {
  const element = $(panel);
  if (element) return element;
  const has = (key) => t(key) !== key;
  const section = el(
    'section',
    { className: 'panel', i18nLabel: has(`${name}.label`) ? `${name}.label` : undefined },
    el('h2', { i18n: has(`${name}.title`) ? `${name}.title` : undefined, text: name }),
    ...(has(`${name}.explain`) ? [el('p', { className: 'explain', i18n: `${name}.explain` })] : []),
    el('div', { attrs: { id: panel } }),
  );
  document.querySelector('main').append(section);
  return $(panel);
}

/** The Heads panel and the model view's marks, as the state says. */
function drawHeads(view, s, views) {
  const { headStudy: study, ablation, importance, headsBusy: busy } = s;
  view.render({ study, ablation, importance, busy, live: measurable(), saved: Boolean(s.saved) });
  views.modelView.mark({ off: ablation.heads, importance, study });
}

/** Why the stages view shows no stages for the selection, or '' when it shows them. */
function stagesMissing(s) {
  const { selection } = s;
  if (isSummaryHead(selection.head)) return t('stages.summaryHasNone');
  const saved = s.saved?.stages;
  if (s.saved && !s.stages && saved) return t('saved.otherStages', { kind: t(`kind.${saved.kind}`), layer: saved.layer, head: saved.head });
  if (s.recorded != null && !s.stages) {
    const head = s.facts.defaultFocus;
    return t('timeline.recordedStages', { step: s.recorded, kind: t(`kind.${head.kind}`), layer: head.layer, head: head.head });
  }
  return '';
}
