//! The part of Python's pickle a state dict uses, interpreted without importing or calling
//! anything: the only globals are `collections.OrderedDict`, `torch._utils._rebuild_tensor_v2`,
//! `torch._utils._rebuild_parameter` and the storage classes (`torch.FloatStorage`, …), and
//! "calling" one builds a value here. Every other opcode or global is an error naming it.
//!
//! Lists and dicts live in an arena and values refer to them by index, so that a value fetched
//! from the memo is the same object (as in Python) and copying one is O(1). Only tuples nest,
//! and only [`MAX_TUPLE_DEPTH`] deep, so nothing recurses without bound (dropping included).

use std::collections::HashMap;
use std::rc::Rc;

use super::{Cursor, Result, TorchDtype, TorchError};

/// Deeper tuples are refused; a state dict's deepest is a tensor's arguments holding its shape.
const MAX_TUPLE_DEPTH: u32 = 32;

/// A value on the machine's stack.
#[derive(Clone, Debug)]
pub(super) enum Value {
    None,
    Bool(bool),
    Int(i64),
    /// A `LONG1` integer beyond i64, as its little-endian two's-complement bytes.
    BigInt(Rc<[u8]>),
    /// A float or a bytes object: a state dict holds them only where they are not needed.
    Float,
    Str(Rc<str>),
    Bytes,
    Tuple(Rc<Tuple>),
    /// Index into [`Heap::lists`].
    List(usize),
    /// Index into [`Heap::dicts`] (a dict or an `OrderedDict`).
    Dict(usize),
    Global(Global),
    Storage(Rc<StorageRef>),
    Tensor(Rc<TensorRef>),
}

#[derive(Debug)]
pub(super) struct Tuple {
    /// 1 + the depth of the deepest tuple inside.
    depth: u32,
    pub items: Vec<Value>,
}

/// The globals a state dict may name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Global {
    OrderedDict,
    RebuildTensorV2,
    RebuildParameter,
    StorageClass(TorchDtype),
}

/// A storage named by a persistent id: `('storage', torch.FloatStorage, key, location, numel)`.
#[derive(Debug, PartialEq)]
pub(super) struct StorageRef {
    pub dtype: TorchDtype,
    pub key: String,
    /// Elements (not bytes) the storage holds.
    pub numel: usize,
}

/// A tensor as `_rebuild_tensor_v2` describes it: a view into a storage, in elements.
#[derive(Debug)]
pub(super) struct TensorRef {
    pub storage: Rc<StorageRef>,
    pub offset: usize,
    pub shape: Vec<usize>,
    pub stride: Vec<usize>,
    /// `shape`'s product, checked.
    pub elements: usize,
}

/// The mutable containers values refer to.
#[derive(Debug, Default)]
pub(super) struct Heap {
    pub lists: Vec<Vec<Value>>,
    /// Each dict's `(key, value)` assignments in order; a repeated key is resolved by the reader.
    pub dicts: Vec<Vec<(Value, Value)>>,
}

/// What one pickle held.
#[derive(Debug)]
pub(super) struct Unpickled {
    pub value: Value,
    pub heap: Heap,
    /// Every storage a persistent id named, by key.
    pub storages: HashMap<String, Rc<StorageRef>>,
    /// The byte after the pickle's STOP.
    pub end: usize,
}

impl Value {
    /// What the value is, for messages: "a str", "torch.FloatStorage", …
    pub fn kind(&self) -> String {
        match self {
            Value::None => "None".into(),
            Value::Bool(_) => "a bool".into(),
            Value::Int(_) | Value::BigInt(_) => "an int".into(),
            Value::Float => "a float".into(),
            Value::Str(_) => "a str".into(),
            Value::Bytes => "a bytes".into(),
            Value::Tuple(_) => "a tuple".into(),
            Value::List(_) => "a list".into(),
            Value::Dict(_) => "a dict".into(),
            Value::Global(global) => global.name(),
            Value::Storage(_) => "a storage".into(),
            Value::Tensor(_) => "a tensor".into(),
        }
    }

    fn depth(&self) -> u32 {
        match self {
            Value::Tuple(tuple) => tuple.depth,
            _ => 0,
        }
    }
}

