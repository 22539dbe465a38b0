#!/usr/bin/env python3
"""Build tiny random MarianMT checkpoints and save the `transformers` outputs as test fixtures.

This is the offline reference half of issue 12 (`attnscope import marian`). The model hub cannot
be reached from the machines that build and test attnscope, so the reference checkpoints are made
here, from nothing but PyPI packages and the repository's own sentences. The outputs are small
JSON files that are committed, so the Rust test needs no torch. This script is NOT run in CI.

How to run (from the repository root; about ten seconds on one core, after the install):

    python3 -m venv /work/venv-marian
    /work/venv-marian/bin/pip install -r scripts/requirements-marian.txt
    nice -n 19 /work/venv-marian/bin/python scripts/marian/make_fixtures.py

Re-running it with the pinned versions on the same kind of machine gives byte-identical files
(`sha256sum -c` against a previous run; the script itself also checks a few invariants and stops
on the first failure). sacremoses is deliberately not installed: MarianTokenizer only warns
without it, and in the pinned transformers its Moses normalizer is never called by tokenization.

What it writes (everything under tests/fixtures/marian/, which it deletes and rebuilds except
README.md):

    <config>/hf/                 a Hugging Face MarianMT folder, as `save_pretrained` writes it:
        config.json              MarianConfig
        generation_config.json   decoder_start=pad, eos=0, forced_eos=0, bad_words_ids=[[pad]]
        model.safetensors        float32 weights (no positional tables: HF never saves them)
        source.spm, target.spm   SentencePiece models trained here (see TOKENIZER SETUPS)
        vocab.json               joint Marian vocabulary: piece -> id
        tokenizer_config.json, special_tokens_map.json   as MarianTokenizer.save_pretrained writes
    <config>/expected.json       the transformers outputs for 3 sentences (layout below)
    tokenizer_ids.json           MarianTokenizer ids for 500 data sentences + odd strings, for
                                 two tokenizer setups (layout below)

expected.json layout (all floats rounded to 6 decimals; ids are ints):

    {
      "config": "<config name>",
      "hf_dir": "hf",                              relative to the config folder
      "versions": {"transformers": ..., "torch": ..., "sentencepiece": ..., ...},
      "generate_args": {"num_beams": 1, "do_sample": false, "max_new_tokens": 20},
      "special_ids": {"eos": 0, "unk": 1, "pad": V-1, "decoder_start": V-1},
      "cases": [                                   3 sentences
        {
          "text": str,                             the source text given to the tokenizer
          "input_ids": [src_len],                  MarianTokenizer(text).input_ids, ends in </s>=0
          "input_tokens": [src_len],               the same ids as vocab strings
          "generated_ids": [tgt_len],              model.generate(input_ids, **generate_args)[0],
                                                   starting with decoder_start (= pad) and, unless
                                                   20 new tokens were reached first, ending in 0
          "generated_text": str,                   tokenizer.decode(generated_ids, skip_special_tokens=True)
          "decoder_input_ids": [tgt_len],          the ids fed to the teacher-forced pass
                                                   (= generated_ids, whole, no shift)
          "encoder_attentions": [enc_layers][enc_heads][src_len][src_len],
          "decoder_attentions": [dec_layers][dec_heads][tgt_len][tgt_len],   causal self-attention
          "cross_attentions":   [dec_layers][dec_heads][tgt_len][src_len],
          "logits": [tgt_len][vocab],              lm_head(dec_out) + final_logits_bias;
                                                   row i predicts decoder_input_ids[i+1]
          "encoder_output": [src_len][d_model]     last encoder hidden state (for debugging)
        }
      ]
    }

The attentions and logits come from ONE forward pass,
`model(input_ids=..., decoder_input_ids=generated_ids, output_attentions=True)`, batch size 1,
no padding, eager attention, model in eval mode (no dropout). The index order is exactly
transformers' `[layer][head][query][key]` (its batch dimension dropped).

tokenizer_ids.json layout:

    {
      "versions": {...},
      "setups": [
        {
          "hf_dir": "<config>/hf",                 the folder whose tokenizer files were used
          "normalization_rule_name": str,          of both .spm files
          "cases": [
            {"text": str, "input_ids": [...],      MarianTokenizer(text).input_ids (source spm)
             "target_text": str, "labels": [...],  MarianTokenizer(text_target=target_text).input_ids
             "decoded": str}                       tokenizer.decode(labels, skip_special_tokens=True)
          ]
        }
      ]
    }

The first 500 cases of each setup are data pairs (English source, Chinese target) taken every
N-th row of data/tatoeba/tatoeba.tsv; the rest are odd strings (empty, emoji, full-width,
unknown characters, `>>lang<<` prefixes in and out of place, literal special tokens, ...),
given to both sides.

TOKENIZER SETUPS (see tests/fixtures/marian/README.md for why there are two):

    nmt_nfkc  en.spm / zh.spm trained with SentencePiece's default nmt_nfkc normalization
              (its precompiled charsmap alone is ~240 KB per .spm file)
    identity  en.spm / zh.spm trained with normalization_rule_name=identity (empty charsmap)

Both: unigram, bos_id=-1, eos_id=0 (`</s>`), unk_id=1 (`<unk>`), no pad piece, as Marian's own
SentencePiece training does; English vocab_size 160 on the first 3000 English sentences; Chinese
vocab_size 260 on those of the first 3000 Chinese sentences that use only the 160 most frequent
characters of those 3000 (character_coverage must be >= 0.98, and the full set has ~1,800
characters); character_coverage 1.0; one thread; no shuffling; fixed seed.

vocab.json is built the way the opus-mt conversion does it: one joint vocabulary for both sides,
`</s>` = 0, `<unk>` = 1, then the `>>lang<<` tokens (only for the multi-target config), then every
piece of both .spm files ordered by how often it occurs in the two encoded training corpora
(most frequent first, ties by piece string; unused pieces last, in .spm order), and `<pad>` last.
So vocab.json ids are NOT the .spm piece ids: a converter must map piece strings via vocab.json.
"""

