//! Flat vectors as they cross to the page: matrices are row-major with their dimensions beside
//! them, and each flat vector crosses the wasm boundary as one typed array's bytes (www/wire.js
//! reads them back). A leaf module: the model's masks and positional table and the trace use it.

use serde::ser::Serializer;
use serde::Serialize;

/// A flat vector of `f32` as it crosses to the page: one `Float32Array`'s bytes on wasm (the
/// worker views them without converting number by number), a plain array in JSON.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Floats(pub Vec<f32>);

/// A flat vector of flags: a `Uint8Array` of 0/1 on wasm, an array of booleans in JSON.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags(pub Vec<bool>);

impl Serialize for Floats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if cfg!(target_arch = "wasm32") {
            // wasm32 is little-endian: the floats' own bytes, without a second buffer.
            serializer.serialize_bytes(bytemuck::cast_slice(&self.0))
        } else {
            serializer.collect_seq(&self.0)
        }
    }
}

impl Serialize for Flags {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if cfg!(target_arch = "wasm32") {
            let bytes: Vec<u8> = self.0.iter().map(|&flag| u8::from(flag)).collect();
            serializer.serialize_bytes(&bytes)
        } else {
            serializer.collect_seq(&self.0)
        }
    }
}

/// A plain array of numbers, as `attnscope trace --json` and a timeline recording write it.
impl<'de> serde::Deserialize<'de> for Floats {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<f32>::deserialize(deserializer).map(Floats)
    }
}

impl std::ops::Deref for Floats {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        &self.0
    }
}

impl std::ops::Deref for Flags {
    type Target = [bool];
    fn deref(&self) -> &[bool] {
        &self.0
    }
}
