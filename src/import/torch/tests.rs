//! Checkpoints built byte by byte here (pickles as CPython's protocol-2 pickler writes them for
//! torch.save, zips as torch lays them out), the malicious fixture of
//! scripts/marian/make_pickle_fixtures.py, and its torch.save fixtures when present.
#![allow(clippy::unwrap_used)]

use super::*;

#[path = "tests_fixtures.rs"]
mod fixtures;
#[path = "tests_refusals.rs"]
mod refusals;

/// A protocol-2 pickle written opcode by opcode.
struct Pickle {
    bytes: Vec<u8>,
    /// Legacy persistent ids carry a sixth item, the view metadata (None).
    legacy: bool,
}

impl Pickle {
    fn new(legacy: bool) -> Pickle {
        Pickle {
            bytes: vec![0x80, 2],
            legacy,
        }
    }

    fn op(mut self, bytes: &[u8]) -> Pickle {
        self.bytes.extend_from_slice(bytes);
        self
    }

    fn text(self, text: &str) -> Pickle {
        let len = u32::try_from(text.len()).unwrap().to_le_bytes();
        self.op(b"X").op(&len).op(text.as_bytes())
    }

    fn int(self, n: usize) -> Pickle {
        match (u8::try_from(n), u16::try_from(n)) {
            (Ok(byte), _) => self.op(&[b'K', byte]),
            (_, Ok(short)) => self.op(b"M").op(&short.to_le_bytes()),
            _ => self
                .op(&[0x8a, 8])
                .op(&u64::try_from(n).unwrap().to_le_bytes()), // LONG1
        }
    }

    fn global(self, module: &str, name: &str) -> Pickle {
        self.op(b"c")
            .op(module.as_bytes())
            .op(b"\n")
            .op(name.as_bytes())
            .op(b"\n")
    }

    fn ints(self, values: &[usize]) -> Pickle {
        values.iter().fold(self.op(b"("), |p, &v| p.int(v)).op(b"t")
    }

    /// `_rebuild_tensor_v2(<storage pid>, offset, size, stride, False, OrderedDict())`.
    fn tensor(self, view: &View) -> Pickle {
        let legacy = self.legacy;
        let pid = self
            .global("torch._utils", "_rebuild_tensor_v2")
            .op(b"((")
            .text("storage");
        let pid = pid
            .global("torch", view.class)
            .text(view.key)
            .text("cpu")
            .int(view.numel);
        let pid = if legacy { pid.op(b"N") } else { pid };
        pid.op(b"tQ")
            .int(view.offset)
            .ints(view.shape)
            .ints(view.stride)
            .op(&[0x89])
            .global("collections", "OrderedDict")
            .op(b")RtR")
    }

    fn done(self) -> Vec<u8> {
        self.op(b".").bytes
    }
}

struct View<'a> {
    class: &'a str,
    key: &'a str,
    numel: usize,
    offset: usize,
    shape: &'a [usize],
    stride: &'a [usize],
}

/// `OrderedDict()`, the items `entries` pushes (key, value, …) set at once, then the
/// `_metadata` state a module's state_dict() carries.
fn state_dict(legacy: bool, entries: impl FnOnce(Pickle) -> Pickle) -> Vec<u8> {
    let pickle = Pickle::new(legacy)
        .global("collections", "OrderedDict")
        .op(b")Rq\x00(");
    let pickle = entries(pickle).op(b"u}").text("_metadata");
    pickle
        .global("collections", "OrderedDict")
        .op(b")Rsb")
        .done()
}

