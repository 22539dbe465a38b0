//! `SPLIT=1 cargo bench --bench native`: issue 58 part 5's split of the native forward (en-zh,
//! 32 source tokens, the greedy output) into tokenizing, model arithmetic and attention readback,
//! and of one cached step at the end of the output against a full re-decode.
//!
//! "arithmetic" calls the model (`LoadedModel::model`) and reads back only what the next stage
//! needs (the encoder's memory, the logits), which forces every kernel; it goes through packed
//! weights where the session packs them (`packs`: natively on an x86-64 CPU with AVX2 and FMA,
//! where whole layers run on the host), as the session's rows do; "readback" is the
//! session's own transfer of every attention matrix (`Tensor::cat` of them all, one
//! `into_data`, split per layer), timed on tensors already computed. The session rows are the
//! calls that `benches/RESULTS.md`'s "forward" adds up (`start` + `recompute_decoder`).

use attnscope::files::folder::ModelFolder;
use attnscope::model::packed::{packs, PackedWeights};
use attnscope::model::KeyValue;
use attnscope::{block_on, LoadedModel, Session};
use burn::tensor::{Device, Int, Tensor, TensorData};

use super::{sentence, time};

/// Every attention matrix in one transfer, as the session reads them (`session::readback`).
fn read_all(parts: Vec<Tensor<1>>) -> Vec<Vec<f32>> {
    let lengths: Vec<usize> = parts.iter().map(|t| t.dims()[0]).collect();
    let values = Tensor::cat(parts, 0)
        .into_data()
        .try_into_vec::<f32>()
        .unwrap();
    let mut offset = 0;
    let mut out = Vec::with_capacity(lengths.len());
    for length in lengths {
        out.push(values[offset..offset + length].to_vec());
        offset += length;
    }
    out
}

fn flat<const D: usize>(tensor: Tensor<D>) -> Tensor<1> {
    let n: usize = tensor.dims().iter().product();
    tensor.reshape([n])
}

fn ids(values: &[u32], device: &Device) -> Tensor<2, Int> {
    let values: Vec<i64> = values.iter().map(|&v| i64::from(v)).collect();
    let n = values.len();
    Tensor::from_data(TensorData::new(values, [1, n]), device)
}

fn row(name: &str, (median, p95): (f64, f64)) {
    println!("| {name} | {median:.3} | {p95:.3} |");
}

pub fn split(root: &std::path::Path) {
    let device = Device::flex();
    let folder = ModelFolder::read(&root.join("models/en-zh")).unwrap();
    let loaded = LoadedModel::load(folder.files(), &device).unwrap();
    let mut session = Session::load(folder.files(), device.clone()).unwrap();
    let text = sentence(&session, "en-zh", 32);
    block_on(session.translate(&text)).unwrap();
    let trace = session.trace().unwrap();
    let tgt: Vec<u32> = trace.tgt_ids[..trace.rows()].to_vec();
    let src = loaded.source_ids(&text).unwrap();
    let model = &loaded.model;
    let packed = packs(&device).then(|| block_on(PackedWeights::new(model)).unwrap());
    let packed = packed.as_ref();
    println!(
        "en-zh, {} source tokens, {} decoder rows\n",
        src.len(),
        tgt.len()
    );
    println!("| part | median ms | p95 ms |\n|---|---|---|");
    row(
        "session: start (tokenize, encode, cross K/V, encoder attention read back)",
        time(|| {
            block_on(session.start(&text)).unwrap();
        }),
    );
    block_on(session.translate(&text)).unwrap();
    row(
        "session: recompute_decoder (decoder over the output, every attention and the logits read back)",
        time(|| {
            block_on(session.recompute_decoder()).unwrap();
        }),
    );
    row(
        "tokenize the source",
        time(|| {
            loaded.source_ids(&text).unwrap();
        }),
    );
    row(
        "encoder arithmetic (memory read back)",
        time(|| {
            let encoded = model.encode_packed(ids(&src, &device), None, packed);
            encoded.memory.into_data();
        }),
    );
    let encoded = model.encode_packed(ids(&src, &device), None, packed);
    row(
        "cross K/V of every decoder layer (start's; decode computes them again)",
        time(|| {
            let cross = model.cross_key_values_packed(encoded.memory.clone(), packed);
            cross.last().unwrap().values.clone().into_data();
        }),
    );
    row(
        "encoder attention read back (every layer)",
        time(|| {
            read_all(
                encoded
                    .attention
                    .iter()
                    .map(|a| flat(a.weights.clone()))
                    .collect(),
            );
        }),
    );
    row(
        "decoder arithmetic incl. its cross K/V (logits read back)",
        time(|| {
            let cross = model.cross_key_values_packed(encoded.memory.clone(), packed);
            let mask = &encoded.padding_mask;
            let decoded = model.decode_projected(ids(&tgt, &device), &cross, mask, packed);
            decoded.logits.into_data();
        }),
    );
    let cross = model.cross_key_values_packed(encoded.memory.clone(), packed);
    let mask = &encoded.padding_mask;
    let decoded = model.decode_projected(ids(&tgt, &device), &cross, mask, packed);
    row(
        "decoder attention read back (self + cross, every layer)",
        time(|| {
            let mut parts: Vec<Tensor<1>> = decoded
                .attention
                .iter()
                .map(|a| flat(a.self_attention.weights.clone()))
                .collect();
            parts.extend(
                decoded
                    .attention
                    .iter()
                    .map(|a| flat(a.cross_attention.weights.clone())),
            );
            read_all(parts);
        }),
    );
    step_split(&mut session, &loaded, (&encoded, &cross), &tgt, packed);
}

/// One cached step at the end of the output: the session's call, and the model's `decode_step`
/// alone (logits read back), against the full re-decode's arithmetic.
fn step_split(
    session: &mut Session,
    loaded: &LoadedModel,
    (encoded, cross): (&attnscope::model::EncoderOutput, &[KeyValue]),
    tgt: &[u32],
    packed: Option<&PackedWeights>,
) {
    let device = Device::flex();
    let model = &loaded.model;
    row(
        "session: one cached step at the end (back + step)",
        time(|| {
            block_on(session.back()).unwrap();
            block_on(session.step()).unwrap();
        }),
    );
    // back and step apart, 30 runs after 5 warm-up.
    let (mut backs, mut steps) = (vec![], vec![]);
    for run in 0..35 {
        let t = std::time::Instant::now();
        block_on(session.back()).unwrap();
        let b = t.elapsed().as_secs_f64() * 1e3;
        block_on(session.step()).unwrap();
        let s = t.elapsed().as_secs_f64() * 1e3 - b;
        if run >= 5 {
            backs.push(b);
            steps.push(s);
        }
    }
    row("session: back alone", super::stats(backs));
    row("session: step alone", super::stats(steps));
    let config = &loaded.config;
    let last = tgt.len() - 1;
    let mut cache = vec![None; config.n_decoder_layers];
    for (position, &id) in tgt[..last].iter().enumerate() {
        model.decode_step(
            ids(&[id], &device),
            position,
            cross,
            &encoded.padding_mask,
            &mut cache,
            packed,
        );
    }
    row(
        "decode_step arithmetic at the end (logits read back)",
        time(|| {
            let mut grown = cache.clone();
            let out = model.decode_step(
                ids(&tgt[last..], &device),
                last,
                cross,
                &encoded.padding_mask,
                &mut grown,
                packed,
            );
            out.logits.into_data();
        }),
    );
}
