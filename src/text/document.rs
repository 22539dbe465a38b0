//! The shape of every `tokenizer.json` attnscope writes: for its own models (`build`) and for
//! imported Marian ones (the import runs in the page too, so this is not native-only).

use serde_json::{json, Value};

/// A `tokenizer.json` document with the parts attnscope's loader accepts: these three, and no
/// added tokens, post-processor, decoder, truncation or padding.
pub fn tokenizer_document(normalizer: Value, pre_tokenizer: Value, model: Value) -> Value {
    json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [],
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": null,
        "decoder": null,
        "model": model,
    })
}
