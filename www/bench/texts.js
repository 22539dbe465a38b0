// The benchmark page's words, in English and Simplified Chinese (www/bench.html and its modules).
// Kept apart from the main page's tables (www/ui/i18n/): the page never loads these, and the
// benchmark never loads the page's. `t` fills {name} placeholders; English where a key is missing.

const TEXTS = {
  en: {
    title: 'attnscope benchmark',
    intro:
      "Races attnscope's two engines on your own machine: the CPU build and the WebGPU build of the same wasm module, on the shipped models at three source lengths (the encoder alone, and a whole greedy translation), then a few training steps of the playground's default model. Each figure is the median of several runs after a warm-up, the engines taking turns run by run. onnxruntime-web joins when its files are served with the site. Nothing is downloaded from anywhere else, and nothing leaves your machine.",
    quick: 'Quick mode: one model, one length, few runs.',
    language: 'Language',
    run: 'Run the benchmark',
    copy: 'Copy as Markdown',
    copied: 'Copied.',
    copyFailed: 'The browser would not copy ({reason}): select the Markdown below and copy it.',
    idle: 'Press the button to start. A full run takes a few minutes; the page stays usable.',
    loading: 'Loading {label}…',
    back: 'Back to attnscope',
    racingModel: 'Running: {model}, {n} source tokens',
    racingTraining: 'Running: training steps of the playground’s default model',
    done: 'Done in {seconds} s.',
    failed: 'The benchmark stopped: {reason}',
    noWorker: 'This browser cannot run module workers, which the benchmark needs: {reason}',
    machine: 'This machine',
    browser: 'Browser',
    adapter: 'WebGPU adapter',
    cpus: 'Logical CPUs (navigator.hardwareConcurrency)',
    none: 'none',
    unknown: 'unknown',
    fallbackAdapter: 'software fallback',
    translation: 'Translation',
    training: 'Training',
    model: 'Model',
    sourceTokens: 'Source tokens',
    engine: 'Engine',
    outputTokens: 'Output tokens',
    encoder: 'Encoder (ms)',
    greedy: 'Greedy translation (ms)',
    runs: 'Runs',
    note: 'Note',
    config: 'Config',
    msPerStep: 'ms per step',
    stepsTimed: 'Steps per run',
    trainConfig: '{task}, d {dModel}, {heads} heads, {layers}+{layers} layers, batch {batchSize}',
    'engine.cpu': 'attnscope CPU (wasm)',
    'engine.webgpu': 'attnscope WebGPU (wasm)',
    'engine.ort': 'onnxruntime-web (wasm, 1 thread)',
    'state.waiting': 'waiting',
    'state.running': 'running…',
    'state.absent': 'not present',
    'state.unavailable': 'unavailable: {reason}',
    'state.failed': 'failed: {reason}',
    'reason.noGpuApi': 'this browser has no WebGPU (navigator.gpu is missing)',
    'reason.noAdapter': 'the browser gave no WebGPU adapter',
    'reason.noModule': 'the {module} module is not built on this server',
    'reason.tooLong': 'longer than the model allows ({maxLen} tokens)',
    'reason.unchecked': 'its ONNX export was not checked against attnscope',
    'reason.noModel': 'no ONNX export of this model is served',
    'reason.noReference': 'it needs the CPU’s tokens, and the CPU failed',
    'reason.error': '{message}',
    differs: 'its tokens differ from the CPU’s',
    spread: 'median, and min–max over the runs after {warmup} warm-up run(s)',
    markdownTitle: 'attnscope benchmark',
    markdownSpread: 'Each cell: median (min–max) in ms over the runs, after {warmup} warm-up run(s); the engines take turns run by run.',
  },
  'zh-CN': {
    title: 'attnscope 性能测试',
    intro:
      '在你自己的机器上比较 attnscope 的两个引擎：同一个 wasm 模块的 CPU 版和 WebGPU 版，用随站发布的模型、三种源句长度（只跑编码器，以及完整的贪心翻译），再加上训练场默认模型的几步训练。每个数字都是预热之后多次运行的中位数，各引擎逐次轮流运行。若站点同时提供 onnxruntime-web 的文件，它也会加入比较。不会从别处下载任何东西，也不会有任何数据离开你的机器。',
    quick: '快速模式：一个模型、一种长度、少量运行。',
    language: '语言',
    run: '开始测试',
    copy: '复制为 Markdown',
    copied: '已复制。',
    copyFailed: '浏览器拒绝复制（{reason}）：请选中下面的 Markdown 自行复制。',
    idle: '点击按钮开始。完整测试需要几分钟，期间页面仍可使用。',
    loading: '正在加载 {label}…',
    back: '返回 attnscope',
    racingModel: '正在运行：{model}，{n} 个源词元',
    racingTraining: '正在运行：训练场默认模型的训练步',
    done: '完成，用时 {seconds} 秒。',
    failed: '测试中止：{reason}',
    noWorker: '这个浏览器无法运行模块 Worker，而测试需要它：{reason}',
    machine: '本机',
    browser: '浏览器',
    adapter: 'WebGPU 适配器',
    cpus: '逻辑 CPU 数（navigator.hardwareConcurrency）',
    none: '无',
    unknown: '未知',
    fallbackAdapter: '软件模拟',
    translation: '翻译',
    training: '训练',
    model: '模型',
    sourceTokens: '源词元数',
    engine: '引擎',
    outputTokens: '输出词元数',
    encoder: '编码器（毫秒）',
    greedy: '贪心翻译（毫秒）',
    runs: '次数',
    note: '备注',
    config: '配置',
    msPerStep: '每步毫秒',
    stepsTimed: '每次运行的步数',
    trainConfig: '{task}，d {dModel}，{heads} 个头，{layers}+{layers} 层，批大小 {batchSize}',
    'engine.cpu': 'attnscope CPU（wasm）',
    'engine.webgpu': 'attnscope WebGPU（wasm）',
    'engine.ort': 'onnxruntime-web（wasm，单线程）',
    'state.waiting': '等待中',
    'state.running': '运行中…',
    'state.absent': '不存在',
    'state.unavailable': '不可用：{reason}',
    'state.failed': '失败：{reason}',
    'reason.noGpuApi': '这个浏览器没有 WebGPU（没有 navigator.gpu）',
    'reason.noAdapter': '浏览器没有提供 WebGPU 适配器',
    'reason.noModule': '这个服务器上没有构建 {module} 模块',
    'reason.tooLong': '超出模型的长度上限（{maxLen} 个词元）',
    'reason.unchecked': '它的 ONNX 导出没有与 attnscope 核对过',
    'reason.noModel': '服务器上没有这个模型的 ONNX 导出',
    'reason.noReference': '它需要 CPU 的词元，而 CPU 失败了',
    'reason.error': '{message}',
    differs: '输出的词元与 CPU 的不同',
    spread: '中位数，以及 {warmup} 次预热之后各次运行的最小–最大值',
    markdownTitle: 'attnscope 性能测试',
    markdownSpread: '每格：预热 {warmup} 次之后各次运行的中位数（最小–最大），单位毫秒；各引擎逐次轮流运行。',
  },
};

export const LANGUAGES = { en: 'English', 'zh-CN': '简体中文' };

const using = { language: 'en' };

/** The language for `wanted` (a BCP 47 tag such as navigator.language): 'zh-CN' for any Chinese, else English. */
export const languageFor = (wanted) =>
  String(wanted ?? '')
    .toLowerCase()
    .startsWith('zh')
    ? 'zh-CN'
    : 'en';

/**
 * The language the page opens in: the link's `lang` (in the query, or in the hash as the main
 * page's links carry it), else the browser's.
 */
export function initialLanguage(location, navigatorLanguage) {
  const hash = new URLSearchParams(location.hash.replace(/^#/, ''));
  const asked = new URLSearchParams(location.search).get('lang') ?? hash.get('lang');
  return languageFor(asked ?? navigatorLanguage);
}

export const language = () => using.language;

export function setLanguage(lang) {
  using.language = languageFor(lang);
}

/** The text of `key` in the language in use, `{name}` replaced by `params.name`. */
export function t(key, params = {}) {
  const text = TEXTS[using.language][key] ?? TEXTS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

/** A problem the worker sent ({ key, params }: a reason.* key) in words. */
export const reasonText = (reason) => (reason ? t(`reason.${reason.key}`, reason.params ?? {}) : '');
