#!/usr/bin/env python3
"""The playground's baseline model and training step in PyTorch eager, one CPU thread: the
reference for the steps-per-second budget of issue 56 (benches/playground.sh runs it beside the
native CLI, interleaved). Never installed by CI or scripts/test.sh.

The same model as `attnscope playground --task reverse` (src/model, src/playground/config.rs):
post-norm encoder-decoder, d_model 32, 2 heads, 1 + 1 layers, d_ff 128 (ReLU), bias-free
attention projections, no dropout, embeddings N(0, d^-1/2) times sqrt(d_model) plus the paper's
interleaved sinusoidal table, scores / sqrt(d_k) masked with -1e9 (source <pad> keys; the decoder's
causal mask), an untied output projection with bias: 30,670 parameters for 14 symbols (4 special
tokens and 10 digits). The same step (src/playground/trainer.rs): a batch of 32 reversals of 4 to
8 digits padded at the end, the teacher-forced cross-entropy per non-pad target token, the loss
read back (the trainer checks it for NaN every step), backward, Adam (beta2 0.98, eps 1e-9) at a
linear warm-up to 5e-3 over 100 steps then a cosine to a tenth at the run's end.

    /work/venv-torch/bin/python benches/playground_torch.py [--steps 1500] [--batch 32]
        [--warmup-steps 20] [--window 100] [--eval] [--seed 1]

Prints one JSON object: the parameter count, steps per second as the median of windows of
`--window` steps after `--warmup-steps` (and over every step, as the CLI counts them), and the
mean split of a step (batch, forward, backward, optimizer). With --eval, also greedy exact match
on 500 held-out examples at the end (a check that the model learns as the Rust one does; its
data stream is not the Rust one's, so the curve is not the same).
"""

import argparse
import json
import math
import random
import statistics
import time

import torch
from torch import nn
from torch.nn import functional as F

PAD, UNK, BOS, EOS = 0, 1, 2, 3
SPECIALS = 4
DIGITS = 10
VOCAB = SPECIALS + DIGITS
MIN_LEN, MAX_LEN_DIGITS = 4, 8
TABLE_ROWS = 12  # src/playground/config.rs MAX_LEN
MASK = -1e9


