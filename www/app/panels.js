// The page's panels: one view a panel (www/views/), each made once on its element and told what
// to do when the person acts in it; and each exportable panel's figure, by its section's data-export.

import { $ } from '../ui/dom.js';
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
import { force, select, showBeamNode, translate } from './actions.js';
import { measureImportance, switchAllOn, toggleHead } from './heads.js';
import { headViewMode, updateLink } from './links.js';
import { pickSnapshot } from './models.js';
import { call, state } from './store.js';

/** A recorded sentence of the timeline, clicked: it goes in the sentence box and is translated. */
function translateSentence(text) {
  $('source-input').value = text;
  translate();
}

/** Every view, by name, and `figures`: each exportable view's vector figure as drawn (or null). */
export function createPanels() {
  const views = {
    tokens: createTokens($('source-tokens'), $('output-tokens')),
    focus: createFocus($('focus-heatmap'), $('hover-value'), $('kind-explain'), { onTranspose: () => updateLink('replace') }),
    modelView: createModelView($('model-view'), { onSelect: (selection) => select(selection), onToggle: (head) => toggleHead(head) }),
    heads: createHeads($('heads'), {
      onMeasure: () => measureImportance(),
      onAllOn: () => switchAllOn(),
      onFocus: (selection) => select(selection),
    }),
    headView: createHeadView($('head-view'), headViewMode),
    stepper: createStepper($('stepper'), (index, id) => force(index, id)),
    stages: createStages($('stages')),
    masks: createMasks($('masks')),
    positional: createPositional($('positional')),
    timeline: createTimeline($('timeline'), { onPick: (index) => pickSnapshot(index), onSentence: translateSentence }),
    compare: createCompare($('compare'), { call }),
    beamTree: createBeamTree($('beam-tree-view'), { onPick: (node) => showBeamNode(node) }),
    rollout: createRollout($('rollout')),
    // One position through one layer (Session.inspect), picked by a token chip or a stepper row.
    journey: createJourney($('journey'), {
      inspect: (args) => call('inspect', args),
      chips: { source: $('source-tokens'), output: $('output-tokens'), stepper: $('stepper') },
    }),
    // Occlusion reruns the model: skipped (null) when a newer sentence is already on its way.
    attribution: createAttribution($('attribution'), {
      fetch: (row) => call('attribution', { row, gen: state.shownGeneration }).then((result) => (result.stale ? null : result)),
    }),
  };
  const exported = {
    heatmap: 'focus',
    'model-view': 'modelView',
    'head-view': 'headView',
    stepper: 'stepper',
    stages: 'stages',
    masks: 'masks',
    positional: 'positional',
    rollout: 'rollout',
    attribution: 'attribution',
    compare: 'compare',
    'beam-tree': 'beamTree',
    timeline: 'timeline',
  };
  views.figures = Object.fromEntries(Object.entries(exported).map(([section, view]) => [section, () => views[view].figure()]));
  return views;
}
