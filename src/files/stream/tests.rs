use super::*;
use crate::files::weights::{serialize, HostTensor};

/// A small file: three tensors of odd sizes, F16 or F32.
fn file(half: bool) -> Vec<u8> {
    let tensor = |shape: Vec<usize>, seed: f32| {
        let n: usize = shape.iter().product();
        let data = (0..n).map(|i| (i as f32 * 0.37 + seed).sin()).collect();
        HostTensor { shape, data }
    };
    let tensors = vec![
        ("b.weight".to_string(), tensor(vec![3, 5], 1.0)),
        ("a.bias".to_string(), tensor(vec![7], 2.0)),
        ("c".to_string(), tensor(vec![2, 1, 3], 3.0)),
    ];
    serialize(&tensors, half).unwrap()
}

/// The tensors as safetensors reads the whole file.
fn reference(bytes: &[u8]) -> BTreeMap<String, (String, Vec<usize>, Vec<u8>)> {
    let file = safetensors::SafeTensors::deserialize(bytes).unwrap();
    file.tensors()
        .into_iter()
        .map(|(name, view)| {
            let dtype = format!("{:?}", view.dtype());
            (name, (dtype, view.shape().to_vec(), view.data().to_vec()))
        })
        .collect()
}

#[test]
fn splits_a_file_pushed_in_chunks_of_any_size_as_safetensors_reads_it() {
    for half in [true, false] {
        let bytes = file(half);
        let expected = reference(&bytes);
        for chunk in [1, 2, 3, 7, 64, bytes.len()] {
            let mut stream = WeightsStream::new(bytes.len());
            for piece in bytes.chunks(chunk) {
                stream.push(piece).unwrap();
            }
            assert_eq!(stream.received(), bytes.len());
            let tensors = stream.finish().unwrap();
            let got: BTreeMap<_, _> = tensors
                .into_iter()
                .map(|(name, t)| (name, (t.dtype, t.shape, t.bytes)))
                .collect();
            assert_eq!(got, expected, "half {half}, chunks of {chunk}");
        }
    }
}

#[test]
fn widens_f16_exactly_and_reads_f32_as_is() {
    let tensors = WeightsStream::from_bytes(&file(true))
        .unwrap()
        .finish()
        .unwrap();
    let c = &tensors["c"];
    let values = c.to_f32("c").unwrap();
    let expected: Vec<f32> = (0..6)
        .map(|i| half::f16::from_f32((i as f32 * 0.37 + 3.0).sin()).to_f32())
        .collect();
    assert_eq!(values, expected);
    let tensors = WeightsStream::from_bytes(&file(false))
        .unwrap()
        .finish()
        .unwrap();
    let expected: Vec<f32> = (0..6).map(|i| (i as f32 * 0.37 + 3.0).sin()).collect();
    assert_eq!(tensors["c"].to_f32("c").unwrap(), expected);
}

#[test]
fn a_file_cut_short_is_refused_when_finished() {
    let bytes = file(true);
    for cut in [4, 8, 20, bytes.len() - 1] {
        let mut stream = WeightsStream::new(bytes.len());
        let pushed = stream.push(&bytes[..cut]);
        let finished = pushed.and_then(|()| stream.finish().map(|_| ()));
        assert!(finished.is_err(), "cut at {cut}");
    }
}

#[test]
fn refuses_more_bytes_than_announced() {
    let bytes = file(true);
    let mut stream = WeightsStream::new(bytes.len() - 1);
    assert!(matches!(stream.push(&bytes), Err(Error::Usage(_))));
}

/// A file made of `header` (JSON) and `data`.
fn raw(header: &str, data: &[u8]) -> Vec<u8> {
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(data);
    bytes
}

#[test]
fn refuses_headers_safetensors_refuses() {
    let cases = [
        // A length past the file.
        {
            let mut bytes = u64::MAX.to_le_bytes().to_vec();
            bytes.extend_from_slice(b"{}");
            bytes
        },
        // An empty header, and one that is not JSON.
        raw("", &[]),
        raw("{not json", &[]),
        // Ranges: past the data, overlapping, a size its shape does not have, data left over.
        raw(
            r#"{"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}"#,
            &[0; 2],
        ),
        raw(
            r#"{"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},"b":{"dtype":"F16","shape":[1],"data_offsets":[2,4]}}"#,
            &[0; 4],
        ),
        raw(
            r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}"#,
            &[0; 4],
        ),
        raw(
            r#"{"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}"#,
            &[0; 6],
        ),
        raw(r#"{"a":{"dtype":"F16","shape":[2]}}"#, &[0; 4]),
    ];
    for (k, bytes) in cases.iter().enumerate() {
        let result = WeightsStream::from_bytes(bytes).and_then(WeightsStream::finish);
        assert!(
            matches!(result, Err(Error::WeightsFormat(_))),
            "case {k}: {result:?}"
        );
        assert!(
            safetensors::SafeTensors::deserialize(bytes).is_err(),
            "case {k}"
        );
    }
}

#[test]
fn keeps_a_dtype_it_does_not_read_for_the_loader_to_refuse_and_sees_non_finite_values() {
    let bytes = raw(
        r#"{"__metadata__":{"x":"y"},"a":{"dtype":"I8","shape":[3],"data_offsets":[0,3]},"b":{"dtype":"F16","shape":[2],"data_offsets":[3,7]}}"#,
        &[1, 2, 3, 0, 0, 0x00, 0x7c],
    );
    let tensors = WeightsStream::from_bytes(&bytes).unwrap().finish().unwrap();
    assert_eq!(tensors["a"].bytes, vec![1, 2, 3]);
    assert!(matches!(
        tensors["a"].to_f32("a"),
        Err(Error::TensorDtype { .. })
    ));
    assert!(!tensors["b"].finite()); // 0x7c00: +∞
}
