// "Open model…": a model folder from the computer, opened by the multi-file picker (with the
// keyboard), by the folder picker and by a drop. It joins the model selector, translates, and
// stays switchable; a broken folder gets its exact message while the model on screen keeps
// working; a link to a local model says that a fresh page cannot load it. The folders are made
// here from models/date-iso (a real model), renamed so that it is told apart from the shipped one.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import { ARTIFACTS, servePage, shownOutput, typeSettled, waitMessage, waitReady, withBrowser } from './harness.mjs';

const site = servePage();
const DATE_ISO = new URL('../../models/date-iso/', import.meta.url).pathname;
const MODEL_FILES = ['config.json', 'model.safetensors', 'src_tokenizer.json', 'tgt_tokenizer.json'];
const SHIPPED = ['date-iso', 'en-zh', 'zh-en'].map((name) => [name, name]); // the selector's options: [value, text]
const ALL_FOUR = 'config.json, model.safetensors, src_tokenizer.json, and tgt_tokenizer.json';

let root = null;

/** A folder's about.json: its description in two languages, a credit with a link and one whose "link" is script. */
const ABOUT = {
  description: { en: 'My dates, trained at home', 'zh-CN': '我在家训练的日期模型' },
  credits: [
    { en: 'Dates I wrote, CC0', 'zh-CN': '我写的日期，CC0', url: 'https://example.org/dates' },
    { en: 'A script', 'zh-CN': '一段脚本', url: 'javascript:alert(1)' },
  ],
};
const folder = (name) => join(root, name);

/** A copy of date-iso in `name`/, named `modelName`; `change(files)` may edit, drop or add files first. */
function makeFolder(name, modelName, change = () => {}) {
  const files = Object.fromEntries(MODEL_FILES.map((file) => [file, readFileSync(join(DATE_ISO, file))]));
  const config = JSON.parse(files['config.json']);
  config.name = modelName;
  files['config.json'] = Buffer.from(JSON.stringify(config, null, 1));
  change(files, config);
  mkdirSync(folder(name));
  for (const [file, bytes] of Object.entries(files)) {
    mkdirSync(join(folder(name), file, '..'), { recursive: true });
    writeFileSync(join(folder(name), file), bytes);
  }
}

before(() => {
  root = mkdtempSync(join(tmpdir(), 'attnscope-open-model-'));
  // A good folder also holds what a training run leaves beside a model: ignored.
  const withExtras = (files) => {
    files['timeline.json'] = readFileSync(join(DATE_ISO, 'timeline.json'));
    files['checkpoints/config.json'] = Buffer.from('not the model: a subfolder is not read');
  };
  makeFolder('good', 'my-dates', withExtras);
  makeFolder('edited-later', 'my-dates', withExtras);
  makeFolder('truncated', 'my-dates', (files) => {
    files['model.safetensors'] = files['model.safetensors'].subarray(0, files['model.safetensors'].length >> 1);
  });
  makeFolder('missing-tgt', 'my-dates', (files) => {
    delete files['tgt_tokenizer.json'];
  });
  makeFolder('not-json', 'my-dates', (files) => {
    files['config.json'] = Buffer.from('name = "my-dates"\n');
  });
  makeFolder('with-about', 'my-dates', (files) => {
    files['about.json'] = Buffer.from(JSON.stringify(ABOUT));
  });
  makeFolder('bad-about', 'my-dates', (files) => {
    files['about.json'] = Buffer.from('{ "description": ');
  });
  // Too big for a wasm32 module: refused from config.json and the weights file's size alone.
  makeFolder('too-big', 'my-dates', (files, config) => {
    const huge = { d_model: 4096, n_heads: 32, d_ff: 16384, n_encoder_layers: 24, n_decoder_layers: 24 };
    files['config.json'] = Buffer.from(JSON.stringify({ ...config, ...huge }));
  });
  makeFolder('wrong-shape', 'my-dates', (files, config) => {
    files['config.json'] = Buffer.from(JSON.stringify({ ...config, d_ff: 128 }));
  });
});
after(() => rmSync(root, { recursive: true, force: true }));