from __future__ import annotations

import collections
import csv
import hashlib
import io
import json
import math
import os
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np
import safetensors
import sentencepiece as spm
import torch
import transformers
from safetensors.numpy import load_file
from transformers import GenerationConfig, MarianConfig, MarianMTModel, MarianTokenizer

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "tatoeba" / "tatoeba.tsv"
OUT = ROOT / "tests" / "fixtures" / "marian"

TRAIN_ROWS = 3000
EN_VOCAB = 160
ZH_VOCAB = 260
ZH_TOP_CHARS = 160
N_TOKENIZER_SENTENCES = 500
GENERATE_ARGS = {"num_beams": 1, "do_sample": False, "max_new_tokens": 20}
DECIMALS = 6
LANG_TOKENS = [">>cmn_Hans<<", ">>cmn_Hant<<", ">>yue_Hans<<"]

# The three checkpoints. Every option a converter must honour differs between at least two.


def checkpoint(name: str, seed: int, eos_bias: float, direction: tuple[str, str], normalization: str,
               model: dict, multi_target: bool = False) -> dict:
    """One checkpoint's settings. A multi-target checkpoint has LANG_TOKENS in its vocabulary and its
    source text starts with the first of them."""
    return {
        "name": name,
        "seed": seed,
        "eos_bias": eos_bias,
        "direction": direction,
        "normalization": normalization,
        "lang_tokens": LANG_TOKENS if multi_target else [],
        "text_prefix": LANG_TOKENS[0] + " " if multi_target else "",
        "model": model,
    }


def marian_shape(activation: str, d_model: int, layers: tuple[int, int], heads: tuple[int, int],
                 ffn: tuple[int, int], shared: bool, tied: bool) -> dict:
    """The MarianConfig arguments that differ between the checkpoints. `layers`, `heads` and `ffn` are
    (encoder, decoder); `shared`: one embedding for both sides; `tied`: lm_head is the decoder's
    embedding."""
    return dict(
        activation_function=activation,
        d_model=d_model,
        encoder_layers=layers[0],
        decoder_layers=layers[1],
        encoder_attention_heads=heads[0],
        decoder_attention_heads=heads[1],
        encoder_ffn_dim=ffn[0],
        decoder_ffn_dim=ffn[1],
        share_encoder_decoder_embeddings=shared,
        tie_word_embeddings=tied,
    )


