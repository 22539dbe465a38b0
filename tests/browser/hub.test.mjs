// Issue 27: a Hugging Face MarianMT folder opened as the hub gives it, with no CLI. The folder is
// tests/fixtures/marian/en_zh_swish_tied/hf (made with transformers) as a person downloads it:
// with pytorch_model.bin (tests/fixtures/hub, torch.save's zip) or model.safetensors, and
// generation_config.json's max_length 21. Opened by the folder picker and by a drop, it gives
// transformers' tokens, output (with the </s> transformers forces at the limit) and every
// attention weight (≤ 1e-4); its target-language codes make a menu; a pickle that would run
// code, and a folder missing a file, get their exact messages while the model on screen works.

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ARTIFACTS, launchChromium, servePage, shownOutput, traceStacks, typeSettled, waitMessage, worstDifference } from './harness.mjs';
import { openModel, openRecordingPage } from './long-tasks.mjs';

const site = servePage();
const ROOT = new URL('../../', import.meta.url).pathname;
const HF = join(ROOT, 'tests/fixtures/marian/en_zh_swish_tied/hf');
const HUB = join(ROOT, 'tests/fixtures/hub');
const EXPECTED = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/marian/en_zh_swish_tied/expected.json'), 'utf8'));
const GENERATE = JSON.parse(readFileSync(join(HUB, 'generate.json'), 'utf8'));
const HF_FILES = ['config.json', 'source.spm', 'target.spm', 'vocab.json', 'tokenizer_config.json', 'special_tokens_map.json'];
const NAME = 'opus-mt-tiny-en-zh';

let root = null;

/** A downloaded folder in `dir`/opus-mt-tiny-en-zh: hf/'s files, hub's generation config, `weights`; `change(dir)` may edit it. */
function download(dir, weights, change = () => {}) {
  const folder = join(root, dir, NAME);
  mkdirSync(folder, { recursive: true });
  for (const name of HF_FILES) copyFileSync(join(HF, name), join(folder, name));
  copyFileSync(join(HUB, 'generation_config.json'), join(folder, 'generation_config.json'));
  copyFileSync(join(weights === 'pytorch_model.bin' ? HUB : HF, weights), join(folder, weights));
  change(folder);
  return folder;
}

