use super::*;
use crate::model::config::ModelConfig;
use crate::model::Transformer;
use burn::tensor::Device;

/// A deterministic, irregular fill.
fn values(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| (((i as u32).wrapping_mul(2_654_435_761) ^ seed) % 2001) as f32 / 1000.0 - 1.0)
        .collect()
}

/// The plain loop over burn's `[d_in, d_out]` layout.
fn plain(x: &[f32], w: &[f32], b: Option<&[f32]>, d_in: usize, d_out: usize) -> Vec<f32> {
    let rows = x.len() / d_in;
    let mut out = vec![0.0f64; rows * d_out];
    for r in 0..rows {
        for j in 0..d_out {
            let mut sum = b.map_or(0.0, |b| f64::from(b[j]));
            for i in 0..d_in {
                sum += f64::from(x[r * d_in + i]) * f64::from(w[i * d_out + j]);
            }
            out[r * d_out + j] = sum;
        }
    }
    out.into_iter().map(|v| v as f32).collect()
}

fn check(rows: usize, d_in: usize, d_out: usize, with_bias: bool) {
    let x = values(rows * d_in, 7);
    let w = values(d_in * d_out, 11);
    let b = with_bias.then(|| values(d_out, 13));
    let linear = PackedLinear::new(&w, d_in, d_out, b.clone()).unwrap();
    let mut out = vec![0.0; rows * d_out];
    linear.apply(&x, &mut out);
    let expected = plain(&x, &w, b.as_deref(), d_in, d_out);
    for (k, (got, want)) in out.iter().zip(&expected).enumerate() {
        let tolerance = 1e-5 * (1.0 + want.abs()) * (d_in as f32).sqrt();
        assert!(
            (got - want).abs() <= tolerance,
            "{rows}×{d_in}→{d_out} at {k}: {got} vs {want}"
        );
    }
}

#[test]
fn equals_the_plain_loop_on_odd_sizes() {
    for &rows in &[1, 3, 17, 65] {
        for &d_in in &[1, 3, 17, 65] {
            for &d_out in &[1, 3, 17, 65] {
                check(rows, d_in, d_out, (d_in + d_out) % 2 == 0);
            }
        }
    }
}

#[test]
fn equals_the_plain_loop_on_the_shipped_shapes() {
    // en-zh: d_model 192, d_ff 768, 2,878 target tokens; date-iso: d_model 64, d_ff 256.
    for &(d_in, d_out) in &[(192, 192), (192, 768), (768, 192), (192, 2878), (64, 256)] {
        check(1, d_in, d_out, true);
        check(4, d_in, d_out, false);
        check(33, d_in, d_out, true);
    }
}

/// Read in two bands (1,100 outputs of 1,024 inputs: a band is 1,024 outputs), from a
/// `Linear` and from the rows of a tied embedding: the same tiles as packing the whole matrix.
#[test]
fn packs_band_by_band_from_a_linear_and_from_embedding_rows() {
    let (d_in, d_out) = (1024, 1100);
    let device = Device::flex();
    let weight = values(d_in * d_out, 3); // [d_in, d_out]
    let bias = values(d_out, 5);
    let whole = PackedLinear::new(&weight, d_in, d_out, Some(bias.clone())).unwrap();
    let tensor = |values: Vec<f32>, shape: [usize; 2]| {
        Tensor::<2>::from_data(TensorData::new(values, shape), &device)
    };
    let bias = Param::from_tensor(Tensor::<1>::from_data(
        TensorData::new(bias, [d_out]),
        &device,
    ));
    let linear = Linear {
        weight: Param::from_tensor(tensor(weight.clone(), [d_in, d_out])),
        bias: Some(bias.clone()),
    };
    let from_linear = crate::block_on(PackedLinear::from_linear(&linear)).unwrap();
    let rows = crate::files::walk::transpose(&weight, d_in, d_out); // [d_out, d_in]
    let rows = tensor(rows, [d_out, d_in]);
    let from_rows = crate::block_on(PackedLinear::from_rows(&rows, Some(&bias))).unwrap();
    for packed in [from_linear, from_rows] {
        assert_eq!(packed.tiles, whole.tiles);
        assert_eq!(packed.bias, whole.bias);
        assert_eq!((packed.d_in, packed.d_out), (d_in, d_out));
    }
}

/// A tied model that keeps no copy of its embedding (`read_logits_from_embedding`, as
/// loaded where weights are packed): the packed projection gives `x · Eᵀ + b`.
#[test]
fn a_tied_model_without_its_copy_packs_its_projection_from_the_embedding() {
    let device = Device::flex();
    let mut config = ModelConfig::en_zh(40, 75);
    config.tie_output = true;
    let mut model = Transformer::new(&config, &device);
    model.read_logits_from_embedding();
    let packed = crate::block_on(PackedWeights::new(&model)).unwrap();
    let d = config.d_model;
    let x = Tensor::<3>::from_data(TensorData::new(values(2 * 3 * d, 1), [2, 3, d]), &device);
    let direct = crate::block_on(read(model.logits(x.clone(), None))).unwrap();
    let through = model.logits(x, Some(&packed.projection)); // [2, 3, 75]
    let through = crate::block_on(read(through)).unwrap();
    assert_eq!(direct.len(), 2 * 3 * 75);
    for (k, (a, b)) in direct.iter().zip(&through).enumerate() {
        assert!(
            (a - b).abs() <= 1e-4 * (1.0 + a.abs()),
            "at {k}: {a} vs {b}"
        );
    }
}

#[test]
fn refuses_a_shape_its_weights_do_not_have() {
    assert!(PackedLinear::new(&[1.0; 6], 2, 4, None).is_err());
    assert!(PackedLinear::new(&[1.0; 6], 2, 3, Some(vec![0.0; 2])).is_err());
    assert!(PackedLinear::new(&[], 0, 3, None).is_err());
}
