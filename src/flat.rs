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
        #[cfg(target_arch = "wasm32")]
        // wasm32 is little-endian: the floats' own bytes, without a second buffer.
        return serialize_bytes(bytemuck::cast_slice(&self.0), serializer);
        #[cfg(not(target_arch = "wasm32"))]
        serializer.collect_seq(&self.0)
    }
}

impl Serialize for Flags {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[cfg(target_arch = "wasm32")]
        {
            let bytes: Vec<u8> = self.0.iter().map(|&flag| u8::from(flag)).collect();
            serialize_bytes(&bytes, serializer)
        }
        #[cfg(not(target_arch = "wasm32"))]
        serializer.collect_seq(&self.0)
    }
}

/// `bytes` as a Uint8Array of their own (serde-wasm-bindgen passes it through as it is).
/// `serialize_bytes` would make it with `new Uint8Array(view)`, which V8 copies element by element:
/// `view.slice()` took 1.6 µs for 2 KB where that took 7.9, and 114 µs where it took 221 for the
/// 13 arrays (131 KB) of a 48-token date answer (headless Chromium here).
#[cfg(target_arch = "wasm32")]
fn serialize_bytes<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    // SAFETY: the view over the module's memory is copied out (`slice`) at once, before any
    // allocation could grow (and detach) that memory.
    #[allow(unsafe_code)]
    let view = unsafe { js_sys::Uint8Array::view(bytes) };
    let array = view.slice(0, bytes.len() as u32);
    serde_wasm_bindgen::preserve::serialize(&array, serializer)
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
