//! Data-parallel training: a batch split across threads gives the whole batch's loss and
//! gradients (dropout off, so nothing random is drawn), parameter by parameter; with dropout on,
//! the same seed and step give the same gradients on every run, and another step other ones; a
//! tied model's unused projection weight is untracked.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use attnscope::model::Transformer;
use attnscope::text::{build_tokenizer, Granularity};
use attnscope::train::data::Pair;
use attnscope::train::{batch_gradients, tokenize_pairs, Example, TrainOptions};
use attnscope::ModelConfig;
use burn::module::{Module, ModuleVisitor, Param};
use burn::optim::GradientsParams;
use burn::tensor::{Device, Tensor};

const TARGETS: [&str; 5] = [
    "我爱吃苹果。",
    "你喜欢茶",
    "我们每天吃面条",
    "他不喝咖啡。",
    "苹果很好吃",
];
const SOURCES: [&str; 5] = [
    "I love eating apples.",
    "You like tea",
    "We eat noodles every day",
    "He does not drink coffee.",
    "Apples are tasty",
];

fn tiny_run(dropout: f64) -> (ModelConfig, Vec<Example>) {
    let pairs: Vec<Pair> = SOURCES
        .iter()
        .zip(TARGETS)
        .map(|(s, t)| Pair::new(*s, t))
        .collect();
    let src = build_tokenizer(Granularity::Subwords { vocab_size: 60 }, SOURCES, 1).unwrap();
    let tgt = build_tokenizer(Granularity::Characters, TARGETS, 1).unwrap();
    let mut config = ModelConfig::en_zh(src.vocab_size(), tgt.vocab_size());
    common::resize(&mut config, [16, 2, 2, 2, 24, 24]);
    config.dropout = dropout;
    let (examples, _) = tokenize_pairs(&pairs, &config, &src, &tgt).unwrap();
    (config, examples)
}

fn options(threads: usize) -> TrainOptions {
    TrainOptions {
        epochs: 1,
        batch_size: 5,
        learning_rate: 1e-3,
        warmup_steps: 1,
        label_smoothing: 0.1,
        seed: 3,
        time_limit: None,
        progress: false,
        checkpoints: None,
        stop_after_epochs: None,
        threads,
    }
}

/// Every parameter's gradient in `a` and `b`, as (parameter count, largest difference, largest
/// magnitude).
struct Compare {
    a: GradientsParams,
    b: GradientsParams,
    params: usize,
    worst: f32,
    largest: f32,
}

impl ModuleVisitor for Compare {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let values = |grads: &GradientsParams| {
            let grad = grads
                .get::<D>(param.id)
                .expect("a gradient for every parameter");
            grad.into_data().try_to_vec::<f32>().unwrap()
        };
        let (a, b) = (values(&self.a), values(&self.b));
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            self.worst = self.worst.max((x - y).abs());
            self.largest = self.largest.max(x.abs());
        }
        self.params += 1;
    }
}

fn compare(model: &Transformer, a: GradientsParams, b: GradientsParams) -> (usize, f32, f32) {
    let mut compare = Compare {
        a,
        b,
        params: 0,
        worst: 0.0,
        largest: 0.0,
    };
    model.visit(&mut compare);
    (compare.params, compare.worst, compare.largest)
}

#[test]
fn threads_share_a_batch_and_give_its_gradients() {
    let device = Device::flex().autodiff();
    let batch = [0, 1, 2, 3, 4];
    let (config, examples) = tiny_run(0.0);
    let model = Transformer::new(&config, &device);
    let params = model.num_params();
    let grads = |threads| {
        batch_gradients(&model, &config, &examples, &batch, &options(threads), 0).unwrap()
    };
    let (loss_1, _) = grads(1);
    assert!(loss_1 > 1.0, "a real loss: {loss_1}");
    for threads in [2, 3] {
        // 3 threads: shares of 2, 2 and 1 sentences of unequal lengths, weighed by their tokens.
        let (loss_n, many) = grads(threads);
        assert!((loss_1 - loss_n).abs() < 1e-5, "{loss_1} against {loss_n}");
        let (count, worst, largest) = compare(&model, grads(1).1, many);
        assert!(count > 30, "{count} parameters compared");
        assert!(largest > 1e-3, "real gradients: largest {largest}");
        assert!(
            worst < 1e-6,
            "{threads} threads: gradients differ by {worst}"
        );
    }
    assert_eq!(params, model.num_params());

    // Dropout on: each thread draws its own masks, from the seed and the step.
    let (config, examples) = tiny_run(0.3);
    let model = Transformer::new(&config, &device);
    let run =
        |step| batch_gradients(&model, &config, &examples, &batch, &options(2), step).unwrap();
    let (first, a) = run(4);
    let (again, b) = run(4);
    assert_eq!(first, again);
    let (_, worst, _) = compare(&model, a, b);
    assert_eq!(worst, 0.0, "the same seed and step, the same gradients");
    let (other, c) = run(5);
    assert_ne!(first, other, "another step, other masks");
    let (_, worst, _) = compare(&model, run(4).1, c);
    assert!(worst > 1e-4, "another step, other gradients: {worst}");
}

/// A tied model trains its target embedding as the output projection, so its separate
/// `projection.weight` takes no part in the graph: it is untracked and gets no gradient, while
/// the embedding gets one. (Tracked, it was an unused autodiff root at every step, which burn
/// 0.22 keeps and scans: a tied zh-en's step grew from 0.19 s to 0.7 s over 9,000 steps.)
#[test]
fn a_tied_model_leaves_its_separate_projection_untracked() {
    let device = Device::flex().autodiff();
    let (mut config, examples) = tiny_run(0.0);
    let untied = Transformer::new(&config, &device);
    assert!(untied.projection.weight.val().is_require_grad());
    config.tie_output = true;
    let model = untied.tied_in_graph(true);
    assert!(!model.projection.weight.val().is_require_grad());
    for threads in [1, 2] {
        let (loss, grads) =
            batch_gradients(&model, &config, &examples, &[0, 1, 2], &options(threads), 0).unwrap();
        assert!(loss > 1.0, "a real loss: {loss}");
        assert!(grads.get::<2>(model.projection.weight.id).is_none());
        let embedding = grads.get::<2>(model.tgt_embed.weight.id).unwrap();
        assert_eq!(embedding.dims(), [config.tgt_vocab_size, config.d_model]);
    }
}
