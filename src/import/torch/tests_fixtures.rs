//! Files written by Python: pickle's own malicious `__reduce__`, and torch.save's zip and legacy
//! formats, compared with what torch itself read back (scripts/marian/make_pickle_fixtures.py).
#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn os_system_fixture_is_refused_naming_posix_system() {
    let zipped = include_bytes!("../../../tests/fixtures/pickle/reduce_os_system.bin");
    assert_eq!(
        read_state_dict(zipped).unwrap_err().to_string(),
        "archive/data.pkl byte 2: pickle opcode 0x63 GLOBAL imports posix.system, which a state dict never holds"
    );
    let bare = include_bytes!("../../../tests/fixtures/pickle/reduce_os_system.pkl");
    assert_eq!(
        read_state_dict(bare).unwrap_err().to_string(),
        "pickle 1 (legacy torch: the magic number) byte 2: pickle opcode 0x63 GLOBAL imports posix.system, which a state dict never holds"
    );
}

/// `"key": "text"` or `"key": [1, 2]` of one line of small_state_dict.json.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let pattern = format!("\"{key}\": ");
    let rest = &line[line.find(&pattern).unwrap() + pattern.len()..];
    match rest.strip_prefix('"') {
        Some(text) => &text[..text.find('"').unwrap()],
        None => &rest[..=rest.find(']').unwrap()],
    }
}

/// The tensors small_state_dict.json lists, as torch read them: name, dtype, shape, bytes.
fn expected_tensors() -> Vec<(String, String, Vec<usize>, Vec<u8>)> {
    let json = include_str!("../../../tests/fixtures/pickle/small_state_dict.json");
    json.lines()
        .filter(|line| line.starts_with("{\"name\""))
        .map(|line| {
            let shape = field(line, "shape").trim_matches(['[', ']']);
            let shape = shape
                .split(", ")
                .filter(|d| !d.is_empty())
                .map(|d| d.parse().unwrap());
            let hex = field(line, "hex").as_bytes().chunks(2);
            let bytes =
                hex.map(|pair| u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap());
            (
                field(line, "name").into(),
                field(line, "dtype").into(),
                shape.collect(),
                bytes.collect(),
            )
        })
        .collect()
}

fn assert_reads_as_torch(file: &[u8]) {
    let tensors = read_state_dict(file).unwrap();
    let got: Vec<_> = tensors
        .into_iter()
        .map(|t| (t.name, t.dtype.name().to_string(), t.shape, t.data))
        .collect();
    assert_eq!(got, expected_tensors());
}

#[test]
fn torch_save_zip_fixture_reads_as_torch_reads_it() {
    assert_eq!(expected_tensors().len(), 10);
    assert_reads_as_torch(include_bytes!(
        "../../../tests/fixtures/pickle/small_state_dict.bin"
    ));
}

#[test]
fn torch_save_legacy_fixture_reads_as_torch_reads_it() {
    assert_reads_as_torch(include_bytes!(
        "../../../tests/fixtures/pickle/small_state_dict_legacy.bin"
    ));
}

#[test]
fn every_truncation_of_the_torch_files_is_an_error() {
    let zip = include_bytes!("../../../tests/fixtures/pickle/small_state_dict.bin");
    let legacy = include_bytes!("../../../tests/fixtures/pickle/small_state_dict_legacy.bin");
    for file in [&zip[..], &legacy[..]] {
        for len in 0..file.len() {
            assert!(
                read_state_dict(&file[..len]).is_err(),
                "{len} of {} bytes read",
                file.len()
            );
        }
    }
}
