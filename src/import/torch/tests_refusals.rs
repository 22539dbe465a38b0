//! Inputs the reader must refuse, each with the message that names what is wrong.
#![allow(clippy::unwrap_used)]

use super::super::pickle::{unpickle, Value};
use super::*;

/// The error for `data.pkl` = `pickle` in an otherwise valid archive.
fn error_of(pickle: &[u8]) -> String {
    read_state_dict(&torch_zip(pickle, &sample_storages(), false))
        .unwrap_err()
        .0
}

#[test]
fn a_global_outside_the_state_dict_subset_is_named() {
    let pickle = state_dict(false, |p| {
        p.text("x")
            .global("builtins", "eval")
            .op(b"(X\x01\0\0\0ttR")
    });
    assert_eq!(
        error_of(&pickle),
        "archive/data.pkl byte 38: pickle opcode 0x63 GLOBAL imports builtins.eval, which a state dict never holds"
    );
    let pickle = Pickle::new(false)
        .text("os")
        .text("system")
        .op(&[0x93])
        .done();
    assert_eq!(
        error_of(&pickle),
        "archive/data.pkl byte 20: pickle opcode 0x93 STACK_GLOBAL imports os.system, which a state dict never holds"
    );
    let pickle = Pickle::new(false)
        .global("torch", "ComplexFloatStorage")
        .done();
    assert_eq!(
        error_of(&pickle),
        "archive/data.pkl byte 2: pickle opcode 0x63 GLOBAL imports torch.ComplexFloatStorage, a storage type this reader does not support"
    );
}

#[test]
fn opcodes_outside_the_subset_are_named() {
    assert_eq!(
        error_of(
            &Pickle::new(false)
                .global("collections", "OrderedDict")
                .op(b")\x81")
                .done()
        ),
        "archive/data.pkl byte 28: pickle opcode 0x81 NEWOBJ is not one a state dict holds"
    );
    assert_eq!(
        error_of(&Pickle::new(false).op(b"\xff").done()),
        "archive/data.pkl byte 2: byte 0xff is not a pickle opcode"
    );
    assert_eq!(
        error_of(&Pickle::new(false).global("torch", "FloatStorage").op(b")R").done()),
        "archive/data.pkl byte 23: pickle opcode 0x52 REDUCE calls torch.FloatStorage, which a state dict never calls"
    );
    assert_eq!(
        error_of(&Pickle::new(false).op(b"h\x07").done()),
        "archive/data.pkl byte 2: pickle opcode 0x68 BINGET gets memo 7, which was never put"
    );
    assert_eq!(
        error_of(&Pickle::new(false).op(b"(").done()),
        "archive/data.pkl byte 3: pickle opcode 0x2e STOP finds no value on the stack"
    );
    assert_eq!(
        error_of(&Pickle::new(false).op(b"N").bytes),
        "archive/data.pkl: the pickle ends at byte 3 without its STOP opcode"
    );
}

#[test]
fn huge_declared_lengths_are_refused_before_allocating() {
    assert_eq!(
        error_of(&Pickle::new(false).op(b"X\xf0\xff\xff\xff").done()),
        "archive/data.pkl byte 2: pickle opcode 0x58 BINUNICODE declares 4294967280 bytes where 1 remain"
    );
    assert_eq!(
        error_of(&Pickle::new(false).op(&[0x8e]).op(&[0xff; 8]).done()),
        "archive/data.pkl byte 2: pickle opcode 0x8e BINBYTES8 declares 18446744073709551615 bytes where 1 remain"
    );
    // A storage declared with 2^40 elements whose file holds 12: refused when read, not allocated.
    let view = View {
        class: "FloatStorage",
        key: "0",
        numel: 1 << 40,
        offset: 0,
        shape: &[1 << 20, 1 << 20],
        stride: &[1 << 20, 1],
    };
    let pickle = state_dict(false, |p| p.text("big").tensor(&view));
    assert_eq!(
        error_of(&pickle),
        "big: its storage '0' holds 48 bytes, not 1099511627776 F32 elements"
    );
    // One element repeated 2^40 times (stride 0): more than the file justifies.
    let view = View {
        class: "FloatStorage",
        key: "0",
        numel: 12,
        offset: 0,
        shape: &[1 << 40],
        stride: &[0],
    };
    let pickle = state_dict(false, |p| p.text("expanded").tensor(&view));
    assert_eq!(error_of(&pickle), "expanded: its 1099511627776 elements would take more memory than the file justifies (4× its size)");
}