CONFIGS = [
    # Multi-target: the source text starts with >>cmn_Hans<<.
    checkpoint("en_zh_swish_tied", 1201, 6.0, ("en", "zh"), "nmt_nfkc", multi_target=True,
               model=marian_shape("swish", 16, (2, 2), (2, 2), (32, 48), shared=True, tied=True)),
    # lm_head.weight is its own matrix.
    checkpoint("zh_en_gelu_untied", 1202, 9.0, ("zh", "en"), "identity",
               model=marian_shape("gelu", 32, (1, 2), (4, 4), (64, 40), shared=True, tied=False)),
    # Different head counts on the two sides; encoder and decoder embeddings differ; lm_head is
    # the decoder's embedding.
    checkpoint("en_zh_relu_unshared", 1203, 6.0, ("en", "zh"), "identity",
               model=marian_shape("relu", 24, (2, 1), (4, 2), (40, 56), shared=False, tied=True)),
]

# Settings common to every checkpoint.
COMMON_MODEL = dict(
    max_position_embeddings=64,
    scale_embedding=True,
    dropout=0.1,  # irrelevant in eval mode, kept at the opus-mt value
    attention_dropout=0.0,
    activation_dropout=0.0,
    eos_token_id=0,
    forced_eos_token_id=0,
    is_encoder_decoder=True,
)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def read_rows() -> list[list[str]]:
    with open(DATA, encoding="utf-8", newline="") as f:
        reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader)
        assert header == ["zh_id", "en_id", "en", "zh"], header
        return [row for row in reader]


# ---------------------------------------------------------------- SentencePiece + vocab.json


def train_spm(sentences: list[str], vocab_size: int, normalization: str) -> bytes:
    spm.SetRandomGeneratorSeed(12)
    writer = io.BytesIO()
    # sentence_iterator + model_writer keep temp paths out of the serialized trainer_spec.
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences),
        model_writer=writer,
        model_type="unigram",
        vocab_size=vocab_size,
        character_coverage=1.0,
        normalization_rule_name=normalization,
        add_dummy_prefix=True,
        remove_extra_whitespaces=True,
        split_digits=False,
        byte_fallback=False,
        bos_id=-1,
        eos_id=0,
        unk_id=1,
        pad_id=-1,
        input_sentence_size=0,
        shuffle_input_sentence=False,
        num_threads=1,
        seed_sentencepiece_size=100000,
        minloglevel=2,
    )
    return writer.getvalue()


def load_spm_bytes(data: bytes) -> spm.SentencePieceProcessor:
    sp = spm.SentencePieceProcessor()
    sp.LoadFromSerializedProto(data)
    return sp


def spm_pieces(sp: spm.SentencePieceProcessor) -> list[str]:
    """Normal pieces in .spm id order (no </s>, <unk> or other control/unknown pieces)."""
    out = []
    for i in range(sp.get_piece_size()):
        if sp.is_control(i) or sp.is_unknown(i) or sp.is_unused(i):
            continue
        out.append(sp.id_to_piece(i))
    return out


def build_vocab(
    src_sp: spm.SentencePieceProcessor,
    tgt_sp: spm.SentencePieceProcessor,
    src_corpus: list[str],
    tgt_corpus: list[str],
    lang_tokens: list[str],
) -> dict[str, int]:
    counts: collections.Counter[str] = collections.Counter()
    for sp, corpus in ((src_sp, src_corpus), (tgt_sp, tgt_corpus)):
        for s in corpus:
            counts.update(sp.encode(s, out_type=str))
    ordered: list[str] = ["</s>", "<unk>", *lang_tokens]
    seen = set(ordered)
    all_pieces = []
    for p in spm_pieces(src_sp) + spm_pieces(tgt_sp):
        if p not in seen and p not in all_pieces:
            all_pieces.append(p)
    used = sorted((p for p in all_pieces if counts[p] > 0), key=lambda p: (-counts[p], p))
    unused = [p for p in all_pieces if counts[p] == 0]
    for p in used + unused:
        ordered.append(p)
        seen.add(p)
    ordered.append("<pad>")
    return {p: i for i, p in enumerate(ordered)}


class TokenizerSetup:
    def __init__(self, normalization: str, en_train: list[str], zh_train: list[str]):
        self.normalization = normalization
        self.spm_bytes = {
            "en": train_spm(en_train, EN_VOCAB, normalization),
            "zh": train_spm(zh_train, ZH_VOCAB, normalization),
        }
        self.sp = {k: load_spm_bytes(v) for k, v in self.spm_bytes.items()}
        self.train = {"en": en_train, "zh": zh_train}


