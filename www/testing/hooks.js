// The browser tests' and the benchmark's view into the page, installed only in test mode (`?test`:
// www/boot.js imports this file before the first worker starts). The page itself knows nothing of
// it: what this file learns it hears on the page's bus (www/ui/bus.js) and reads from the
// browser's performance timeline, as any observer could.
//
//   window.__attnscope = { state, call, redraws, workers, trapNewWorkers, events }:
//     state            the page's state (www/app/store.js)
//     call(type, args) a request to the worker in use (test-only ones too: www/testing/worker-hooks.js)
//     redraws          every keystroke-to-redraw the page measured (`redraw: in sight` and
//                      `redraw: everything`, www/app/actions.js): { generation, ms, computeMs,
//                      renderMs, allMs, allRenderMs }, the latest 1000
//     workers()        how many workers the page has started
//     trapNewWorkers(on, count): the next `count` workers trap on their first request of type
//                      `on` (a model that kills every worker it is loaded in)
//     events           what the bus heard, [name, detail] (hovers left out), the latest 1000
//     hovers           the hovers the bus heard, { items, view, cell } or null, the latest 1000
//                      (`from` left out: a view's own token)

import { call, parts, state } from '../app/store.js';
import { listen } from '../ui/bus.js';

const record = {
  redraws: [],
  events: [],
  hovers: [],
  workers: 0, // workers started so far
  trapping: { on: null, count: 0 }, // the next `count` workers trap on their first `on` request
};

const keep = (list, item) => {
  list.push(item);
  if (list.length > 1000) list.shift();
};

// Every redraw the page measures, as one record per keystroke.
new PerformanceObserver((entries) => {
  for (const entry of entries.getEntries()) {
    const { generation, computeMs = null, renderMs } = entry.detail ?? {};
    if (entry.name === 'redraw: in sight') keep(record.redraws, { generation, ms: entry.duration, computeMs, renderMs });
    if (entry.name !== 'redraw: everything') continue;
    const redraw = record.redraws.findLast((r) => r.generation === generation);
    if (redraw) Object.assign(redraw, { allMs: entry.duration, allRenderMs: renderMs });
  }
}).observe({ type: 'measure' });

const RECORDED = ['keystroke', 'answer-shown', 'drawn', 'selection', 'heads-off', 'view-changed', 'model-loaded', 'worker-started'];
// What the person did (www/ui/bus.js lists them): the lesson's events.
RECORDED.push('decoder-step', 'decoding-mode', 'stages-scale', 'journey-pick', 'journey-look', 'positional-look', 'positional-pair');
for (const name of RECORDED) {
  listen(name, (detail) => keep(record.events, [name, plain(name, detail)]));
}

/** An event's detail as data a test can read (a model by its name, a worker not at all). */
function plain(name, detail) {
  if (name === 'model-loaded') return { model: detail.model.name };
  if (name === 'worker-started') return {};
  return detail;
}

listen('hover', (detail) => keep(record.hovers, detail && { items: detail.items, view: detail.view ?? null, cell: detail.cell ?? null }));

// A new worker: the trap it was asked to carry goes to it before any other request.
listen('worker-started', ({ worker }) => {
  record.workers += 1;
  const { on, count } = record.trapping;
  if (!count) return;
  record.trapping.count -= 1;
  parts.client.call('test:trap', { on }, worker).catch(() => {});
});

window.__attnscope = {
  state,
  call,
  redraws: record.redraws,
  events: record.events,
  hovers: record.hovers,
  workers: () => record.workers,
  trapNewWorkers(on, count) {
    record.trapping = { on, count };
  },
};
