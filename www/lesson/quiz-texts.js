// The words of the lesson's tasks, checks and summary, in English and Simplified Chinese.
// `{name}` is filled from the check's params (www/lesson/checks.js) and `<<key>>` is a control's
// label, read from the page's own words (www/ui/i18n/*.json), so a text names each control as
// the page labels it.
import { language } from '../ui/i18n.js';

const EN = {
  ui: {
    taskLabel: 'Do this:',
    taskDone: 'Done.',
    taskNone: 'Nothing to do here: read on.',
    check: 'Check',
    answerLabel: 'Your answer',
    right: 'Right.',
    wrong: 'Not quite.',
    hint: 'Hint:',
    reason: 'Why:',
    again: 'Try again.',
    notGraded: 'Not graded: the decoding samples, so the answer is random. Switch the decoding to greedy for a graded check.',
    predictWait: 'Your prediction: {answer}. Now do the step’s task to see what the model does.',
    predictGreedy: 'This check uses greedy decoding.',
    hiddenValue: 'hidden until you answer',
    skipAsk: 'You have not done this step’s task yet. Press Next again to skip it.',
    startOver: 'Start over',
    startOverAsk: 'Clear your progress on this model? Press again to clear.',
    download: 'Download events (JSON)',
    noStorage: 'Your browser keeps no local storage here (private mode?): progress will not be kept after you leave.',
    resumed: 'Welcome back: you left off at step {n}.',
    summaryTitle: 'Your lesson',
    summaryChecks: 'Checks right the first time: {right} of {total}.',
    summaryHints: 'Hints used: {hints}.',
    summaryTime: 'Time: {minutes} min in all.',
    summaryStep: 'Step {n}: {seconds} s',
    summaryStepSkipped: 'Step {n}: {seconds} s (skipped)',
    summaryStepUnseen: 'Step {n}: not opened',
    close: 'Close',
    headOption: 'head {h}',
  },
  task: {
    overview: 'Type a sentence of your own into the box at the top.',
    qkv: 'Pick another token in the journey view: a source chip, or the token menu.',
    dot: 'In the focused heatmap, hover the row of {token}: each cell is one key.',
    softmax: 'Hover a cell of the focused heatmap and read its weight.',
    weighted: 'In the journey view, point at the chart of the weighted sum (Σ α v): it reads each key’s share in each dimension.',
    heads: 'Choose another head in the <<focus.head>> menu above the heatmap.',
    matrix: 'Hover any cell of the heatmap: the tooltip names its query and its key.',
    scale: 'Switch <<stages.scaleSwitch>> off in the stages panel and watch the softmax sharpen.',
    norm: 'Pick another layer in the journey view: LayerNorm runs in every one.',
    ffn: 'In the journey view’s feed-forward block, point at the strip of the hidden layer: every cell is one unit after the activation.',
    positional: 'Hover the positional-encoding curves (or move along them with the arrow keys).',
    sinusoids: 'Pick another dimension pair in the list above the curves: a slower or a faster wave.',
    placement:
      'In the journey view, point at the LayerNorm’s output strip in the self-attention block: it comes before the sub-layer (pre-norm) or after the residual sum (post-norm).',
    padding: 'Hover a cell of the padded batch’s heatmap.',
    causal: 'Hover a cell above the diagonal of the causal mask: a later token.',
    teacher: 'Type a prefix of the translation into the prefix box and press <<input.prefixButton>>.',
    decoderBlock: 'Pick an output token in the journey view (a row of the stepper, or the token menu).',
    cross: 'Answer the prediction below, then press <<stepper.step>> (press <<stepper.back>> first if the output is complete).',
    decoding: 'Switch one head off (<<modelView.switchMode>> in the model view) and see whether the output changes.',
  },
  check: {
    overview: {
      question: 'How many tokens does the encoder read for this sentence (</s> included)?',
      hint: 'Count the chips in the source tokens line.',
      reason: 'The tokenizer splits the text into pieces of its vocabulary and adds </s>; the encoder reads one vector per piece.',
    },
    qkv: {
      question: 'How many numbers does one head’s query vector have in this model (d_k)?',
      hint: 'd_k is d_model divided by the number of heads: the journey view lists both.',
      reason: 'Each head projects the token’s vector into its own smaller space of d_k = d_model / h numbers.',
    },
    dot: {
      question: 'In layer {layer}, head {head}, which key gives {token} the largest score q·k?',
      hint: 'The journey view’s key table lists every score; find the largest, not the most familiar word.',
      reason: '{best} has the largest dot product with {token}’s query, so it will get the largest weight after softmax.',
    },
    softmax: {
      question: 'What weight does {token} give {key}, its heaviest key, in head {head}? (two decimals)',
      hint: 'Hover the cell of {token}’s row under {key} in the heatmap, or read the weight column of the key table.',
      reason: 'Softmax turned the scores into positive weights that add up to 1; this is the largest of them.',
    },
    weighted: {
      question: 'What is dimension 0 of head {head}’s output for {token}? (two decimals)',
      hint: 'Add α_j × v_j over every key, in dimension 0: the journey view shows the sum as “Σ α v”.',
      reason: 'The output is the weighted sum of the values, dimension by dimension.',
    },
    heads: {
      question: 'Which head of layer {layer} gives {key} the most weight when reading {token}?',
      hint: 'Look at {token}’s row, under {key}, in each head: change the <<focus.head>> menu.',
      reason: 'The heads are trained separately and weigh the same pair differently; the model mixes all of them with W_O.',
    },
    matrix: {
      question: 'How many weights does this head’s matrix hold (rows × columns)?',
      hint: 'One row per query token and one column per key token: count both on the heatmap’s axes.',
      reason: 'Every query is scored against every key at once: that is the n × n matrix QKᵀ.',
    },
    scale: {
      question: 'With the division switched off, what is head {head}’s mean entropy, in nats? (two decimals)',
      hint: 'Switch <<stages.scaleSwitch>> off: the summary under the panels gives each head’s entropy.',
      reason: 'Without ÷√d_k the scores are √d_k times wider, softmax puts almost all the weight on one key, and the entropy drops.',
    },
    norm: {
      question: 'What is the standard deviation of the vector LayerNorm normalises, for {token} in layer {layer}? (two decimals)',
      hint: 'The journey view gives the mean and the standard deviation next to the LayerNorm.',
      reason: 'LayerNorm subtracts the mean and divides by √(σ² + ε), then scales by γ and shifts by β.',
    },
    ffn: {
      question: 'How many of the feed-forward block’s hidden units are exactly 0 after ReLU, for {token}?',
      hint: 'The feed-forward block in the journey view counts them.',
      reason: 'ReLU sets every negative pre-activation to 0: those units pass nothing on for this token.',
    },
    positional: {
      question: 'What is dimension 0 of the positional encoding added to {token}? (two decimals)',
      hint: 'The journey view shows the embedding, the positional encoding and their sum.',
      reason: 'The encoding depends only on the position: it is added to the embedding before the first layer.',
    },
    padding: {
      question: 'How many <pad> keys does the shorter sentence of the batch get?',
      hint: 'Count the greyed tokens at the end of the shorter line in the masks panel.',
      reason: 'Sentences of a batch are padded to the same length; the padding mask gives those keys exactly zero weight.',
    },
    causal: {
      question: 'How many keys does the causal mask hide from the row that reads {token}?',
      hint: 'In the causal mask, count the hidden cells of that row: the token it predicts and every later one.',
      reason: 'The row that reads {token} may look at <s> and {token} only; the token it predicts and all after it are hidden.',
    },
    cross: {
      question: 'Predict: which source word will the next output token look at most (layer {layer}, head {head})?',
      hint: 'The decoder usually reads the source word it is about to translate.',
      reason: 'This is the row of the new token in the cross-attention: its heaviest source word.',
    },
    decoding: {
      question: 'At the first step, which candidate did the model rank second, after {first}?',
      hint: 'The stepper lists each step’s candidates with their probabilities.',
      reason: 'Greedy decoding takes the first and forgets the second; a beam search would keep both.',
    },
  },
};

