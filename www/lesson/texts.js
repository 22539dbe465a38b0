// The lesson's words, written for attnscope in English and Simplified Chinese (the seed articles
// are where the facts come from, not the text). `{name}` is filled by the step (www/lesson/steps.js)
// with the model's own numbers and tokens; `[[…]]` marks a formula, `((…))` an illustration.
// A body given per variant ({ pre, post }) follows the model's LayerNorm placement.
import { language } from '../ui/i18n.js';

const EN = {
  ui: {
    button: 'Lesson',
    title: 'Lesson: attention, one vector at a time',
    counter: 'Step {n} of {total}',
    back: '← Back',
    next: 'Next →',
    done: 'Finish',
    leave: 'Leave the lesson',
    legend: 'Highlighted numbers are this model’s own, for the sentence above; grey italics are illustrations.',
    modelNumber: 'This model’s number ({source})',
    illustration: 'An illustration from the articles, not this model’s number',
    waiting: 'Waiting for the model…',
    needsDecoder: 'This step needs at least one decoded token: press Step in the decoding panel.',
    switchModel: 'Show the same on {model}',
    experiment: 'Test it yourself: playground experiment {id}',
    comma: ', ',
    headBefore: 'head ',
    headAfter: ': ',
  },
  steps: {
    qkv: {
      title: 'Query, key and value',
      body: 'Every token enters a layer as one vector x of {dModel} numbers. Three learned matrices, W_Q, W_K and W_V, turn it into a query q (what this token is looking for), a key k (what it offers) and a value v (what it passes on). Follow {token} through layer {layer}, head {head}: its query has {dK} numbers, beginning {q}; the table below it lists the key and the value of every token it may look at.',
    },
    dot: {
      title: 'One dot product',
      body: 'How well does {token} match another token? Multiply its query by that token’s key, number by number, and add up the {dK} products: one score per pair. Here, in head {head}: {scores}. The best match is {best}.',
    },
    softmax: {
      title: 'Softmax: scores become weights',
      body: 'Each score is divided by √d_k (√{dK}; the step “Why √d_k” says why), then softmax takes e to the power of each and divides by their sum, so the weights are positive and add up to one. The articles draw weights such as ((0.1, 0.1, 0.3, 0.5)); this model’s {token} looks at {weights}.',
    },
    weighted: {
      title: 'The weighted sum of the values',
      body: 'The head’s output for {token} is Σ α_j v_j: every value vector, scaled by its weight, added up. In dimension zero: {terms} = {out}. The chart stacks each token’s share α_j v_j for every dimension; the white tick is the sum.',
    },
    heads: {
      title: 'Many heads, concatenated',
      body: 'One head tracks one kind of relation, so a layer has several: {heads} heads of {dK} numbers each, and {heads} × {dK} = {dModel}. Their outputs are concatenated back to the model’s width and mixed by one more matrix, W_O. The heads disagree on the weight {token} gives {key}: {perHead}.',
    },
    matrix: {
      title: 'All at once: the matrix form',
      body: 'Every token does the same at the same time. Stack the queries into Q ({rows} × {dK}) and the keys into K: QKᵀ holds all the scores ({rows} × {keys}), softmax runs along each row, and the result multiplies V: [[softmax(QKᵀ / √d_k) V]]. The heatmap is that matrix for layer {layer}, head {head}; the row of {token} is the one we computed ({row}).',
    },
    scale: {
      title: 'Why divide by √d_k',
      body: {
        scaled:
          'A dot product of d_k numbers grows like √d_k. Without the division the largest score would dominate and softmax would put nearly all the weight on one key. For {token}, head {head}, the largest score is {maxScore}; divided by √{dK} it is {maxScaled}. The panel measures it for the whole head: mean entropy {withScale} nats with the division, {withoutScale} without (lower means sharper).',
        unscaled:
          'A dot product of d_k numbers grows like √d_k. This model was built without the division: its scores go into softmax as they are, so the largest dominates. For {token}, head {head}, the largest score is {maxScore}. The panel measures the whole head as the model runs it: mean entropy {withScale} nats (lower means sharper; d_k is {dK}). The playground’s experiment C shows what that does to learning.',
      },
    },
    norm: {
      title: 'Residual and LayerNorm',
      body: {
        pre: 'Each sub-layer adds its result to its input, x + F(x): the residual path lets information and gradients skip ahead. Dimension zero of {token}: {x0} + {p0} = {r0}. LayerNorm rescales a vector by its own mean and standard deviation over its {dModel} features, [[(x − mean) / std × γ + β]]. This model normalises the input of each sub-layer (pre-norm); for the self-attention of {token}, mean {mean}, std {std}.',
        post: 'Each sub-layer adds its result to its input, x + F(x): the residual path lets information and gradients skip ahead. Dimension zero of {token}: {x0} + {p0} = {r0}. LayerNorm rescales a vector by its own mean and standard deviation over its {dModel} features, [[(x − mean) / std × γ + β]]. This model normalises the sum (post-norm); after the self-attention of {token}, mean {mean}, std {std}.',
      },
    },
    ffn: {
      title: 'The feed-forward network',
      body: 'After attention each position goes, alone, through the same two-layer network: {dModel} → {dFf} → {dModel}, with {activation} in between. Attention mixes information across tokens; this network transforms it within one. For {token}, {zeros} of the {dFf} hidden units are exactly zero: the activation silenced them.',
    },
    positional: {
      title: 'Positional encoding',
      body: {
        sinusoidal:
          'Attention by itself ignores order: shuffle the words and every dot product stays the same. So the first layer adds a positional encoding of sines and cosines to each scaled embedding, [[PE(pos, 2i) = sin(pos / 10000^(2i/d))]] and [[PE(pos, 2i+1) = cos(pos / 10000^(2i/d))]]. {token} is at position {position}; in dimension zero, {e0} + {pe0} = {x0}. The product of two encodings depends only on their distance Δ: for Δ = {delta}, [[PE(t)·PE(t+Δ)]] is {products}.',
        learned:
          'Attention by itself ignores order: shuffle the words and every dot product stays the same. This model adds a position vector to each scaled embedding before its first layer, but it learned the table in training instead of using sines and cosines. {token} is at position {position}; in dimension zero, {e0} + {pe0} = {x0}. For Δ = {delta}, [[PE(t)·PE(t+Δ)]] of its learned table is {products}.',
        none: 'Attention by itself ignores order: shuffle the words and every dot product stays the same. This model was built without positional encoding: nothing is added to the scaled embeddings, so {token} at position {position} enters the first layer as its embedding alone ({e0} = {x0} in dimension zero). Its encoder cannot tell a word order from another; the playground’s experiment A shows what that costs.',
      },
    },
    placement: {
      title: 'Pre-norm or post-norm',
      body: {
        pre: 'Where the LayerNorm sits is a design choice. The original Transformer normalises after adding, [[LN(x + F(x))]] (post-norm). Many later models normalise first, [[x + F(LN(x))]] (pre-norm), which trains more stably in deep stacks. {model} is pre-norm: the self-attention of {token} reads LN(x), and x has mean {mean}, std {std}.',
        post: 'Where the LayerNorm sits is a design choice. The original Transformer normalises after adding, [[LN(x + F(x))]] (post-norm), and so does {model}: the sum x + F(x) for {token} has mean {mean}, std {std} before its LayerNorm. Many later models normalise first, [[x + F(LN(x))]] (pre-norm), which trains more stably in deep stacks.',
      },
    },
    causal: {
      title: 'The causal mask',
      body: {
        masked:
          'The decoder writes from left to right, so in training it must not peek at the words after the one it predicts. The causal mask sets their scores to [[−∞]] (in practice [[−10⁹]]) before softmax, so their weights are exactly zero. {token} at decoder position {position}, layer {layer}, head {head}: {row}.',
        open: 'The decoder writes from left to right, so in training it must not peek at the words after the one it predicts. This model was built without the causal mask: in training each position saw the next one, which holds the very word it had to predict. When it writes, each step runs the decoder over the whole output so far, and every position sees the others, later ones included: {token} at decoder position {position}, layer {layer}, head {head}: {row}. The playground’s experiment B shows the cost.',
      },
    },
    cross: {
      title: 'Cross-attention',
      body: 'Cross-attention joins the two halves: the query comes from the decoder token; the keys and values come from the encoder’s output for each source word. When {next} was written, the decoder’s input was {token}; it looks at {row} (layer {layer}, head {head}, the head where it leans hardest on one source word). Of the source words, it leans most on {best}.',
    },
    decoding: {
      title: 'Decoding, one token at a time',
      body: 'The translation is written one token at a time. The decoder starts from <s>, computes a probability for each of its {vocab} tokens, takes the most likely, appends it and runs again, until </s>: {steps}. The result is {output} — press Reset, then Step, to watch it happen.',
    },
  },
};