impl Unpickled {
    /// The entries of the dict the pickle holds.
    pub fn dict(&self) -> Result<&[(Value, Value)]> {
        match self.value {
            Value::Dict(id) => self.heap_dict(id),
            ref other => Err(TorchError::new(format!(
                "the pickle holds {}, not a state dict (a dict of tensors)",
                other.kind()
            ))),
        }
    }

    fn heap_dict(&self, id: usize) -> Result<&[(Value, Value)]> {
        self.heap
            .dicts
            .get(id)
            .map(Vec::as_slice)
            .ok_or_else(|| TorchError::new("a dict that was never made"))
    }

    /// The items of the list the pickle holds.
    pub fn list(&self) -> Result<&[Value]> {
        match self.value {
            Value::List(id) => self.heap.lists.get(id).map(Vec::as_slice),
            _ => None,
        }
        .ok_or_else(|| {
            TorchError::new(format!(
                "the pickle holds {}, not a list",
                self.value.kind()
            ))
        })
    }
}

/// Runs the pickle that starts at `input[start]` up to its STOP. `place` names it in errors.
pub(super) fn unpickle(input: &[u8], start: usize, place: &str) -> Result<Unpickled> {
    let mut machine = Machine {
        input: Cursor::at(input, start),
        stack: Vec::new(),
        marks: Vec::new(),
        memo: HashMap::new(),
        heap: Heap::default(),
        storages: HashMap::new(),
    };
    loop {
        let at = machine.input.pos;
        let Ok(op) = machine.input.u8() else {
            return Err(TorchError::new(format!(
                "{place}: the pickle ends at byte {at} without its STOP opcode"
            )));
        };
        match machine.step(op) {
            Ok(None) => {}
            Ok(Some(value)) => {
                return Ok(Unpickled {
                    value,
                    heap: machine.heap,
                    storages: machine.storages,
                    end: machine.input.pos,
                })
            }
            Err(error) => {
                let opcode = match opcode_name(op) {
                    Some(name) => format!("pickle opcode {op:#04x} {name}"),
                    None => format!("byte {op:#04x}"),
                };
                return Err(TorchError::new(format!(
                    "{place} byte {at}: {opcode} {}",
                    error.0
                )));
            }
        }
    }
}

#[path = "pickle_ops.rs"]
mod ops;
#[path = "pickle_torch.rs"]
mod torch_objects;
use ops::opcode_name;

/// The unpickler's state; [`ops`] holds what each opcode does.
struct Machine<'a> {
    input: Cursor<'a>,
    stack: Vec<Value>,
    /// Stack heights at each MARK not yet consumed.
    marks: Vec<usize>,
    memo: HashMap<u32, Value>,
    heap: Heap,
    storages: HashMap<String, Rc<StorageRef>>,
}

impl Machine<'_> {
    fn push(&mut self, value: Value) {
        self.stack.push(value);
    }

    /// The top value; values below the last MARK are out of reach, as in Python.
    fn pop(&mut self) -> Result<Value> {
        let floor = self.marks.last().copied().unwrap_or(0);
        if self.stack.len() <= floor {
            return Err(TorchError::new("finds no value on the stack"));
        }
        self.stack
            .pop()
            .ok_or_else(|| TorchError::new("finds no value on the stack"))
    }

    /// The values pushed since the last MARK, which is consumed.
    fn pop_mark(&mut self) -> Result<Vec<Value>> {
        let mark = self
            .marks
            .pop()
            .ok_or_else(|| TorchError::new("has no MARK before it"))?;
        if mark > self.stack.len() {
            return Err(TorchError::new("finds its MARK above the stack"));
        }
        Ok(self.stack.split_off(mark))
    }

    fn tuple(&mut self, items: Vec<Value>) -> Result<()> {
        let depth = 1 + items.iter().map(Value::depth).max().unwrap_or(0);
        if depth > MAX_TUPLE_DEPTH {
            return Err(TorchError::new(format!(
                "nests tuples more than {MAX_TUPLE_DEPTH} deep"
            )));
        }
        self.push(Value::Tuple(Rc::new(Tuple { depth, items })));
        Ok(())
    }
}
