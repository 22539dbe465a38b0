//! Any bytes as a tokenizer file, and any text through the shipped tokenizers.
#![no_main]

use std::sync::OnceLock;

use attnscope::model::config::SpecialIds;
use attnscope::text::TextTokenizer;
use libfuzzer_sys::fuzz_target;

const SHIPPED: [&[u8]; 3] = [
    include_bytes!("../../models/en-zh/src_tokenizer.json"),
    include_bytes!("../../models/en-zh/tgt_tokenizer.json"),
    include_bytes!("../../models/date-iso/src_tokenizer.json"),
];

fn shipped() -> &'static [TextTokenizer] {
    static TOKENIZERS: OnceLock<Vec<TextTokenizer>> = OnceLock::new();
    TOKENIZERS.get_or_init(|| {
        SHIPPED.iter().filter_map(|bytes| TextTokenizer::from_bytes(bytes, "shipped", SpecialIds::default()).ok()).collect()
    })
}

fuzz_target!(|data: &[u8]| {
    // As a tokenizer file.
    if let Ok(tokenizer) = TextTokenizer::from_bytes(data, "fuzz.json", SpecialIds::default()) {
        let _ = tokenizer.encode("I love eating apples.");
    }
    // As text for the real tokenizers: every token keeps a span inside the text.
    let text = String::from_utf8_lossy(data);
    for tokenizer in shipped() {
        if let Ok(encoded) = tokenizer.encode(&text) {
            assert_eq!(encoded.ids.len(), encoded.tokens.len());
            assert!(encoded.spans.iter().all(|&(s, e)| s <= e && e <= text.len()));
        }
    }
});