/// A stored zip as torch writes it: each entry's data aligned to 64 bytes by its local header's
/// extra field; with `zip64`, every size and offset goes through the ZIP64 records.
fn zip(entries: &[(&str, &[u8], u16)], zip64: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    let u16s = |v: usize| u16::try_from(v).unwrap().to_le_bytes();
    let u32s = |v: usize| u32::try_from(v).unwrap().to_le_bytes();
    for &(name, data, method) in entries {
        let at = out.len();
        let pad = (64 - (at + 30 + name.len() + 4) % 64) % 64;
        let extra = [&b"FB"[..], &u16s(pad), &vec![b'Z'; pad]].concat();
        out.extend(0x0403_4b50u32.to_le_bytes());
        out.extend([20, 0, 0, 0]); // version, flags
        out.extend(method.to_le_bytes());
        out.extend([0; 8]); // time, date, crc
        out.extend(u32s(data.len()));
        out.extend(u32s(data.len()));
        out.extend(u16s(name.len()));
        out.extend(u16s(extra.len()));
        out.extend(name.as_bytes());
        out.extend(&extra);
        out.extend(data);
        let (size, offset) = if zip64 {
            (u32::MAX, u32::MAX)
        } else {
            (data.len() as u32, at as u32)
        };
        let wide: Vec<u8> = if zip64 {
            let len = data.len() as u64;
            [
                &1u16.to_le_bytes()[..],
                &24u16.to_le_bytes(),
                &len.to_le_bytes(),
                &len.to_le_bytes(),
                &(at as u64).to_le_bytes(),
            ]
            .concat()
        } else {
            Vec::new()
        };
        central.extend(0x0201_4b50u32.to_le_bytes());
        central.extend([45, 3, 45, 0, 0, 0]); // versions, flags
        central.extend(method.to_le_bytes());
        central.extend([0; 8]);
        central.extend(size.to_le_bytes());
        central.extend(size.to_le_bytes());
        central.extend(u16s(name.len()));
        central.extend(u16s(wide.len()));
        central.extend([0; 10]); // comment length, disk, attributes
        central.extend(offset.to_le_bytes());
        central.extend(name.as_bytes());
        central.extend(wide);
    }
    let (directory_at, directory_len, count) = (out.len(), central.len(), entries.len());
    out.extend(central);
    if zip64 {
        let record_at = out.len() as u64;
        out.extend(0x0606_4b50u32.to_le_bytes());
        out.extend(44u64.to_le_bytes());
        out.extend([45, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        for value in [count, count, directory_len, directory_at] {
            out.extend((value as u64).to_le_bytes());
        }
        out.extend(0x0706_4b50u32.to_le_bytes());
        out.extend(0u32.to_le_bytes());
        out.extend(record_at.to_le_bytes());
        out.extend(1u32.to_le_bytes());
    }
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0; 4]);
    if zip64 {
        out.extend([0xff; 12]); // counts, size, offset: see the ZIP64 record
    } else {
        out.extend([u16s(count), u16s(count)].concat());
        out.extend([u32s(directory_len), u32s(directory_at)].concat());
    }
    out.extend([0, 0]);
    out
}

/// `archive/data.pkl`, the storages, the byte order and version, as torch.save writes them.
fn torch_zip(pickle: &[u8], storages: &[(&str, Vec<u8>)], zip64: bool) -> Vec<u8> {
    let names: Vec<String> = storages
        .iter()
        .map(|(key, _)| format!("archive/data/{key}"))
        .collect();
    let mut entries = vec![
        ("archive/data.pkl", pickle, 0),
        ("archive/byteorder", &b"little"[..], 0),
    ];
    entries.extend(
        names
            .iter()
            .zip(storages)
            .map(|(name, (_, data))| (name.as_str(), data.as_slice(), 0)),
    );
    entries.push(("archive/version", b"3\n", 0));
    zip(&entries, zip64)
}

/// torch < 1.6: magic number, protocol, system info, `main`, the keys, then each storage.
fn legacy_file(main: &[u8], storages: &[(&str, Vec<u8>, usize)]) -> Vec<u8> {
    let mut out = vec![
        0x80, 2, 0x8a, 10, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, b'.',
    ];
    out.extend(Pickle::new(true).op(b"M\xe9\x03").done());
    let info = Pickle::new(true)
        .op(b"}(")
        .text("protocol_version")
        .int(1001)
        .text("little_endian");
    let info = info
        .op(&[0x88])
        .text("type_sizes")
        .op(b"}(")
        .text("short")
        .int(2)
        .text("int")
        .int(4);
    out.extend(info.text("long").int(4).op(b"uu").done());
    out.extend(main);
    let keys = storages
        .iter()
        .fold(Pickle::new(true).op(b"]("), |p, (key, _, _)| p.text(key));
    out.extend(keys.op(b"e").done());
    for (_, data, size) in storages {
        out.extend(((data.len() / size) as u64).to_le_bytes());
        out.extend(data);
    }
    out
}