# ---------------------------------------------------------------- model


def stable_seed(*parts) -> int:
    h = hashlib.sha256("/".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[:8], "little") & ((1 << 63) - 1)


def randomize(model: MarianMTModel, seed: int, eos_bias: float) -> None:
    """Overwrite every parameter with seeded values that make a usable test model.

    Each tensor gets its own generator, seeded from (config seed, parameter name), so the values
    do not depend on module iteration order. Tied parameters are visited once (named_parameters
    deduplicates), so ties survive. The scales were chosen so that (a) attention is far from
    uniform (query/key projections 1.6/sqrt(fan_in): score std ~2.5 after a layer norm), (b)
    greedy decoding does not collapse into one repeated token: embeddings are large (std 0.8,
    times sqrt(d_model)) next to the sub-layer outputs (out_proj and fc2 0.5/sqrt(fan_in)), and
    every layer norm weight has a random sign, so a tied lm_head does not simply predict the
    input token again; (c) final_logits_bias is visibly non-zero (std 0.3), with `eos_bias`
    added to </s> (id 0) so that some sentences end before the length limit.
    """
    d = model.config.d_model
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "embed_positions" in name:
                continue  # fixed sinusoidal table, not trained and never saved
            g = torch.Generator().manual_seed(stable_seed(seed, name))
            shape = p.shape
            if name.endswith("layer_norm.weight"):
                v = 1.0 + 0.2 * torch.randn(shape, generator=g)
                v = v * torch.where(torch.rand(shape, generator=g) < 0.5, -1.0, 1.0)
            elif name.endswith(".bias"):  # attention, fc and layer norm biases
                v = 0.05 * torch.randn(shape, generator=g)
            elif "embed_tokens" in name or "shared" in name or name == "lm_head.weight":
                v = 0.8 * torch.randn(shape, generator=g)
            elif name.endswith("fc2.weight") or "out_proj.weight" in name:
                v = 0.5 * torch.randn(shape, generator=g) / math.sqrt(shape[1])
            elif ".layers.0.self_attn." in name and (".q_proj." in name or ".k_proj." in name):
                # The first self-attention sees the raw embedding sum (std ~0.8*sqrt(d_model)),
                # not a layer-normed input: scale down so its scores are not one-hot either.
                v = 1.6 * torch.randn(shape, generator=g) / math.sqrt(shape[1]) / (0.8 * math.sqrt(d))
            else:  # other q/k/v projections and fc1
                v = 1.6 * torch.randn(shape, generator=g) / math.sqrt(shape[1])
            p.copy_(v)
        g = torch.Generator().manual_seed(stable_seed(seed, "final_logits_bias"))
        bias = 0.3 * torch.randn(model.final_logits_bias.shape, generator=g)
        bias[0, 0] += eos_bias
        model.final_logits_bias.copy_(bias)


def make_model(cfg: dict, vocab: dict[str, int]) -> MarianMTModel:
    pad = vocab["<pad>"]
    config = MarianConfig(
        vocab_size=len(vocab),
        decoder_vocab_size=len(vocab),
        pad_token_id=pad,
        decoder_start_token_id=pad,
        **COMMON_MODEL,
        **cfg["model"],
    )
    torch.manual_seed(cfg["seed"])
    model = MarianMTModel(config)
    randomize(model, cfg["seed"], cfg["eos_bias"])
    model.generation_config = GenerationConfig(
        decoder_start_token_id=pad,
        bos_token_id=None,
        eos_token_id=0,
        pad_token_id=pad,
        forced_eos_token_id=0,
        bad_words_ids=[[pad]],
        max_length=config.max_position_embeddings,
        num_beams=1,
    )
    model.eval()
    return model


def sinusoid_reference(n_pos: int, dim: int) -> np.ndarray:
    """The documented formula (docs/weights-file.md): sin in columns [0, dim/2), cos in [dim/2, dim)."""
    half = dim // 2
    pos = np.arange(n_pos, dtype=np.float64)[:, None]
    i = np.arange(half, dtype=np.float64)[None, :]
    angle = pos / np.power(10000.0, 2.0 * i / dim)
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=1).astype(np.float32)


