// The lesson's words in English (see www/lesson/texts.js for the template syntax). No digit stands
// outside a placeholder, a formula or an illustration: every number shown is the model's.

export const EN = {
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
    needsDecoder: 'This step needs at least one decoded token: press “<<stepper.step>>” in the decoding panel.',
    switchModel: 'Show the same on {model}',
    experiment: 'Test it yourself: playground experiment {id}',
    comma: ', ',
    headBefore: 'head ',
    headAfter: ': ',
  },
  steps: {
    overview: {
      title: 'The whole model at a glance',
      body: 'This model is an encoder and a decoder. The encoder reads the source sentence, here {srcCount} tokens, through {encLayers} blocks of the same design, one after another. The decoder writes the translation one token at a time through {decLayers} blocks of its own, and each of them reads the encoder’s output. A token enters as a row of the embedding table: {token} is row {tokenId} of {vocab}, a vector of {dModel} numbers. {scale} {tokens}',
      parts: {
        scaled:
          'Before the first block that vector is multiplied by [[√d_model]] = √{dModel} = {embedScale}, as in the paper, so that it is not small beside the positional encoding added to it next.',
        unscaled: 'This model does not scale its embeddings: the factor is {embedScale}, where the paper multiplies by [[√d_model]].',
        pieces:
          'The tokens come from SentencePiece: a ▁ at the front, as in {start}, marks the start of a word (it stands for the space before it), and a token without one, such as {piece}, is joined to the token before it, with no space between.',
        piecesWhole:
          'The tokens come from SentencePiece: a ▁ at the front, as in {start}, marks the start of a word (it stands for the space before it); a token without one would continue the word before it.',
        chars: 'This model’s tokens are single characters, not words or word pieces: {start} is one token.',
        charsSpace:
          'This model’s tokens are single characters, not words or word pieces: {start} is one token, and {space} stands for a space.',
        plain: 'This model’s tokens are the pieces of its vocabulary: {start} is one.',
      },
    },
    qkv: {
      title: 'Self-attention: query, key and value',
      body: 'In self-attention each token looks at the tokens of its own sentence, itself included, and takes in some of each. It enters a layer as one vector x of {dModel} numbers. Three learned matrices, W_Q, W_K and W_V, turn it into a query q (what this token is looking for), a key k (what it offers) and a value v (what it passes on). Follow {token} through layer {layer}, head {head}: its query has {dK} numbers, starting {q}. The table below it lists the key and the value of every token it looks at.',
    },
    dot: {
      title: 'One dot product per pair',
      body: 'How well does {token} match another token? Multiply its query by that token’s key, number by number, and add up the {dK} products: the dot product q·k is one score for the pair. In head {head}: {scores}. The best match is {best}.',
    },
    softmax: {
      title: 'Softmax: scores become attention weights',
      body: 'Each score is divided by √d_k (here √{dK}; the step on √d_k says why), then softmax takes e to the power of each score and divides by their sum. The results are the attention weights: all positive, adding up to one. The articles draw weights like ((0.1, 0.1, 0.3, 0.5)); this model’s {token} gives {weights}.',
    },
    weighted: {
      title: 'The weighted sum of the values',
      body: 'The head’s output for {token} is Σ α_j v_j, a weighted sum: each value vector scaled by its attention weight, then all added up. In dimension {dim}: {terms} = {out}. The chart stacks each token’s share α_j v_j in every dimension; the white tick is the sum.',
    },
    heads: {
      title: 'Multi-head attention',
      body: 'A layer runs several heads side by side: multi-head attention. Here {heads} heads of {dK} numbers each, and {heads} × {dK} = {dModel}. Each head has its own W_Q, W_K and W_V, so each can learn to look for something else. Many heads do specialise, but not all: some do much the same as another, and some park their weight on </s> and change little, as the “<<modelView.switchMode>>” button in the model view lets you test. The outputs are concatenated back to the model’s width and mixed by one more matrix, W_O. The weight {token} gives {key}, head by head: {perHead}.',
    },
    matrix: {
      title: 'All at once: scaled dot-product attention',
      body: 'Every token does the same at the same time. Stack the queries into Q ({rows} × {dK}) and the keys into K: QKᵀ holds all the scores ({rows} × {keys}), softmax runs along each row, and the result multiplies V: [[Attention(Q, K, V) = softmax(QKᵀ / √d_k) V]]. This is what the paper calls scaled dot-product attention. The heatmap is that matrix for layer {layer}, head {head}; the row of {token} is the one we computed ({row}).',
    },
    scale: {
      title: 'Why divide by √d_k',
      body: {
        scaled:
          'If the numbers of q and k are independent, with mean [[0]] and variance [[1]], then q·k is a sum of d_k such products: its mean is [[0]] and its standard deviation grows like √d_k. With large scores softmax goes into saturation, putting nearly all the weight on one key, and there its gradient almost vanishes, so training stalls. Dividing by √d_k brings the spread back to about [[1]]. For {token}, head {head}, the largest score is {maxScore}; divided by √{dK} it is {maxScaled}. The panel measures the whole head: mean entropy {withScale} nats with the division, {withoutScale} without (lower means sharper); switch “<<stages.scaleSwitch>>” off to see the sharper weights.',
        unscaled:
          'If the numbers of q and k are independent, with mean [[0]] and variance [[1]], then q·k is a sum of d_k such products, and its standard deviation grows like √d_k. This model was built without the division: its scores go into softmax as they are and drive it into saturation, nearly all the weight on one key, where the gradient almost vanishes. For {token}, head {head}, the largest score is {maxScore}. The panel measures the whole head as the model runs it: mean entropy {withScale} nats (lower means sharper; d_k is {dK}). The playground’s experiment C shows what that does to training.',
      },
    },
    norm: {
      title: 'Residual connections and LayerNorm',
      body: {
        pre: 'Each sub-layer adds its result to its input, x + F(x): this residual connection lets information and gradients pass straight through. In dimension {dim} of {token}: {x0} + {p0} = {r0}. LayerNorm then centres and scales each vector over its own {dModel} numbers: [[y = (x − mean) / √(variance + ε) × γ + β]], with ε = {eps} so that it never divides by zero, and γ and β learned, one pair per dimension. It needs no other token, unlike BatchNorm, which averages each dimension over a batch: sentences differ in length, the <pad> tokens of a padded batch would skew its averages, and when translating a batch may be a single sentence. This model normalises the input of each sub-layer (pre-norm): for the self-attention of {token}, mean {mean}, standard deviation {std}.',
        post: 'Each sub-layer adds its result to its input, x + F(x): this residual connection lets information and gradients pass straight through. In dimension {dim} of {token}: {x0} + {p0} = {r0}. LayerNorm then centres and scales each vector over its own {dModel} numbers: [[y = (x − mean) / √(variance + ε) × γ + β]], with ε = {eps} so that it never divides by zero, and γ and β learned, one pair per dimension. It needs no other token, unlike BatchNorm, which averages each dimension over a batch: sentences differ in length, the <pad> tokens of a padded batch would skew its averages, and when translating a batch may be a single sentence. This model normalises the sum (post-norm): after the self-attention of {token}, mean {mean}, standard deviation {std}.',
        none: 'Each sub-layer adds its result to its input, x + F(x): this residual connection lets information and gradients pass straight through. In dimension {dim} of {token}: {x0} + {p0} = {r0}. The paper then applies LayerNorm, which centres and scales each vector over its own {dModel} numbers, [[(x − mean) / √(variance + ε) × γ + β]], using no other token, unlike BatchNorm. This model was built without LayerNorm: the sums go on as they are, and nothing keeps their size in check. The input of the self-attention of {token} has mean {mean}, standard deviation {std}.',
      },
    },
    ffn: {
      title: 'The feed-forward network',
      body: 'After attention each position goes, on its own, through the same two-layer network: {dModel} → {dFf} → {dModel}, with {activation} in between. Attention moves information between tokens; this network transforms it within each one. For {token}, {zeros} of the {dFf} hidden units are exactly zero: the activation switched them off.',
    },
    positional: {
      title: 'Positional encoding',
      body: {
        sinusoidal:
          'Attention by itself ignores order: shuffle the words and every dot product stays the same. So before the first layer a positional encoding of sines and cosines is added to each scaled embedding: [[x = embedding + PE(pos)]], with [[PE(pos, 2i) = sin(pos / 10000^(2i/d))]] and [[PE(pos, 2i+1) = cos(pos / 10000^(2i/d))]]. No layer does this; the first layer simply receives the sum. {token} is at position {position}; in dimension {dim}, {e0} + {pe0} = {x0}.',
        learned:
          'Attention by itself ignores order: shuffle the words and every dot product stays the same. So before the first layer a position vector is added to each scaled embedding, [[x = embedding + PE(pos)]]; this model learned its table of them in training instead of using sines and cosines. {token} is at position {position}; in dimension {dim}, {e0} + {pe0} = {x0}.',
        none: 'Attention by itself ignores order: shuffle the words and every dot product stays the same. This model was built without positional encoding: nothing is added to the scaled embeddings, so {token} at position {position} enters the first layer as its embedding alone ({e0} = {x0} in dimension {dim}). Its encoder cannot tell one word order from another; the playground’s experiment A shows what that costs.',
      },
    },
    sinusoids: {
      title: 'Why sinusoids, at many frequencies',
      body: {
        sinusoidal:
          'The dimensions come in pairs, and pair i holds [[sin(ω_i·t)]] and [[cos(ω_i·t)]] with [[ω_i = 1 / 10000^(2i/d)]]: a point going round a circle, each pair at its own speed, with wavelengths from [[2π]] for the first pair to nearly [[10000 · 2π]] for the last. The first pairs turn fast and the last barely move: from position {position} to {nextPosition}, dimension {fastDim} goes from {fastA} to {fastB}, and dimension {slowDim} from {slowA} to {slowB}. Together they give every position a vector of its own. Moving on by Δ turns each pair by the angle [[ω_i·Δ]], wherever it starts, so PE(t+Δ) is a fixed rotation of PE(t), a linear function of it that depends on Δ alone. So the dot product [[PE(t)·PE(t+Δ)]] does not depend on t: for Δ = {delta} this model’s table gives {products}. And nearby positions have similar vectors: it is {near} for Δ = {one} and {far} for Δ = {many}.',
        learned:
          'The paper’s sines and cosines turn each pair of dimensions at its own speed, so that PE(t+Δ) is a fixed rotation of PE(t) and [[PE(t)·PE(t+Δ)]] depends on Δ alone. This model learned its table instead, and nothing makes it regular: for Δ = {delta}, its [[PE(t)·PE(t+Δ)]] is {products}, different for each start t. It knows only the {rows} positions it was trained with, where sinusoids are defined for any position.',
        none: 'The paper’s sines and cosines give each position a vector of its own, turning each pair of dimensions at its own speed so that PE(t+Δ) is a fixed rotation of PE(t). This model has no positional encoding at all, so its token vectors of {dModel} numbers carry no position; the playground’s experiment A shows what that costs.',
      },
    },
    placement: {
      title: 'Pre-norm or post-norm',
      body: {
        pre: 'Where the LayerNorm sits is a design choice. The original Transformer normalises after adding, [[LN(x + F(x))]] (post-norm). Many later models normalise first, [[x + F(LN(x))]] (pre-norm), which trains more stably in deep stacks. {model} is pre-norm: the self-attention of {token} reads LN(x), and x has mean {mean}, standard deviation {std}.',
        post: 'Where the LayerNorm sits is a design choice. The original Transformer normalises after adding, [[LN(x + F(x))]] (post-norm), and so does {model}: the sum x + F(x) for {token} has mean {mean}, standard deviation {std} before its LayerNorm. Many later models normalise first, [[x + F(LN(x))]] (pre-norm), which trains more stably in deep stacks.',
        none: 'Where the LayerNorm sits is a design choice: after adding, [[LN(x + F(x))]] (post-norm, as in the paper), or first, [[x + F(LN(x))]] (pre-norm), which trains more stably in deep stacks. {model} has neither: it was built without LayerNorm, and the input of the self-attention of {token} has mean {mean}, standard deviation {std}.',
      },
    },
    padding: {
      title: 'The padding mask',
      body: {
        padded:
          'Training runs many sentences at once, stacked into one batch, and a batch is a rectangle: shorter sentences are filled up with <pad> tokens. The masks panel encodes two sentences together. The longer has {longCount} tokens; the shorter has {shortCount}, so it gets {padCount} <pad> tokens: {pads}. The padding mask hides those keys: their scores become [[−∞]] before softmax, so their weights are exactly zero. In layer {layer}, head {head}, {first} gives {realWeight} to itself and {padWeight} to {pad}. The <pad> tokens change nothing for the real ones, and cross-attention hides them the same way.',
        even: 'Training runs many sentences at once, stacked into one batch, and a batch is a rectangle: shorter sentences are filled up with <pad> tokens. The two sentences of the masks panel have the same length, {longCount} tokens, so there is no <pad> to hide here; where there is, the padding mask sets its scores to [[−∞]] before softmax, and its weights are exactly zero.',
      },
    },
    causal: {
      title: 'The causal mask',
      body: {
        masked:
          'Row i of the decoder is decoder input i, and it predicts the token that comes next, which is input [[i + 1]]. The causal mask hides input [[i + 1]], the very answer, and every input after it: row i sees only inputs [[0 … i]], the start token and the tokens before the one it predicts. It sets the hidden scores to [[−∞]] (in practice [[−10⁹]]) before softmax, so their weights are exactly zero. {token} at decoder position {position} predicts {next}; {hidden} of the keys are hidden from it. In layer {layer}, head {head}: {row}.',
        open: 'Row i of the decoder is decoder input i, and it predicts the token that comes next, which is input [[i + 1]]. The paper’s causal mask hides that input and every later one. This model was built without it: in training each position saw the next one, which is the very token it had to predict. When it writes, each step runs the decoder over the whole output so far, and every position sees the others, later ones included: {token} at decoder position {position}, layer {layer}, head {head}: {row}. The playground’s experiment B shows the cost.',
      },
    },
    teacher: {
      title: 'Teacher forcing: parallel in training, one token at a time in use',
      body: {
        masked:
          'In training the decoder is given the reference translation at once, shifted right by one: its inputs are the target with <s> in front ({inputs}), and at every position it must predict the next token ({targets}). This is teacher forcing: each position gets the right tokens before it, not the model’s own guesses, so all {rows} positions are predicted in parallel, in one pass of matrix multiplications, and the causal mask keeps it honest. Translating is different: there is no reference, so the decoder runs once per token and feeds each output back in as the next input; this output took {steps} runs. Press “<<stepper.reset>>”, then “<<stepper.step>>”, to watch it.',
        open: 'In training the decoder is given the reference translation at once, shifted right by one: its inputs are the target with <s> in front ({inputs}), and at every position it must predict the next token ({targets}). This is teacher forcing: all {rows} positions are predicted in parallel, in one pass. Without a causal mask, as in this model, each position could read the token it was asked to predict. Translating is different: there is no reference, so the decoder runs once per token and feeds each output back in; this output took {steps} runs. Press “<<stepper.reset>>”, then “<<stepper.step>>”, to watch it.',
      },
    },
    decoderBlock: {
      title: 'Inside a decoder block',
      body: {
        masked:
          'Each of the decoder’s {decLayers} blocks has three sub-layers, each with its residual connection and LayerNorm. First masked self-attention: {token} at decoder position {position} looks at the decoder inputs up to its own. Then cross-attention: its query meets the keys and values of the encoder’s output, one for each of the {srcKeys} source tokens, so this is where the source enters the decoder. Last the feed-forward network, {dModel} → {dFf} → {dModel}. In layer {layer}, dimension {dim} goes {x0} → {afterSelf} → {afterCross} → {afterFfn}.',
        open: 'Each of the decoder’s {decLayers} blocks has three sub-layers, each with its residual connection and LayerNorm. First self-attention, unmasked in this model: {token} at decoder position {position} looks at every decoder input. Then cross-attention: its query meets the keys and values of the encoder’s output, one for each of the {srcKeys} source tokens, so this is where the source enters the decoder. Last the feed-forward network, {dModel} → {dFf} → {dModel}. In layer {layer}, dimension {dim} goes {x0} → {afterSelf} → {afterCross} → {afterFfn}.',
      },
    },
    cross: {
      title: 'Cross-attention',
      body: 'Cross-attention joins the two halves: the query comes from the decoder token, the keys and values from the encoder’s output for each source word. When {next} was written, the decoder’s input was {token}; it looks at {row} (layer {layer}, head {head}, the head where it leans hardest on one source word). Of the source words, it leans most on {best}.',
    },
    decoding: {
      title: 'Decoding, one token at a time',
      body: {
        greedy:
          'The translation is written one token at a time. The decoder starts from <s>, computes a probability for each of its {vocab} tokens, and greedy decoding takes the most likely, appends it and runs again, until </s>: {steps}. Joined up, the tokens give the output {output} (press “<<stepper.reset>>”, then “<<stepper.step>>”, to watch it happen).',
        sample:
          'The translation is written one token at a time. The decoder starts from <s> and computes a probability for each of its {vocab} tokens. Greedy decoding would take the most likely; this page now samples instead (“<<input.sample>>”): it draws the next token at random among the {topK} most likely, their probabilities sharpened or flattened by the temperature T = {temperature}, appends it and runs again, until </s>: {steps}. Joined up, the tokens give {output} (another seed can give another output).',
        beam: 'The translation is written one token at a time, but beam search does not commit to one. Greedy decoding would keep only the most likely next token; beam search keeps the {width} best partial translations at every step, each extended by its best next tokens, and ranks the finished ones by [[log p / ((5 + length) / 6)^α]] with α = {alpha}. The best one, shown here, is {steps} (each token’s probability given the ones before it), which gives the output {output} (the beam panel draws every hypothesis).',
        forced:
          'The translation is written one token at a time. You chose some of the tokens yourself ({forced}): the decoder took them as given and went on from them, picking the others itself (greedy decoding picks the most likely of its {vocab} tokens): {steps}. The probabilities are still the model’s, so they show how much it agreed with your choices. Joined up, the tokens give {output} (press “<<stepper.reset>>” to let it choose alone).',
      },
    },
  },
};