def sinusoidal(rows, d):
    """The paper's table: sin in even dimensions, cos in odd ones."""
    table = torch.zeros(rows, d)
    for pos in range(rows):
        for dim in range(d):
            angle = pos / 10000 ** (2 * (dim // 2) / d)
            table[pos, dim] = math.sin(angle) if dim % 2 == 0 else math.cos(angle)
    return table


class Attention(nn.Module):
    def __init__(self, d, heads, causal=False):
        super().__init__()
        self.heads, self.d_k, self.causal = heads, d // heads, causal
        self.w_q, self.w_k, self.w_v, self.w_o = (nn.Linear(d, d, bias=False) for _ in range(4))
        for linear in (self.w_q, self.w_k, self.w_v, self.w_o):
            nn.init.xavier_uniform_(linear.weight)

    def split(self, x):
        b, n, _ = x.shape
        return x.reshape(b, n, self.heads, self.d_k).transpose(1, 2)  # [b, h, n, d_k]

    def forward(self, query, memory, key_pad):
        q = self.split(self.w_q(query))
        k = self.split(self.w_k(memory))
        v = self.split(self.w_v(memory))
        scores = q @ k.transpose(2, 3) / math.sqrt(self.d_k)  # [b, h, q, k]
        if key_pad is not None:
            scores = scores.masked_fill(key_pad, MASK)
        if self.causal:
            n_q, n_k = scores.shape[-2:]
            later = torch.ones(n_q, n_k, dtype=torch.bool).triu(1)
            scores = scores.masked_fill(later, MASK)
        heads = scores.softmax(-1) @ v  # [b, h, q, d_k]
        b, h, n, d_k = heads.shape
        return self.w_o(heads.transpose(1, 2).reshape(b, n, h * d_k))


class FeedForward(nn.Module):
    def __init__(self, d, d_ff):
        super().__init__()
        self.linear_1, self.linear_2 = nn.Linear(d, d_ff), nn.Linear(d_ff, d)
        nn.init.xavier_uniform_(self.linear_1.weight)
        nn.init.xavier_uniform_(self.linear_2.weight)

    def forward(self, x):
        return self.linear_2(F.relu(self.linear_1(x)))


class EncoderLayer(nn.Module):
    def __init__(self, d, heads, d_ff):
        super().__init__()
        self.self_attn, self.ffn = Attention(d, heads), FeedForward(d, d_ff)
        self.norm_1, self.norm_2 = nn.LayerNorm(d, eps=1e-5), nn.LayerNorm(d, eps=1e-5)

    def forward(self, x, src_pad):
        x = self.norm_1(x + self.self_attn(x, x, src_pad))
        return self.norm_2(x + self.ffn(x))


class DecoderLayer(nn.Module):
    def __init__(self, d, heads, d_ff):
        super().__init__()
        self.self_attn, self.cross_attn = Attention(d, heads, causal=True), Attention(d, heads)
        self.ffn = FeedForward(d, d_ff)
        self.norm_1, self.norm_2, self.norm_3 = (nn.LayerNorm(d, eps=1e-5) for _ in range(3))

    def forward(self, x, memory, src_pad):
        # As src/model/decoder.rs: the causal mask alone in self-attention (target <pad> sits
        # after every real token), the source padding mask in cross-attention.
        x = self.norm_1(x + self.self_attn(x, x, None))
        x = self.norm_2(x + self.cross_attn(x, memory, src_pad))
        return self.norm_3(x + self.ffn(x))


class Transformer(nn.Module):
    def __init__(self, d=32, heads=2, layers=1):
        super().__init__()
        self.d = d
        self.src_embed, self.tgt_embed = nn.Embedding(VOCAB, d), nn.Embedding(VOCAB, d)
        for embed in (self.src_embed, self.tgt_embed):
            nn.init.normal_(embed.weight, 0.0, d**-0.5)
        self.encoder = nn.ModuleList(EncoderLayer(d, heads, 4 * d) for _ in range(layers))
        self.decoder = nn.ModuleList(DecoderLayer(d, heads, 4 * d) for _ in range(layers))
        self.projection = nn.Linear(d, VOCAB)
        nn.init.xavier_uniform_(self.projection.weight)
        self.register_buffer("pe", sinusoidal(TABLE_ROWS, d), persistent=False)

    def embed(self, embedding, ids):
        return embedding(ids) * math.sqrt(self.d) + self.pe[: ids.shape[1]]

    def encode(self, src):
        src_pad = (src == PAD)[:, None, None, :]  # [b, 1, 1, src_len]
        x = self.embed(self.src_embed, src)
        for layer in self.encoder:
            x = layer(x, src_pad)
        return x, src_pad

    def decode(self, tgt_in, memory, src_pad):
        x = self.embed(self.tgt_embed, tgt_in)
        for layer in self.decoder:
            x = layer(x, memory, src_pad)
        return self.projection(x)

    def forward(self, src, tgt_in):
        memory, src_pad = self.encode(src)
        return self.decode(tgt_in, memory, src_pad)


def draw(rng):
    """One reversal: source digits (ids after the specials) and their reverse."""
    n = rng.randint(MIN_LEN, MAX_LEN_DIGITS)
    source = [SPECIALS + rng.randrange(DIGITS) for _ in range(n)]
    return source, source[::-1]


def padded(rows):
    width = max(len(r) for r in rows)
    return torch.tensor([r + [PAD] * (width - len(r)) for r in rows], dtype=torch.long)


def batch(rng, size, heldout):
    pairs = []
    while len(pairs) < size:
        source, target = draw(rng)
        if tuple(source) not in heldout:
            pairs.append((source, target))
    src = padded([s + [EOS] for s, _ in pairs])
    tgt_in = padded([[BOS] + t for _, t in pairs])
    tgt_out = padded([t + [EOS] for _, t in pairs])
    return src, tgt_in, tgt_out


def schedule(peak, warmup, steps):
    """The trainer's rate at step s (1-based): linear warm-up, cosine to a tenth, then a tenth."""

    def rate(s):
        if warmup and s <= warmup:
            return peak * s / warmup
        if s > steps:
            return peak * 0.1
        t = (s - warmup) / (steps - warmup)
        return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))

    return rate