# ---------------------------------------------------------------- JSON helpers


def rnd(x) -> object:
    """Nested lists of floats rounded to DECIMALS; -0.0 written as 0.0."""
    arr = np.asarray(x, dtype=np.float64)
    arr = np.round(arr, DECIMALS) + 0.0
    return arr.tolist()


def dump_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    path.write_text(text + "\n", encoding="utf-8")


def versions() -> dict[str, str]:
    return {
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "sentencepiece": spm.__version__,
        "safetensors": safetensors.__version__,
        "numpy": np.__version__,
    }


# ---------------------------------------------------------------- fixtures


def write_hf_folder(cfg: dict, setup: TokenizerSetup, hf: Path) -> tuple[MarianMTModel, MarianTokenizer]:
    src, tgt = cfg["direction"]
    hf.mkdir(parents=True)
    (hf / "source.spm").write_bytes(setup.spm_bytes[src])
    (hf / "target.spm").write_bytes(setup.spm_bytes[tgt])
    vocab = build_vocab(setup.sp[src], setup.sp[tgt], setup.train[src], setup.train[tgt], cfg["lang_tokens"])
    with open(hf / "vocab.json", "w", encoding="utf-8") as f:
        json.dump(vocab, f, indent=2, ensure_ascii=False)
        f.write("\n")
    lang = {"en": "eng", "zh": "zho"}
    tok = MarianTokenizer(
        str(hf / "source.spm"),
        str(hf / "target.spm"),
        str(hf / "vocab.json"),
        source_lang=lang[src],
        target_lang=lang[tgt],
    )
    tok.save_pretrained(str(hf))
    model = make_model(cfg, vocab)
    model.save_pretrained(str(hf), safe_serialization=True)

    # Reload both from disk: the fixtures describe the saved folder, not the in-memory objects.
    tok = MarianTokenizer.from_pretrained(str(hf))
    model2 = MarianMTModel.from_pretrained(str(hf), attn_implementation="eager")
    model2.eval()
    sd1, sd2 = model.state_dict(), model2.state_dict()
    assert sd1.keys() == sd2.keys()
    for k in sd1:
        assert torch.equal(sd1[k], sd2[k]), f"{k} changed on save/load"
    return model2, tok


def check_checkpoint(cfg: dict, model: MarianMTModel, tok: MarianTokenizer, hf: Path) -> None:
    """Assert the facts that tests/fixtures/marian/README.md states about the saved folder."""
    c = model.config
    pad = tok.pad_token_id
    assert tok.convert_tokens_to_ids(["</s>", "<unk>"]) == [0, 1]
    assert pad == len(tok.encoder) - 1 == c.pad_token_id == c.decoder_start_token_id
    tensors = load_file(str(hf / "model.safetensors"))
    keys = set(tensors)
    assert not any("embed_positions" in k for k in keys), "positional tables are not saved"
    assert "final_logits_bias" in keys and np.abs(tensors["final_logits_bias"]).max() > 0.1
    if c.share_encoder_decoder_embeddings:
        assert "model.shared.weight" in keys
        assert "model.encoder.embed_tokens.weight" not in keys
        assert "model.decoder.embed_tokens.weight" not in keys
    else:
        assert "model.shared.weight" not in keys
        assert "model.encoder.embed_tokens.weight" in keys and "model.decoder.embed_tokens.weight" in keys
    if c.tie_word_embeddings:
        assert "lm_head.weight" not in keys
        dec = model.model.decoder.embed_tokens.weight
        assert model.lm_head.weight.data_ptr() == dec.data_ptr()
    else:
        assert "lm_head.weight" in keys
    # Pad row is non-zero: it is the decoder start embedding.
    assert model.model.decoder.embed_tokens.weight[pad].abs().max() > 0.1
    for part in (model.model.encoder, model.model.decoder):
        w = part.embed_positions.weight.detach().numpy()
        assert np.array_equal(w, sinusoid_reference(c.max_position_embeddings, c.d_model)), "sinusoid formula"
        assert math.isclose(part.embed_scale, math.sqrt(c.d_model))
    # >>lang<< tokens stay single ids.
    for code in cfg["lang_tokens"]:
        ids = tok(code + " I love apples.").input_ids
        assert ids[0] == tok.encoder[code] and tok.encoder[code] not in (0, 1), (code, ids)