fn f32_bytes(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

fn f32_values(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

const HALF: [u8; 6] = [0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b]; // 1.0, -2.0, 65504.0 as f16

/// The sample state dict: storage "0" holds 0.0..12.0 (f32), storage "1" three f16 values.
fn sample(legacy: bool) -> Vec<u8> {
    let float = |offset, shape, stride| View {
        class: "FloatStorage",
        key: "0",
        numel: 12,
        offset,
        shape,
        stride,
    };
    state_dict(legacy, |p| {
        p.text("weight")
            .tensor(&float(0, &[3, 4], &[4, 1]))
            .op(b"q\x32") // memoized: "tied" below is the same tensor
            .text("weight_t")
            .tensor(&float(0, &[4, 3], &[1, 4]))
            .text("slice")
            .tensor(&float(5, &[2, 2], &[4, 1]))
            .text("half")
            .tensor(&View {
                class: "HalfStorage",
                key: "1",
                numel: 3,
                offset: 0,
                shape: &[3],
                stride: &[1],
            })
            .text("scalar")
            .tensor(&float(2, &[], &[]))
            .text("tied")
            .op(b"h\x32")
    })
}

fn sample_storages() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("0", f32_bytes((0..12).map(|i| i as f32))),
        ("1", HALF.to_vec()),
    ]
}

/// [`sample_storages`] with each one's element size in bytes (f32, f16), as [`legacy_file`]
/// takes them.
fn legacy_storages() -> Vec<(&'static str, Vec<u8>, usize)> {
    sample_storages()
        .into_iter()
        .zip([4, 2])
        .map(|((k, d), s)| (k, d, s))
        .collect()
}

fn check_sample(tensors: &[TorchTensor]) {
    let names: Vec<&str> = tensors.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["weight", "weight_t", "slice", "half", "scalar", "tied"]
    );
    let weight: Vec<f32> = (0..12).map(|i| i as f32).collect();
    assert_eq!(
        (tensors[0].dtype, tensors[0].shape.as_slice()),
        (TorchDtype::F32, &[3, 4][..])
    );
    assert_eq!(f32_values(&tensors[0].data), weight);
    assert_eq!(tensors[1].shape, [4, 3]);
    assert_eq!(
        f32_values(&tensors[1].data),
        [0., 4., 8., 1., 5., 9., 2., 6., 10., 3., 7., 11.]
    );
    assert_eq!(
        (tensors[2].shape.as_slice(), f32_values(&tensors[2].data)),
        (&[2, 2][..], vec![5., 6., 9., 10.])
    );
    assert_eq!(
        (tensors[3].dtype, tensors[3].shape.as_slice()),
        (TorchDtype::F16, &[3][..])
    );
    assert_eq!(tensors[3].data, HALF);
    assert_eq!(
        (tensors[4].shape.len(), f32_values(&tensors[4].data)),
        (0, vec![2.0])
    );
    assert_eq!(tensors[5].data, tensors[0].data);
    assert_eq!(tensors[5].shape, [3, 4]);
}

#[test]
fn zip_archive_gives_the_tensors_in_order_gathering_views() {
    check_sample(&read_state_dict(&torch_zip(&sample(false), &sample_storages(), false)).unwrap());
}

#[test]
fn zip64_records_give_the_same_tensors() {
    check_sample(&read_state_dict(&torch_zip(&sample(false), &sample_storages(), true)).unwrap());
}

#[test]
fn legacy_format_gives_the_same_tensors() {
    check_sample(&read_state_dict(&legacy_file(&sample(true), &legacy_storages())).unwrap());
}

/// The sample in each format read here, named as the fuzz target's seeds.
fn built_checkpoints() -> [(&'static str, Vec<u8>); 3] {
    [
        (
            "built_zip",
            torch_zip(&sample(false), &sample_storages(), false),
        ),
        (
            "built_zip64",
            torch_zip(&sample(false), &sample_storages(), true),
        ),
        (
            "built_legacy",
            legacy_file(&sample(true), &legacy_storages()),
        ),
    ]
}

#[test]
fn every_truncation_is_an_error() {
    for (name, file) in built_checkpoints() {
        assert!(read_state_dict(&file).is_ok(), "{name}");
        for len in 0..file.len() {
            let read = read_state_dict(&file[..len]);
            assert!(
                read.is_err(),
                "{name}: {len} of {} bytes read: {read:?}",
                file.len()
            );
        }
    }
}

/// Writes the checkpoints built here as seeds of the torch_pickle fuzz target (they reach the
/// ZIP64 extra fields, which torch writes only for files over 4 GiB). On demand:
/// `cargo test --lib write_torch_fuzz_seeds -- --ignored` from the repository root.
#[test]
#[ignore]
fn write_torch_fuzz_seeds() {
    let dir = std::path::Path::new("fuzz/initial/torch_pickle");
    for (name, file) in built_checkpoints() {
        std::fs::write(dir.join(format!("{name}.bin")), file).unwrap();
    }
}