const ZH = {
  ui: {
    button: '导览',
    title: '导览：注意力，一次一个向量',
    counter: '第 {n} 步，共 {total} 步',
    back: '← 上一步',
    next: '下一步 →',
    done: '完成',
    leave: '离开导览',
    legend: '高亮的数字是这个模型针对上面句子算出的；灰色斜体是示意。',
    modelNumber: '模型自己的数字（{source}）',
    illustration: '文章里的示意数字，不是这个模型算出的',
    waiting: '等待模型…',
    needsDecoder: '这一步需要至少一个解码出的词元：请在解码面板中点“单步”。',
    switchModel: '在 {model} 上看同一步',
    experiment: '自己动手验证：训练场实验 {id}',
    comma: '，',
    headBefore: '第 ',
    headAfter: ' 个头 ',
  },
  steps: {
    qkv: {
      title: '查询、键和值',
      body: '每个词元以一个向量 x 进入一层，它有 {dModel} 个数。三个学出来的矩阵 W_Q、W_K、W_V 把它变成查询 q（这个词元在找什么）、键 k（它能提供什么）和值 v（它要传递什么）。跟着 {token} 走过第 {layer} 层第 {head} 个头：它的查询有 {dK} 个数，开头是 {q}；下面的表列出了它能看到的每个词元的键和值。',
    },
    dot: {
      title: '一次点积',
      body: '{token} 和另一个词元有多匹配？把它的查询和那个词元的键逐个相乘，再把 {dK} 个乘积加起来：每一对得到一个分数。在第 {head} 个头里：{scores}。最匹配的是 {best}。',
    },
    softmax: {
      title: 'softmax：分数变成权重',
      body: '每个分数先除以 √d_k（√{dK}；“为什么要除以 √d_k”那一步会解释），再做 softmax：取 e 的幂，除以它们的和，于是权重都是正数，加起来等于一。文章里画的权重是 ((0.1, 0.1, 0.3, 0.5)) 这样的示意；这个模型里，{token} 看向 {weights}。',
    },
    weighted: {
      title: '值向量的加权求和',
      body: '这个头为 {token} 输出的是 Σ α_j v_j：每个值向量乘以它的权重，再全部相加。第零维：{terms} = {out}。图中把每个词元的贡献 α_j v_j 按维度堆叠起来，白色刻度就是它们的和。',
    },
    heads: {
      title: '多个头，再拼接起来',
      body: '一个头只追踪一种关系，所以一层有好几个头：{heads} 个头，每个 {dK} 个数，{heads} × {dK} = {dModel}。它们的输出拼接回模型的宽度，再由另一个矩阵 W_O 混合。各个头的看法并不一致，{token} 给 {key} 的权重分别是：{perHead}。',
    },
    matrix: {
      title: '一次算完：矩阵形式',
      body: '所有词元同时做同样的计算。把查询叠成矩阵 Q（{rows} × {dK}），把键叠成 K：QKᵀ 包含所有分数（{rows} × {keys}），softmax 按行计算，结果再乘以 V：[[softmax(QKᵀ / √d_k) V]]。热力图就是第 {layer} 层第 {head} 个头的这个矩阵；{token} 那一行正是我们算过的（{row}）。',
    },
    scale: {
      title: '为什么要除以 √d_k',
      body: {
        scaled:
          '两个 d_k 维向量的点积大约随 √d_k 增长。不除的话，最大的分数会压倒其他分数，softmax 几乎把全部权重给了一个键。{token} 在第 {head} 个头里最大的分数是 {maxScore}，除以 √{dK} 后是 {maxScaled}。面板为整个头做了测量：除以 √d_k 时平均熵为 {withScale} 奈特，不除时为 {withoutScale}（越低越尖锐）。',
        unscaled:
          '两个 d_k 维向量的点积大约随 √d_k 增长。这个模型没有除以 √d_k：分数直接进入 softmax，最大的分数压倒其他分数。{token} 在第 {head} 个头里最大的分数是 {maxScore}。面板按模型实际的算法为整个头做了测量：平均熵为 {withScale} 奈特（越低越尖锐；d_k 为 {dK}）。训练场的实验 C 展示了它对学习的影响。',
      },
    },
    norm: {
      title: '残差连接与层归一化',
      body: {
        pre: '每个子层把结果加回到它的输入上，即 x + F(x)：残差路径让信息和梯度可以直接跳过去。{token} 的第零维：{x0} + {p0} = {r0}。层归一化（LayerNorm）用向量自己在 {dModel} 个特征上的均值和标准差来缩放它：[[(x − 均值) / 标准差 × γ + β]]。这个模型在每个子层之前归一化输入（前置归一化）；{token} 的自注意力输入均值为 {mean}，标准差为 {std}。',
        post: '每个子层把结果加回到它的输入上，即 x + F(x)：残差路径让信息和梯度可以直接跳过去。{token} 的第零维：{x0} + {p0} = {r0}。层归一化（LayerNorm）用向量自己在 {dModel} 个特征上的均值和标准差来缩放它：[[(x − 均值) / 标准差 × γ + β]]。这个模型对相加之后的和做归一化（后置归一化）；{token} 的自注意力之后，均值为 {mean}，标准差为 {std}。',
      },
    },
    ffn: {
      title: '前馈网络',
      body: '注意力之后，每个位置各自通过同一个两层网络：{dModel} → {dFf} → {dModel}，中间是 {activation}。注意力在词元之间交换信息；前馈网络在一个词元内部加工信息。对 {token} 来说，{dFf} 个隐藏单元中有 {zeros} 个恰好为零：被激活函数关掉了。',
    },
    positional: {
      title: '位置编码',
      body: {
        sinusoidal:
          '注意力本身不管顺序：把词打乱，每个点积都不变。所以第一层给每个缩放后的词嵌入加上由正弦和余弦组成的位置编码：[[PE(pos, 2i) = sin(pos / 10000^(2i/d))]]，[[PE(pos, 2i+1) = cos(pos / 10000^(2i/d))]]。{token} 在位置 {position}；第零维上 {e0} + {pe0} = {x0}。两个位置编码的点积只取决于它们的距离 Δ：Δ = {delta} 时，[[PE(t)·PE(t+Δ)]] 为 {products}。',
        learned:
          '注意力本身不管顺序：把词打乱，每个点积都不变。这个模型在第一层之前也给每个缩放后的词嵌入加上一个位置向量，但这张表是训练中学出来的，而不是正弦和余弦。{token} 在位置 {position}；第零维上 {e0} + {pe0} = {x0}。Δ = {delta} 时，它学到的表中 [[PE(t)·PE(t+Δ)]] 为 {products}。',
        none: '注意力本身不管顺序：把词打乱，每个点积都不变。这个模型没有位置编码：缩放后的词嵌入上什么也没加，所以位置 {position} 的 {token} 只以它的词嵌入进入第一层（第零维上 {e0} = {x0}）。它的编码器分不清词序；训练场的实验 A 展示了这样做的代价。',
      },
    },
    placement: {
      title: '前置归一化还是后置归一化',
      body: {
        pre: 'LayerNorm 放在哪里是一个设计选择。原始的 Transformer 先相加再归一化：[[LN(x + F(x))]]（后置归一化）。后来的许多模型先归一化：[[x + F(LN(x))]]（前置归一化），层数多时训练更稳定。{model} 是前置归一化：{token} 的自注意力读入 LN(x)，而 x 的均值为 {mean}，标准差为 {std}。',
        post: 'LayerNorm 放在哪里是一个设计选择。原始的 Transformer 先相加再归一化：[[LN(x + F(x))]]（后置归一化），{model} 也是这样：{token} 的和 x + F(x) 在归一化之前均值为 {mean}，标准差为 {std}。后来的许多模型先归一化：[[x + F(LN(x))]]（前置归一化），层数多时训练更稳定。',
      },
    },
    causal: {
      title: '因果掩码',
      body: {
        masked:
          '解码器从左往右写，所以训练时不能偷看它要预测的词后面的词。因果掩码在 softmax 之前把这些位置的分数设为 [[−∞]]（实际是 [[−10⁹]]），于是它们的权重恰好为零。解码器位置 {position} 的 {token}，第 {layer} 层第 {head} 个头：{row}。',
        open: '解码器从左往右写，所以训练时不能偷看它要预测的词后面的词。这个模型没有因果掩码：训练时每个位置都能看到下一个位置，而那里正是它要预测的词。生成时，每一步都把解码器在目前的整个输出上重新算一遍，每个位置都能看到其他位置，包括后面的：解码器位置 {position} 的 {token}，第 {layer} 层第 {head} 个头：{row}。训练场的实验 B 展示了这样做的代价。',
      },
    },
    cross: {
      title: '交叉注意力',
      body: '交叉注意力把两半连接起来：查询来自解码器的词元；键和值来自编码器对每个源语言词的输出。生成 {next} 的那一步，解码器的输入是 {token}；它看向 {row}（第 {layer} 层第 {head} 个头：在这个头里它最集中地看向某一个源语言词）。在源语言词中，它最看重 {best}。',
    },
    decoding: {
      title: '解码：一次一个词元',
      body: '译文是一个词元一个词元写出来的。解码器从 <s> 开始，为词表中的 {vocab} 个词元各算一个概率，取最可能的那个，接到后面再算一遍，直到 </s>：{steps}。最后得到 {output}（点“重置”，再点“单步”，就能看着它一步步生成）。',
    },
  },
};

export const LESSON_TEXTS = { en: EN, 'zh-CN': ZH };

const table = () => LESSON_TEXTS[language()] ?? EN;

/** A lesson UI string in the page's language, `{name}` filled from `params` (plain text). */
export function lessonUi(key, params = {}) {
  const text = table().ui[key] ?? EN.ui[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

/** Step `id`'s title and body template in the page's language; `variant` picks a body per variant. */
export function stepText(id, variant) {
  const { title, body } = table().steps[id] ?? EN.steps[id];
  return { title, body: typeof body === 'string' ? body : (body[variant] ?? Object.values(body)[0]) };
}