#[test]
fn a_view_past_its_storage_is_refused() {
    let view = View {
        class: "FloatStorage",
        key: "0",
        numel: 12,
        offset: 10,
        shape: &[3],
        stride: &[1],
    };
    let pickle = state_dict(false, |p| p.text("w").tensor(&view));
    assert_eq!(
        error_of(&pickle),
        "archive/data.pkl byte 162: pickle opcode 0x52 REDUCE calls torch._utils._rebuild_tensor_v2 with a view (offset 10, size [3], stride [1]) reaching past its storage '0' of 12 elements"
    );
}

#[test]
fn keys_must_be_strings_and_the_last_value_of_a_key_counts() {
    let view = View {
        class: "FloatStorage",
        key: "0",
        numel: 12,
        offset: 0,
        shape: &[2],
        stride: &[1],
    };
    let pickle = state_dict(false, |p| p.int(7).tensor(&view));
    assert_eq!(
        error_of(&pickle),
        "the state dict's key #0 is an int, not a string"
    );
    let later = View { offset: 4, ..view };
    let pickle = state_dict(false, |p| {
        p.text("a")
            .tensor(&view)
            .text("b")
            .tensor(&view)
            .text("a")
            .tensor(&later)
            .text("b")
            .op(b"N")
    });
    let tensors = read_state_dict(&torch_zip(&pickle, &sample_storages(), false)).unwrap();
    assert_eq!(tensors.len(), 1);
    assert_eq!(
        (tensors[0].name.as_str(), f32_values(&tensors[0].data)),
        ("a", vec![4.0, 5.0])
    );
}

#[test]
fn a_compressed_entry_and_big_endian_bytes_are_refused() {
    let pickle = sample(false);
    let file = zip(&[("archive/data.pkl", &pickle, 8)], false);
    assert_eq!(
        read_state_dict(&file).unwrap_err().0,
        "zip entry archive/data.pkl is compressed (deflate, method 8); torch writes its entries stored, and this reader does not inflate"
    );
    let file = zip(
        &[
            ("archive/data.pkl", &pickle, 0),
            ("archive/byteorder", b"big", 0),
        ],
        false,
    );
    assert_eq!(
        read_state_dict(&file).unwrap_err().0,
        "archive/byteorder is 'big': the checkpoint was written big-endian, which this reader does not support"
    );
}

#[test]
fn deep_tuples_are_refused_without_recursing() {
    let pickle = Pickle::new(false).op(b"N").op(&[0x85; 100_000]).done();
    assert_eq!(
        error_of(&pickle),
        "archive/data.pkl byte 35: pickle opcode 0x85 TUPLE1 nests tuples more than 32 deep"
    );
}

#[test]
fn long1_reads_twos_complement() {
    let read = |bytes: &[u8]| {
        unpickle(&Pickle::new(false).op(&[0x8a]).op(bytes).done(), 0, "t")
            .unwrap()
            .value
    };
    assert!(matches!(read(&[0]), Value::Int(0)));
    assert!(matches!(read(&[1, 0xff]), Value::Int(-1)));
    assert!(matches!(read(&[2, 0x00, 0x80]), Value::Int(-32768)));
    assert!(matches!(
        read(&[9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00]),
        Value::Int(i64::MAX)
    ));
    assert!(matches!(
        read(&[9, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x00]),
        Value::BigInt(_)
    ));
    assert!(matches!(
        read(&[9, 0, 0, 0, 0, 0, 0, 0, 0x80, 0xff]),
        Value::Int(i64::MIN)
    ));
}