/** A page of `browser` at the page's default model (en-zh) on the CPU, ready; `options` for its context. */
async function openPage(browser, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1, ...options });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${site.origin}/?test&backend=cpu`);
  await waitReady(page);
  return { context, page, errors };
}

/** Wait until `model` is on screen and every view shows `output`. */
function waitShows(page, model, output) {
  return page.waitForFunction(
    ([m, o]) => {
      const s = window.__attnscope.state;
      const body = document.body.dataset;
      return body.model === m && body.output === o && body.ready === 'true' && s.shownGeneration === s.generation;
    },
    [model, output],
    { timeout: 60_000 },
  );
}

/** Type `text` and check the exact output. */
async function translatesTo(page, text, output) {
  await typeSettled(page, text);
  assert.equal(await shownOutput(page), output, `“${text}”`);
}

const options = (page) => page.locator('#model-select option').evaluateAll((list) => list.map((o) => [o.value, o.textContent]));
const message = (page) => page.locator('#message').textContent();
const heatmapAxes = (page) =>
  page.evaluate(() => ({
    rows: [...document.querySelectorAll('#focus-heatmap .row-labels span')].map((s) => s.textContent),
    cols: [...document.querySelectorAll('#focus-heatmap .col-labels span')].map((s) => s.textContent),
  }));

test(
  'the multi-file picker, with the keyboard: the model joins the selector, translates, and switching works both ways',
  {
    timeout: 120_000,
  },
  () =>
    withBrowser(async (browser) => {
      const { context, page, errors } = await openPage(browser);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.origin });
      // Tab from the model selector to "Open model…", Enter: the file chooser takes several files
      // (a timeline beside them is ignored).
      // Listening first: Playwright intercepts the chooser only once it has told the browser to.
      const choosing = page.waitForEvent('filechooser');
      await page.locator('#model-select').focus();
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement.id), 'open-model');
      await page.keyboard.press('Enter');
      const chooser = await choosing;
      assert.equal(chooser.isMultiple(), true);
      await chooser.setFiles([...MODEL_FILES, 'timeline.json'].map((file) => join(folder('good'), file)));
      // The config's example, translated by the local model.
      await waitShows(page, 'local:my-dates', '1958-08-29');
      assert.deepEqual(await options(page), [...SHIPPED, ['local:my-dates', 'my-dates (local)']]);
      assert.equal(await page.locator('#model-select').inputValue(), 'local:my-dates');
      assert.equal(await page.locator('#source-input').inputValue(), 'Friday, the 29th of August 1958');
      assert.equal(
        await page.locator('#model-description').textContent(),
        'Opened from this computer; nothing was uploaded. Human-readable dates → ISO 8601 (YYYY-MM-DD), character level',
      );
      assert.equal(await page.locator('#loading').isHidden(), true);
      assert.equal(await page.locator('#timeline-panel').isHidden(), true, 'a local model has no timeline');
      await translatesTo(page, 'the first of January 2000', '2000-01-01');
      // The heatmap (cross-attention, layer 0, head 0) has the local model's tokens on its axes:
      // date-iso's characters, not en-zh's subwords; its model view has 2 layers of each kind, with
      // 4 heads and their mean and max (en-zh has 3 layers).
      assert.deepEqual(await heatmapAxes(page), {
        rows: ['2', '0', '0', '0', '-', '0', '1', '-', '0', '1', '</s>'],
        cols: [...'the␣first␣of␣January␣2000', '</s>'],
      });
      assert.equal(await page.locator('#model-view button.thumb').count(), 3 * 2 * (4 + 2));
      await page.screenshot({ path: `${ARTIFACTS}screenshots/open-model-local.png` });

      // The link names the local model; copying it says that it cannot carry the model.
      assert.match(await page.evaluate(() => location.hash), /^#m=local%3Amy-dates&t=the\+first\+of\+January\+2000&/);
      await page.click('#copy-link');
      await waitMessage(page, /^Link copied\./);
      assert.equal(
        await message(page),
        'Link copied. It holds the sentence and the settings, but not the model “my-dates (local)”: a model opened from this computer stays on it. Whoever opens the link sees the default model, and is told why.',
      );
      const link = page.url();

      // Away to a shipped model and back again.
      await page.selectOption('#model-select', 'en-zh');
      await waitShows(page, 'en-zh', '我爱吃苹果。');
      await translatesTo(page, 'My father likes drinking tea.', '我父亲喜欢喝茶。');
      await page.selectOption('#model-select', 'local:my-dates');
      await waitShows(page, 'local:my-dates', '1958-08-29');
      await translatesTo(page, 'the first of January 2000', '2000-01-01');
      assert.deepEqual((await heatmapAxes(page)).cols, [...'the␣first␣of␣January␣2000', '</s>']);

      // In Chinese: the option and the description follow the language.
      await page.selectOption('#language-select', 'zh-CN');
      assert.deepEqual((await options(page)).at(-1), ['local:my-dates', 'my-dates（本地）']);
      assert.match(await page.locator('#model-description').textContent(), /^从本机打开，未上传任何内容。 Human-readable dates/);
      await page.screenshot({ path: `${ARTIFACTS}screenshots/open-model-local-zh.png` });

      // A fresh page cannot load the model the link names: it says so and shows the default model.
      const fresh = await browser.newPage();
      await fresh.goto(link);
      await waitShows(fresh, 'en-zh', '我爱吃苹果。');
      assert.equal(await fresh.locator('#model-select').inputValue(), 'en-zh');
      assert.equal(await fresh.locator('#source-input').inputValue(), 'I love eating apples.');
      assert.equal(
        await message(fresh),
        "Parts of the link could not be used, so their defaults are shown: the model “my-dates” was opened from someone's computer, " +
          "and a link cannot carry a model's files (open its folder with “Open model…” to see it).",
      );
      assert.deepEqual(errors, []);
    }),
);

test(
  'the folder picker reads the four files directly inside the folder, with progress; a drop of files works too',
  {
    timeout: 120_000,
  },
  () =>
    withBrowser(async (browser) => {
      const { page, errors } = await openPage(browser);
      // Every progress text the loading panel shows while the folder is read.
      await page.evaluate(() => {
        window.__progress = [];
        const text = document.getElementById('progress-text');
        new MutationObserver(() => window.__progress.push(text.textContent)).observe(text, {
          childList: true,
          characterData: true,
          subtree: true,
        });
      });
      await page.setInputFiles('#model-folder', folder('edited-later'));
      await waitShows(page, 'local:my-dates', '1958-08-29');
      // Bytes read of all four files, file by file, up to their total.
      const total = (MODEL_FILES.reduce((sum, file) => sum + readFileSync(join(folder('edited-later'), file)).length, 0) / 1e6).toFixed(1);
      const progress = await page.evaluate(() => window.__progress.filter((text) => text.includes('edited-later/')));
      assert.deepEqual(
        [...new Set(progress.map((text) => text.match(/edited-later\/(\S+)…/)[1]))],
        MODEL_FILES,
        'progress names each file in turn',
      );
      assert.equal(progress.at(-1), `Loading edited-later/tgt_tokenizer.json… ${total} / ${total} MB`);
      assert.equal(await page.evaluate(() => document.getElementById('progress-bar').style.width), '100%');
      assert.deepEqual(await options(page), [...SHIPPED, ['local:my-dates', 'my-dates (local)']]);
      await translatesTo(page, 'the first of January 2000', '2000-01-01');

      // Files dropped on the page (made in the page, as a drag from the desktop would bring them):
      // the overlay shows while they are over it, and the model joins the selector beside the first.
      const overlay = await page.evaluate(async () => {
        const bytes = async (name) => new Uint8Array(await (await fetch(`models/date-iso/${name}`)).arrayBuffer());
        const config = JSON.parse(new TextDecoder().decode(await bytes('config.json')));
        const transfer = new DataTransfer();
        transfer.items.add(new File([JSON.stringify({ ...config, name: 'dropped-dates' })], 'config.json'));
        for (const name of ['model.safetensors', 'src_tokenizer.json', 'tgt_tokenizer.json', 'train_log.tsv'])
          transfer.items.add(new File([await bytes(name)], name));
        const fire = (type) =>
          document.body.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
        fire('dragenter');
        const during = !document.getElementById('drop-overlay').hidden;
        fire('drop');
        return { during, after: !document.getElementById('drop-overlay').hidden };
      });
      assert.deepEqual(overlay, { during: true, after: false });
      await waitShows(page, 'local:dropped-dates', '1958-08-29');
      assert.deepEqual(await options(page), [
        ...SHIPPED,
        ['local:my-dates', 'my-dates (local)'],
        ['local:dropped-dates', 'dropped-dates (local)'],
      ]);
      await translatesTo(page, 'the first of January 2000', '2000-01-01');
      await page.selectOption('#model-select', 'local:my-dates');
      await waitShows(page, 'local:my-dates', '1958-08-29');

      // The page keeps the File objects, not the bytes: a file changed since it was opened cannot
      // be read again, and the page says so while the model on screen carries on.
      await page.selectOption('#model-select', 'en-zh');
      await waitShows(page, 'en-zh', '我爱吃苹果。');
      const later = new Date(Date.now() + 60_000);
      utimesSync(join(folder('edited-later'), 'model.safetensors'), later, later);
      await page.selectOption('#model-select', 'local:my-dates');
      await waitMessage(page, /^Could not load the model/);
      assert.equal(
        await message(page),
        // Chromium's words for a file changed after it was picked: "network error".
        'Could not load the model “my-dates (local)”: model.safetensors could not be read (network error); if it was moved or changed, open it again',
      );
      assert.equal(await page.locator('#model-select').inputValue(), 'en-zh');
      await translatesTo(page, 'My father likes drinking tea.', '我父亲喜欢喝茶。');
      assert.deepEqual(errors, []);
    }),
);

/** What the half-length copy of date-iso's weights file ('truncated') lacks, in the loader's words. */
function cutShort() {
  const whole = readFileSync(join(DATE_ISO, 'model.safetensors'));
  const header = 8 + Number(whole.readBigUInt64LE(0));
  return `its header lists ${whole.length - header} bytes of tensors, and it holds ${(whole.length >> 1) - header}`;
}

test('a broken folder: its exact message, and the model on screen stays selected and keeps translating', { timeout: 120_000 }, () =>
  withBrowser(async (browser) => {
    const { page, errors } = await openPage(browser);
    const failed = (name, reason) => `Could not open the model folder “${name}”: ${reason}`;
    const cases = [
      ['truncated', failed('truncated', `model.safetensors is not a valid safetensors file: the file is cut short: ${cutShort()}`)],
      ['missing-tgt', failed('missing-tgt', `tgt_tokenizer.json not found (a model is four files: ${ALL_FOUR}; anything else is ignored)`)],
      ['not-json', failed('not-json', 'config.json is not a valid model config: expected ident at line 1 column 2')],
      ['wrong-shape', failed('wrong-shape', 'tensor `encoder.layers.0.ffn.linear_1.weight` has shape [256, 64], expected [128, 64]')],
      [
        'too-big',
        failed(
          'too-big',
          'this model needs about 45376 MB to load (11277 million parameters as F32, plus its file while it is read), more than the 4294 MB a WebAssembly module can address; nothing was loaded',
        ),
      ],
    ];
    const sentences = [
      ['My father likes drinking tea.', '我父亲喜欢喝茶。'],
      ['I love eating apples.', '我爱吃苹果。'],
    ];
    for (const [index, [name, expected]] of cases.entries()) {
      await page.setInputFiles('#model-folder', folder(name));
      await page.waitForFunction((text) => document.getElementById('message').textContent === text, expected, { timeout: 30_000 });
      assert.equal(await page.locator('#message.info').count(), 0, `${name}: shown as an error`);
      assert.equal(await page.locator('#loading').isHidden(), true);
      assert.equal(await page.locator('#model-select').inputValue(), 'en-zh');
      assert.deepEqual(await options(page), SHIPPED);
      if (index === 0) await page.screenshot({ path: `${ARTIFACTS}screenshots/open-model-failed.png` });
      await translatesTo(page, ...sentences[index % 2]);
    }
    // Loose files without the rest of the model.
    await page.setInputFiles('#model-files', [join(folder('good'), 'config.json')]);
    await waitMessage(page, /^Could not open the model from the chosen files/);
    assert.equal(
      await message(page),
      'Could not open the model from the chosen files: model.safetensors, src_tokenizer.json, and tgt_tokenizer.json not found ' +
        `(a model is four files: ${ALL_FOUR}; anything else is ignored)`,
    );
    await translatesTo(page, 'My father likes drinking tea.', '我父亲喜欢喝茶。');

    // A local model on screen stays too; the message is in the page's language.
    await page.setInputFiles('#model-folder', folder('good'));
    await waitShows(page, 'local:my-dates', '1958-08-29');
    await page.selectOption('#language-select', 'zh-CN');
    await page.setInputFiles('#model-folder', folder('missing-tgt'));
    const zh =
      '无法打开模型文件夹“missing-tgt”：找不到 tgt_tokenizer.json' +
      '（一个模型由四个文件组成：config.json、model.safetensors、src_tokenizer.json和tgt_tokenizer.json；其他文件会被忽略）';
    await page.waitForFunction((text) => document.getElementById('message').textContent === text, zh, { timeout: 30_000 });
    assert.equal(await page.locator('#model-select').inputValue(), 'local:my-dates');
    await page.screenshot({ path: `${ARTIFACTS}screenshots/open-model-failed-zh.png` });
    await translatesTo(page, 'the first of January 2000', '2000-01-01');
    // With a local model on screen and a message shown, axe still finds nothing serious.
    const { violations } = await new AxeBuilder({ page }).analyze();
    assert.deepEqual(
      violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id),
      [],
    );
    assert.deepEqual(errors, []);
  }),
);

test(
  'phone: the two open buttons are 44 px tap targets and a local model keeps the page from scrolling sideways',
  {
    timeout: 120_000,
  },
  () =>
    withBrowser(async (browser) => {
      const { page } = await openPage(browser, {
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 3,
        isMobile: true,
        hasTouch: true,
      });
      await page.setInputFiles('#model-folder', folder('good'));
      await waitShows(page, 'local:my-dates', '1958-08-29');
      for (const id of ['open-model', 'open-model-folder']) {
        const box = await page.locator(`#${id}`).boundingBox();
        assert.ok(box.width >= 44 && box.height >= 44, `#${id} is ${box.width} × ${box.height}`);
      }
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390);
      await page.locator('section.controls').screenshot({ path: `${ARTIFACTS}screenshots/open-model-phone.png` });
    }),
);

