// The lesson's nineteen steps, in the order of the seed articles: the whole model first, then one
// encoder self-attention head (no mask yet), the rest of a layer and the positions, the masks,
// training versus decoding, and the decoder. Each step names the view it is about (`panel`, and
// `focus` inside it), gets the page ready for it (`select`, `pick`: which token, layer and head the
// views show) and reads the numbers its text needs from the model (`params`, which also picks the
// text's `variant`). The words are in www/lesson/texts/, under the step's id; the checks and tasks
// (checks.js, tasks.js) key on the same ids.
//
// ctx: { trace, stages, config, positional, model (its name), journey (the journey view's, at the
// lesson's pick), pick ({ stack, layer, position, head }), fetch (a journey by { stack, layer,
// position }), models (the names the page has), batch (the masks panel's padded batch,
// www/shared/wire.js paddedBatch), decoding ({ mode: 'greedy' | 'sample' | 'beam', temperature,
// topK, seed, width, alpha }: the page's decoding controls) }.
import { ATTENTION_STEPS } from './steps/attention.js';
import { DECODER_STEPS, MASK_STEPS } from './steps/decoder.js';
import { LAYER_STEPS, OVERVIEW_STEPS } from './steps/layer.js';

export const STEPS = [...OVERVIEW_STEPS, ...ATTENTION_STEPS, ...LAYER_STEPS, ...MASK_STEPS, ...DECODER_STEPS];