before(() => {
  root = mkdtempSync(join(tmpdir(), 'attnscope-hub-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

/** The page shows transformers' ids, output and attention for fixture case `n`. */
async function matchesTransformers(page, n) {
  const expected = EXPECTED.cases[n];
  assert.equal(GENERATE.cases[n].text, expected.text);
  assert.equal(await page.locator('#source-input').inputValue(), expected.text);
  assert.equal(await shownOutput(page), GENERATE.cases[n].generated_text);
  const trace = await traceStacks(page);
  assert.deepEqual(trace.srcIds, expected.input_ids);
  assert.deepEqual(trace.tgtIds, GENERATE.cases[n].generated_ids, 'transformers generate() with the folder’s generation_config.json');
  assert.deepEqual([trace.decoder.queries, trace.cross.keys], [expected.generated_ids.length - 1, expected.input_ids.length]);
  for (const [name, stack, reference] of [
    ['encoder', trace.encoder, expected.encoder_attentions],
    ['decoder', trace.decoder, expected.decoder_attentions],
    ['cross', trace.cross, expected.cross_attentions],
  ]) {
    const most = worstDifference(stack, reference);
    assert.ok(most <= 1e-4, `${name} attention differs from transformers by up to ${most}`);
  }
}

const menu = (page) => page.locator('#target-language-select option').evaluateAll((list) => list.map((o) => [o.value, o.textContent]));

test('a downloaded folder with pytorch_model.bin, by the folder picker: transformers’ output and attention, and a target-language menu', {
  timeout: 120_000,
}, async () => {
  const folder = download('bin', 'pytorch_model.bin');
  const browser = await launchChromium();
  try {
    const { page, errors } = await openRecordingPage(browser, site.origin);
    const phases = [];
    await page.exposeFunction('__notePhase', (text) => phases.push(text));
    await page.evaluate(() => {
      new MutationObserver(() => window.__notePhase(document.getElementById('progress-text').textContent)).observe(
        document.getElementById('progress-text'),
        { childList: true, characterData: true, subtree: true },
      );
    });
    await openModel(page, { folder }, NAME);
    // Case 0 is the model's example: it runs to max_length 21, where transformers forced </s>.
    await matchesTransformers(page, 0);
    assert.equal(GENERATE.cases[0].generated_ids.length, 21);
    assert.ok(
      phases.some((p) => p.startsWith(`Loading ${NAME}/pytorch_model.bin…`)),
      phases.join(' | '),
    );
    const converting = phases.indexOf(`Converting ${NAME} (Hugging Face MarianMT) for attnscope…`);
    assert.ok(converting >= 0, phases.join(' | '));
    assert.ok(phases.indexOf(`Building ${NAME} from its files…`) > converting, phases.join(' | '));
    assert.equal(await page.locator('#message').textContent(), '');

    // The codes of the vocabulary, named where the browser knows the language, the text's one chosen.
    assert.equal(await page.locator('#target-language-row').isVisible(), true);
    assert.deepEqual(await menu(page), [
      ['>>cmn_Hans<<', 'Simplified Chinese · cmn_Hans'],
      ['>>cmn_Hant<<', 'Traditional Chinese · cmn_Hant'],
      ['>>yue_Hans<<', 'Cantonese (Simplified) · yue_Hans'],
    ]);
    assert.equal(await page.locator('#target-language-select').inputValue(), '>>cmn_Hans<<');
    await page.locator('section[data-export="heatmap"]').screenshot({ path: `${ARTIFACTS}screenshots/hub-folder.png` });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${ARTIFACTS}screenshots/hub-folder-page.png` });

    // Picking Cantonese rewrites the code at the start of the text and translates.
    await page.selectOption('#target-language-select', '>>yue_Hans<<');
    await page.waitForFunction(() => document.body.dataset.ready === 'true' && window.__attnscope.state.trace?.srcIds?.[0] === 4);
    assert.equal(await page.locator('#source-input').inputValue(), '>>yue_Hans<< I love eating apples.');
    // Typing another case's text (with its code) moves the menu back to that code.
    await typeSettled(page, EXPECTED.cases[1].text);
    assert.equal(await page.locator('#target-language-select').inputValue(), '>>cmn_Hans<<');
    await matchesTransformers(page, 1);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('dropped with model.safetensors; a pickle that would run code and a missing file are refused, the model on screen keeps working', {
  timeout: 120_000,
}, async () => {
  const browser = await launchChromium();
  try {
    const { page, errors } = await openRecordingPage(browser, site.origin);
    // A drop of the downloaded files (made in the page, as a drag from the desktop brings them).
    const files = Object.fromEntries(
      [...HF_FILES, 'generation_config.json', 'model.safetensors'].map((name) => [
        name,
        readFileSync(join(name === 'generation_config.json' ? HUB : HF, name)).toString('base64'),
      ]),
    );
    await page.evaluate((encoded) => {
      const transfer = new DataTransfer();
      for (const [name, base64] of Object.entries(encoded))
        transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, files);
    await page.waitForFunction(() => document.body.dataset.model?.startsWith('local:') && document.body.dataset.ready === 'true', null, {
      timeout: 60_000,
    });
    await typeSettled(page, EXPECTED.cases[2].text);
    await matchesTransformers(page, 2);

    // pytorch_model.bin holding Python's own pickle of os.system: refused, naming the call.
    const evil = download('evil', 'pytorch_model.bin', (dir) =>
      copyFileSync(join(ROOT, 'tests/fixtures/pickle/reduce_os_system.bin'), join(dir, 'pytorch_model.bin')),
    );
    await page.setInputFiles('#model-folder', evil);
    await waitMessage(page, /^Could not open the model folder/);
    const refusal = await page.locator('#message').textContent();
    assert.match(refusal, new RegExp(`^Could not open the model folder “${NAME}”: .*posix\\.system`));
    // A folder without vocab.json: what is missing, and what a Hugging Face folder holds.
    const partial = download('partial', 'model.safetensors', (dir) => rmSync(join(dir, 'vocab.json')));
    await page.setInputFiles('#model-folder', partial);
    await waitMessage(page, /vocab\.json not found/);
    assert.equal(
      await page.locator('#message').textContent(),
      `Could not open the model folder “${NAME}”: vocab.json not found: a Hugging Face MarianMT folder has config.json, source.spm, target.spm, vocab.json and its weights (model.safetensors or pytorch_model.bin)`,
    );
    // The dropped model still translates.
    await typeSettled(page, EXPECTED.cases[1].text);
    await matchesTransformers(page, 1);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