test("a folder's about.json describes and credits it in the page's language; a broken one is ignored", { timeout: 120_000 }, () =>
  withBrowser(async (browser) => {
    const { page, errors } = await openPage(browser);
    const shown = async () => ({
      description: await page.locator('#model-description').textContent(),
      credits: await page.locator('#model-credits').textContent(),
      links: await page.locator('#model-credits a').evaluateAll((links) => links.map((a) => a.getAttribute('href'))),
    });
    await page.setInputFiles('#model-folder', folder('with-about'));
    await waitShows(page, 'local:my-dates', '1958-08-29');
    assert.deepEqual(await shown(), {
      description: 'Opened from this computer; nothing was uploaded. My dates, trained at home',
      credits: 'my-dates (local) is trained on: Dates I wrote, CC0; A script · ',
      links: ['https://example.org/dates'],
    });
    await page.selectOption('#language-select', 'zh-CN');
    assert.equal((await shown()).credits, 'my-dates（本地） 的训练数据：我写的日期，CC0；一段脚本 · ');
    assert.match((await shown()).description, /我在家训练的日期模型$/);
    await page.selectOption('#language-select', 'en');
    await page.setInputFiles('#model-folder', folder('bad-about'));
    // The same model again: each load gets a name of its own.
    await waitShows(page, 'local:my-dates-2', '1958-08-29');
    assert.deepEqual(await shown(), {
      description: 'Opened from this computer; nothing was uploaded. Human-readable dates → ISO 8601 (YYYY-MM-DD), character level',
      credits: '',
      links: [],
    });
    assert.deepEqual(errors, []);
  }),
);