const ZH = {
  ui: {
    taskLabel: '动手：',
    taskDone: '完成。',
    taskNone: '这一步不用操作，读下去即可。',
    check: '检查',
    answerLabel: '你的答案',
    right: '答对了。',
    wrong: '还不对。',
    hint: '提示：',
    reason: '原因：',
    again: '再试一次。',
    notGraded: '不评分：现在的解码是采样，答案是随机的。把解码方式换成贪心，才能评分。',
    predictWait: '你的预测：{answer}。现在完成这一步的操作，看看模型实际怎么做。',
    predictGreedy: '这道题用贪心解码。',
    hiddenValue: '答题后显示',
    skipAsk: '这一步的操作还没做。再按一次“下一步”就跳过。',
    startOver: '从头开始',
    startOverAsk: '清除你在这个模型上的进度？再按一次确认。',
    download: '下载事件记录（JSON）',
    noStorage: '浏览器在这里不能本地存储（无痕模式？）：离开页面后进度不会保留。',
    resumed: '欢迎回来：你上次停在第 {n} 步。',
    summaryTitle: '你的学习记录',
    summaryChecks: '一次答对：{right} / {total} 题。',
    summaryHints: '用过的提示：{hints} 次。',
    summaryTime: '用时：共 {minutes} 分钟。',
    summaryStep: '第 {n} 步：{seconds} 秒',
    summaryStepSkipped: '第 {n} 步：{seconds} 秒（跳过）',
    summaryStepUnseen: '第 {n} 步：未打开',
    close: '关闭',
    headOption: '第 {h} 头',
  },
  task: {
    overview: '在上方的输入框里输入一句你自己的话。',
    qkv: '在词元旅程视图中换一个词元：点源词，或用词元菜单。',
    dot: '在聚焦热力图中，把鼠标移到 {token} 那一行上：每一格是一个键。',
    softmax: '把鼠标移到聚焦热力图的任意一格，读出它的权重。',
    weighted: '在词元旅程视图中，把鼠标移到加权和（Σ α v）的图上：它给出每个键在每一维上的份额。',
    heads: '在热力图上方的“<<focus.head>>”菜单里换一个头。',
    matrix: '把鼠标移到热力图的任意一格：提示框会写出它的查询和键。',
    scale: '在各阶段面板中关掉“<<stages.scaleSwitch>>”，看 softmax 变尖。',
    norm: '在词元旅程视图中换一层：每一层都有层归一化。',
    ffn: '在词元旅程视图的前馈网络一块中，把鼠标移到隐藏层那一条上：每一格是激活函数之后的一个单元。',
    positional: '把鼠标移到位置编码的曲线上（或用方向键沿曲线移动）。',
    sinusoids: '在曲线上方的列表里换一对维度：一条慢一些或快一些的波。',
    placement:
      '在词元旅程视图的自注意力一块中，把鼠标移到层归一化输出的那一条上：它在子层之前（前置归一化），或在残差相加之后（后置归一化）。',
    padding: '把鼠标移到补齐批次热力图的任意一格。',
    causal: '把鼠标移到因果掩码对角线上方的一格：一个更靠后的词元。',
    teacher: '在前缀框里输入译文的开头，再按“<<input.prefixButton>>”。',
    decoderBlock: '在词元旅程视图中选一个输出词元（解码步进器的一行，或词元菜单）。',
    cross: '先回答下面的预测，再按“<<stepper.step>>”（如果译文已经完整，先按“<<stepper.back>>”）。',
    decoding: '关掉一个头（模型总览中的“<<modelView.switchMode>>”），看译文变不变。',
  },
  check: {
    overview: {
      question: '这句话编码器一共读入几个词元（包括 </s>）？',
      hint: '数一数“源词元”那一行的词块。',
      reason: '分词器把文本切成词表里的片段，再加上 </s>；编码器为每个片段读入一个向量。',
    },
    qkv: {
      question: '这个模型里，一个头的查询向量有几个数（d_k）？',
      hint: 'd_k 等于 d_model 除以头数：词元旅程视图里两个数都有。',
      reason: '每个头把词元的向量投影到自己更小的空间里，有 d_k = d_model / h 个数。',
    },
    dot: {
      question: '在第 {layer} 层第 {head} 头，哪个键和 {token} 的点积 q·k 最大？',
      hint: '词元旅程视图的键表列出了每个分数；找最大的，而不是最眼熟的词。',
      reason: '{best} 和 {token} 的查询点积最大，所以 softmax 之后它的权重也最大。',
    },
    softmax: {
      question: '在第 {head} 头，{token} 给权重最大的键 {key} 的注意力权重是多少？（保留两位小数）',
      hint: '在热力图中找 {token} 那一行、{key} 那一列，或读键表的权重一栏。',
      reason: 'softmax 把分数变成和为 1 的正数权重；这是其中最大的一个。',
    },
    weighted: {
      question: '第 {head} 头对 {token} 的输出，第 0 维是多少？（保留两位小数）',
      hint: '把每个键的 α_j × v_j 在第 0 维上加起来：词元旅程视图中的“Σ α v”就是这个和。',
      reason: '输出是各个值向量的加权和，一维一维地算。',
    },
    heads: {
      question: '第 {layer} 层的哪个头读 {token} 时给 {key} 的权重最大？',
      hint: '在每个头里看 {token} 那一行、{key} 那一列：换“<<focus.head>>”菜单。',
      reason: '各个头分别训练，对同一对词元的权重各不相同；模型再用 W_O 把它们混合起来。',
    },
    matrix: {
      question: '这个头的矩阵一共有多少个权重（行数 × 列数）？',
      hint: '每个查询词元一行，每个键词元一列：数一数热力图两条轴上的词元。',
      reason: '每个查询同时和每个键打分：这就是 n × n 的矩阵 QKᵀ。',
    },
    scale: {
      question: '关掉除法后，第 {head} 头的平均熵是多少奈特？（保留两位小数）',
      hint: '关掉“<<stages.scaleSwitch>>”：面板下方的小结列出每个头的熵。',
      reason: '不除以 √d_k，分数会宽 √d_k 倍，softmax 几乎把全部权重放在一个键上，熵随之下降。',
    },
    norm: {
      question: '第 {layer} 层里，层归一化要归一化的 {token} 向量，标准差是多少？（保留两位小数）',
      hint: '词元旅程视图在层归一化旁边给出均值和标准差。',
      reason: '层归一化减去均值、除以 √(σ² + ε)，再乘 γ、加 β。',
    },
    ffn: {
      question: '对 {token}，前馈网络的隐藏单元中有几个经过 ReLU 后正好是 0？',
      hint: '词元旅程视图的前馈网络一块里数出了这个数。',
      reason: 'ReLU 把所有负的激活前的值设为 0：这些单元对这个词元什么也不传。',
    },
    positional: {
      question: '加到 {token} 上的位置编码，第 0 维是多少？（保留两位小数）',
      hint: '词元旅程视图给出词嵌入、位置编码和它们的和。',
      reason: '位置编码只取决于位置：它在第一层之前加到词嵌入上。',
    },
    padding: {
      question: '批次里较短的那句话得到几个 <pad> 键？',
      hint: '在掩码面板中，数一数较短那一行末尾的灰色词元。',
      reason: '一个批次里的句子被补齐到同样长；填充掩码让这些键的权重正好为 0。',
    },
    causal: {
      question: '读 {token} 的那一行，因果掩码遮住了几个键？',
      hint: '在因果掩码中数这一行被遮住的格子：它要预测的词元以及之后的每一个。',
      reason: '读 {token} 的那一行只能看 <s> 和 {token}；它要预测的词元以及之后的都被遮住。',
    },
    cross: {
      question: '预测：下一个输出词元最关注哪个源词（第 {layer} 层第 {head} 头）？',
      hint: '解码器通常会看它马上要翻译的那个源词。',
      reason: '这是新词元在交叉注意力中的那一行：权重最大的源词。',
    },
    decoding: {
      question: '第一步时，模型把哪个候选排在第二，仅次于 {first}？',
      hint: '解码步进器列出每一步的候选和它们的概率。',
      reason: '贪心解码取第一个，忘掉第二个；束搜索会把两个都留下。',
    },
  },
};

const TEXTS = { en: EN, 'zh-CN': ZH };
const words = () => TEXTS[language()] ?? EN;

/** A string of the quiz's UI, with `{name}` filled from `params` (plain values). */
export function quizUi(key, params = {}) {
  const text = words().ui[key] ?? EN.ui[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (all, name) => (params[name] == null ? all : String(params[name])));
}

/** The instruction of step `id`'s task (a template: `fill` it), or null. */
export const taskText = (id) => words().task[id] ?? null;

/** { question, hint, reason } of step `id`'s check (templates). */
export const checkText = (id) => words().check[id] ?? EN.check[id];

export const QUIZ_TEXTS = TEXTS;
