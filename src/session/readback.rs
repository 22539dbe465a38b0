//! Reading numbers back from the device: asynchronously only (a synchronous read panics on
//! WebGPU in a browser), and many tensors in one transfer.

use burn::tensor::Tensor;

use crate::error::{Error, Result};

/// Read a list of tensors back in one transfer, as one flat vector each.
pub(crate) async fn read_back(parts: Vec<Tensor<1>>) -> Result<Vec<Vec<f32>>> {
    let lengths: Vec<usize> = parts.iter().map(|t| t.dims()[0]).collect();
    let flat = Tensor::cat(parts, 0);
    let data = flat
        .into_data_async()
        .await
        .map_err(|e| Error::Backend(format!("{e:?}")))?;
    let values: Vec<f32> = data
        .try_into_vec::<f32>()
        .map_err(|e| Error::Backend(format!("{e:?}")))?;
    let mut out = Vec::with_capacity(lengths.len());
    let mut offset = 0;
    for length in lengths {
        out.push(
            values
                .get(offset..offset + length)
                .ok_or_else(|| {
                    Error::Backend("the device returned fewer values than asked".into())
                })?
                .to_vec(),
        );
        offset += length;
    }
    Ok(out)
}

/// Any tensor as one flat vector (row-major).
pub(crate) fn flat<const D: usize>(tensor: Tensor<D>) -> Tensor<1> {
    let n: usize = tensor.dims().iter().product();
    tensor.reshape([n])
}