@torch.no_grad()
def exact_match(model, heldout_pairs):
    model.eval()
    src = padded([s + [EOS] for s, _ in heldout_pairs])
    memory, src_pad = model.encode(src)
    prefix = torch.full((len(heldout_pairs), 1), BOS, dtype=torch.long)
    for _ in range(MAX_LEN_DIGITS + 1):
        logits = model.decode(prefix, memory, src_pad)[:, -1]
        prefix = torch.cat([prefix, logits.argmax(-1, keepdim=True)], 1)
    correct = 0
    for row, (_, target) in zip(prefix.tolist(), heldout_pairs):
        out = row[1:]
        correct += out[: len(target) + 1] == target + [EOS]
    model.train()
    return correct / len(heldout_pairs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--warmup-steps", type=int, default=20, help="steps left out of the timing")
    parser.add_argument("--window", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eval", action="store_true")
    args = parser.parse_args()

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    heldout_rng = random.Random(args.seed ^ 0x4845_4C44_4F55_5421)
    heldout = {}
    while len(heldout) < 500:
        source, target = draw(heldout_rng)
        heldout.setdefault(tuple(source), (source, target))

    model = Transformer()
    parameters = sum(p.numel() for p in model.parameters())
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3, betas=(0.9, 0.98), eps=1e-9)
    rate = schedule(5e-3, 100, args.steps)
    total = args.warmup_steps + args.steps
    times, split = [], {"batch": 0.0, "forward": 0.0, "backward": 0.0, "optimizer": 0.0}
    for step in range(1, total + 1):
        t0 = time.perf_counter()
        src, tgt_in, tgt_out = batch(rng, args.batch, heldout)
        t1 = time.perf_counter()
        logits = model(src, tgt_in)
        nll = F.cross_entropy(logits.reshape(-1, VOCAB), tgt_out.reshape(-1), reduction="none")
        keep = (tgt_out != PAD).reshape(-1).float()
        loss = (nll * keep).sum() / keep.sum()
        value = loss.item()
        t2 = time.perf_counter()
        if not math.isfinite(value):
            raise SystemExit(f"loss {value} at step {step}")
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        t3 = time.perf_counter()
        for group in optimizer.param_groups:
            group["lr"] = rate(min(step, args.steps))
        optimizer.step()
        t4 = time.perf_counter()
        times.append(t4 - t0)
        if step > args.warmup_steps:
            for key, span in zip(split, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
                split[key] += span
    timed = times[args.warmup_steps :]
    windows = [
        args.window / sum(timed[i : i + args.window])
        for i in range(0, len(timed) - args.window + 1, args.window)
    ]
    result = {
        "engine": f"pytorch {torch.__version__} eager, 1 thread",
        "parameters": parameters,
        "batch": args.batch,
        "steps": args.steps,
        "warmupSteps": args.warmup_steps,
        "stepsPerSecond": statistics.median(windows),
        "windows": [round(w, 2) for w in windows],
        "stepsPerSecondAllSteps": len(times) / sum(times),
        "msPerStep": {k: round(1e3 * v / len(timed), 4) for k, v in split.items()},
        "lastLoss": value,
    }
    if args.eval:
        result["exactMatch"] = exact_match(model, list(heldout.values()))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