def run_case(model: MarianMTModel, tok: MarianTokenizer, text: str) -> dict:
    enc = tok(text, return_tensors="pt")
    input_ids = enc.input_ids
    with torch.no_grad():
        gen = model.generate(input_ids, attention_mask=enc.attention_mask, **GENERATE_ARGS)
        dec_ids = gen
        out = model(
            input_ids=input_ids,
            attention_mask=enc.attention_mask,
            decoder_input_ids=dec_ids,
            output_attentions=True,
            return_dict=True,
        )
    pad = tok.pad_token_id
    gen_list = gen[0].tolist()
    assert gen_list[0] == pad and pad not in gen_list[1:]
    logits = out.logits[0]
    # Teacher forcing reproduces greedy decoding: argmax of row i (pad excluded by bad_words_ids)
    # is the next token, except a </s> forced at the length limit.
    masked = logits.clone()
    masked[:, pad] = -float("inf")
    arg = masked.argmax(-1).tolist()
    for i in range(len(gen_list) - 1):
        forced = i + 1 == GENERATE_ARGS["max_new_tokens"] and gen_list[i + 1] == 0
        assert forced or arg[i] == gen_list[i + 1], (i, arg, gen_list)
    for group in (out.encoder_attentions, out.decoder_attentions, out.cross_attentions):
        for a in group:
            s = a.sum(-1)
            assert torch.allclose(s, torch.ones_like(s), atol=1e-5)
    return {
        "text": text,
        "input_ids": input_ids[0].tolist(),
        "input_tokens": tok.convert_ids_to_tokens(input_ids[0].tolist()),
        "generated_ids": gen_list,
        "generated_text": tok.decode(gen_list, skip_special_tokens=True),
        "decoder_input_ids": dec_ids[0].tolist(),
        "encoder_attentions": [rnd(a[0]) for a in out.encoder_attentions],
        "decoder_attentions": [rnd(a[0]) for a in out.decoder_attentions],
        "cross_attentions": [rnd(a[0]) for a in out.cross_attentions],
        "logits": rnd(logits),
        "encoder_output": rnd(out.encoder_last_hidden_state[0]),
    }


def attention_spread(cases: list[dict]) -> float:
    """Largest distance of any attention row from uniform; a small value means a weak test."""
    best = 0.0
    for case in cases:
        for kind in ("encoder_attentions", "decoder_attentions", "cross_attentions"):
            for layer in case[kind]:
                for head in layer:
                    for row in head:
                        best = max(best, max(row) - 1.0 / len(row))
    return best


def fixture_sentences(rows: list[list[str]], src: str) -> list[str]:
    """'I love eating apples.' (or its Chinese) and two data sentences after the training rows:
    the first with 4-7 words and the first with 9-12 words (English), or their Chinese sides."""
    short = next(r for r in rows[TRAIN_ROWS:] if 4 <= len(r[2].split()) <= 7)
    long = next(r for r in rows[TRAIN_ROWS:] if 9 <= len(r[2].split()) <= 12)
    if src == "en":
        return ["I love eating apples.", short[2], long[2]]
    return ["我喜欢吃苹果。", short[3], long[3]]


ODD_TEXTS = [
    "",
    " ",
    "   leading and trailing   ",
    "multiple    spaces\tand a tab",
    "line one\nline two",
    "😀",
    "I love 🍎 apples! 😀😀",
    "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３！",
    "ﬁne café naïve résumé",
    "e\u0301 combining accent",
    "zero\u200bwidth space",
    "Wait… “quotes” – dash ™ ½ x² Ⅻ",
    "Ελληνικά и кириллица",
    "我喜欢吃苹果。",
    "我",
    "I 我 you",
    "a😀b😀😀c",
    "鬱龘 rare characters",
    ">>cmn_Hans<< I love eating apples.",
    ">>cmn_Hans<<I love eating apples.",
    " >>cmn_Hans<< leading space before the code",
    ">>cmn_Hant<< >>yue_Hans<< two codes",
    ">>xx_Unknown<< a code not in the vocabulary",
    "a code >>cmn_Hans<< in the middle",
    ">>broken code",
    "literal </s> and <unk> and <pad> in text",
    "</s>",
    "UPPER lower MiXeD 12345 3.14",
    "Tom's \"quoted\" (parenthesised) [bracketed] {braced}",
]


def tokenizer_cases(tok: MarianTokenizer, pairs: list[tuple[str, str]]) -> list[dict]:
    out = []
    for en, zh in pairs:
        ids = tok(en).input_ids
        labels = tok(text_target=zh).input_ids
        assert ids[-1] == 0 and labels[-1] == 0
        out.append(
            {
                "text": en,
                "input_ids": ids,
                "target_text": zh,
                "labels": labels,
                "decoded": tok.decode(labels, skip_special_tokens=True),
            }
        )
    return out


def main() -> None:
    warnings.filterwarnings("ignore", message="Recommended: pip install sacremoses")
    transformers.logging.set_verbosity_error()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    rows = read_rows()
    head = rows[:TRAIN_ROWS]
    en_train = [r[2] for r in head]
    char_counts = collections.Counter(ch for r in head for ch in r[3])
    top = {ch for ch, _ in sorted(char_counts.items(), key=lambda kv: (-kv[1], kv[0]))[:ZH_TOP_CHARS]}
    zh_train = [r[3] for r in head if set(r[3]) <= top]
    log(f"training SentencePiece: {len(en_train)} English, {len(zh_train)} Chinese sentences")
    setups = {n: TokenizerSetup(n, en_train, zh_train) for n in ("nmt_nfkc", "identity")}

    for child in sorted(OUT.iterdir()) if OUT.exists() else []:
        if child.name == "README.md":
            continue
        shutil.rmtree(child) if child.is_dir() else child.unlink()
    OUT.mkdir(parents=True, exist_ok=True)

    tokenizers_for_ids = {}
    for cfg in CONFIGS:
        name = cfg["name"]
        setup = setups[cfg["normalization"]]
        hf = OUT / name / "hf"
        model, tok = write_hf_folder(cfg, setup, hf)
        check_checkpoint(cfg, model, tok, hf)
        src = cfg["direction"][0]
        texts = [cfg["text_prefix"] + t for t in fixture_sentences(rows, src)]
        cases = [run_case(model, tok, t) for t in texts]
        spread = attention_spread(cases)
        assert spread > 0.3, f"{name}: attention too close to uniform ({spread:.3f})"
        pad = tok.pad_token_id
        dump_json(
            OUT / name / "expected.json",
            {
                "config": name,
                "hf_dir": "hf",
                "versions": versions(),
                "generate_args": GENERATE_ARGS,
                "special_ids": {"eos": 0, "unk": 1, "pad": pad, "decoder_start": pad},
                "cases": cases,
            },
        )
        lens = [len(c["generated_ids"]) for c in cases]
        log(f"{name}: vocab {len(tok.encoder)}, generated lengths {lens}, max attention spread {spread:.3f}")
        if cfg["direction"] == ("en", "zh") and cfg["normalization"] not in tokenizers_for_ids:
            tokenizers_for_ids[cfg["normalization"]] = (name, tok)

    stride = len(rows) // N_TOKENIZER_SENTENCES
    data_pairs = [(rows[i * stride][2], rows[i * stride][3]) for i in range(N_TOKENIZER_SENTENCES)]
    odd_pairs = [(t, t) for t in ODD_TEXTS]
    setups_out = []
    for norm in ("nmt_nfkc", "identity"):
        name, tok = tokenizers_for_ids[norm]
        cases = tokenizer_cases(tok, data_pairs + odd_pairs)
        setups_out.append({"hf_dir": f"{name}/hf", "normalization_rule_name": norm, "cases": cases})
        # The multi-target tokenizer keeps a leading >>lang<< as one id.
        if name == "en_zh_swish_tied":
            lang_case = next(c for c in cases if c["text"] == ">>cmn_Hans<< I love eating apples.")
            assert lang_case["input_ids"][0] == tok.encoder[">>cmn_Hans<<"]
    dump_json(OUT / "tokenizer_ids.json", {"versions": versions(), "setups": setups_out})

    total = 0
    for path in sorted(OUT.rglob("*")):
        if path.is_file():
            total += path.stat().st_size
            log(f"{path.stat().st_size:>9}  {path.relative_to(ROOT)}")
    log(f"{total:>9}  total")


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
