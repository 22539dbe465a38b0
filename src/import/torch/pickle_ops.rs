//! What each opcode of the state-dict subset does ([`Machine::step`]), and every pickle opcode's
//! name for messages. Opcodes outside the subset are errors; nothing is imported or called.

use super::{Machine, Result, TorchError, Value};

/// More memo entries than any state dict needs (a tensor takes about eight).
const MAX_MEMO: usize = 1 << 20;

pub(super) fn error(message: impl Into<String>) -> TorchError {
    TorchError::new(message)
}

/// An opcode that `does` to a `kind` (dict, list) found `other` there.
fn not_a(does: &str, other: &Value, kind: &str) -> TorchError {
    error(format!("{does} {}, which is not a {kind}", other.kind()))
}

impl Machine<'_> {
    /// Runs one opcode (its arguments follow it in the input); `Some(value)` at STOP.
    pub(super) fn step(&mut self, op: u8) -> Result<Option<Value>> {
        match op {
            b'.' => return self.pop().map(Some), // STOP
            0x80 => self.protocol()?,
            0x95 => self.frame()?,
            b'(' => self.marks.push(self.stack.len()), // MARK
            b'}' => self.new_dict(),
            b']' => self.new_list(),
            b')' => self.tuple(Vec::new())?,
            b't' => {
                let items = self.pop_mark()?;
                self.tuple(items)?;
            }
            0x85..=0x87 => self.tuple_of(usize::from(op - 0x84))?, // TUPLE1, TUPLE2, TUPLE3
            b'q' | b'r' | 0x94 => self.put(op)?,                   // BINPUT, LONG_BINPUT, MEMOIZE
            b'h' | b'j' => self.get(op)?,                          // BINGET, LONG_BINGET
            b'J' | b'K' | b'M' | 0x8a | b'G' => self.number(op)?,
            b'N' => self.push(Value::None),
            0x88 => self.push(Value::Bool(true)),
            0x89 => self.push(Value::Bool(false)),
            b'X' | 0x8c | b'U' | 0x8d | b'T' => self.text(op)?,
            b'C' | b'B' | 0x8e => self.bytes(op)?,
            b'c' => {
                let module = self.input.line()?;
                let name = self.input.line()?;
                self.global(module, name)?;
            }
            0x93 => self.stack_global()?,
            b'Q' => self.persistent_load()?,
            b'R' => self.reduce()?,
            b'b' => self.build()?,
            b's' | b'u' => self.set_items(op == b's')?,
            b'a' | b'e' => self.append(op == b'a')?,
            _ if opcode_name(op).is_some() => return Err(error("is not one a state dict holds")),
            _ => return Err(error("is not a pickle opcode")),
        }
        Ok(None)
    }

    fn protocol(&mut self) -> Result<()> {
        match self.input.u8()? {
            0..=5 => Ok(()),
            newer => Err(error(format!(
                "declares protocol {newer}; pickle's newest is 5"
            ))),
        }
    }

    /// Frames only group opcodes for buffered reading; the length must fit the input.
    fn frame(&mut self) -> Result<()> {
        let len = self.input.u64()?;
        let left = self.input.remaining();
        if usize::try_from(len).map_or(true, |len| len > left) {
            return Err(error(format!(
                "declares a frame of {len} bytes where {left} remain"
            )));
        }
        Ok(())
    }

    pub(super) fn new_dict(&mut self) {
        let id = self.heap.dicts.len();
        self.heap.dicts.push(Vec::new());
        self.push(Value::Dict(id));
    }

    fn new_list(&mut self) {
        let id = self.heap.lists.len();
        self.heap.lists.push(Vec::new());
        self.push(Value::List(id));
    }

    fn tuple_of(&mut self, count: usize) -> Result<()> {
        let mut items = Vec::with_capacity(count);
        for _ in 0..count {
            items.push(self.pop()?);
        }
        items.reverse();
        self.tuple(items)
    }

    pub(super) fn top(&self) -> Result<&Value> {
        let floor = self.marks.last().copied().unwrap_or(0);
        match self.stack.last() {
            Some(value) if self.stack.len() > floor => Ok(value),
            _ => Err(error("finds no value on the stack")),
        }
    }

    /// The memo key of a BINPUT or BINGET (the next byte), a LONG_BINPUT or LONG_BINGET (the next
    /// four) or a MEMOIZE (the memo's size).
    fn memo_key(&mut self, op: u8) -> Result<u32> {
        match op {
            b'q' | b'h' => self.input.u8().map(u32::from),
            b'r' | b'j' => self.input.u32(),
            _ => u32::try_from(self.memo.len()).map_err(|_| error("fills the memo")),
        }
    }

    /// BINPUT, LONG_BINPUT or MEMOIZE (`op`): the value on top of the stack into the memo.
    fn put(&mut self, op: u8) -> Result<()> {
        let key = self.memo_key(op)?;
        if self.memo.len() >= MAX_MEMO && !self.memo.contains_key(&key) {
            return Err(error(format!(
                "puts more than {MAX_MEMO} values in the memo"
            )));
        }
        let value = self.top()?.clone();
        self.memo.insert(key, value);
        Ok(())
    }

    /// BINGET or LONG_BINGET (`op`): a value from the memo onto the stack.
    fn get(&mut self, op: u8) -> Result<()> {
        let key = self.memo_key(op)?;
        let value = self.memo.get(&key).cloned();
        let value = value.ok_or_else(|| error(format!("gets memo {key}, which was never put")))?;
        self.push(value);
        Ok(())
    }

    /// A little-endian two's-complement integer of up to 255 bytes.
    fn long1(&mut self) -> Result<Value> {
        let len = usize::from(self.input.u8()?);
        let bytes = self.input.take(len)?;
        let negative = bytes.last().is_some_and(|b| b & 0x80 != 0);
        let fill = if negative { 0xff } else { 0 };
        let (low, high) = bytes.split_at(len.min(8));
        let fits = high.iter().all(|&b| b == fill)
            && (high.is_empty() || low.last().is_some_and(|b| (b & 0x80 != 0) == negative));
        if fits {
            let mut word = [fill; 8];
            word[..low.len()].copy_from_slice(low);
            Ok(Value::Int(i64::from_le_bytes(word)))
        } else {
            Ok(Value::BigInt(bytes.into()))
        }
    }

    /// BININT, BININT1, BININT2, LONG1 or BINFLOAT.
    fn number(&mut self, op: u8) -> Result<()> {
        let value = match op {
            b'J' => Value::Int(i32::from_le_bytes(self.input.array()?).into()),
            b'K' => Value::Int(self.input.u8()?.into()),
            b'M' => Value::Int(self.input.u16()?.into()),
            b'G' => {
                self.input.array::<8>()?;
                Value::Float
            }
            _ => self.long1()?,
        };
        self.push(value);
        Ok(())
    }

    /// The length before a string or bytes, by opcode.
    fn length(&mut self, op: u8) -> Result<u64> {
        Ok(match op {
            b'X' | b'B' => self.input.u32()?.into(),
            0x8d | 0x8e => self.input.u64()?,
            b'T' => {
                let len = i32::from_le_bytes(self.input.array()?);
                u64::try_from(len).map_err(|_| error(format!("declares a length of {len}")))?
            }
            _ => self.input.u8()?.into(),
        })
    }

    /// BINUNICODE, SHORT_BINUNICODE, BINUNICODE8, or Python 2's BINSTRING, SHORT_BINSTRING.
    fn text(&mut self, op: u8) -> Result<()> {
        let len = self.length(op)?;
        let bytes = self.input.take_declared(len)?;
        let text =
            std::str::from_utf8(bytes).map_err(|_| error("holds a string that is not UTF-8"))?;
        self.push(Value::Str(text.into()));
        Ok(())
    }

    /// BINBYTES, SHORT_BINBYTES, BINBYTES8.
    fn bytes(&mut self, op: u8) -> Result<()> {
        let len = self.length(op)?;
        self.input.take_declared(len)?;
        self.push(Value::Bytes);
        Ok(())
    }

    fn stack_global(&mut self) -> Result<()> {
        let name = self.pop()?;
        let module = self.pop()?;
        match (&module, &name) {
            (Value::Str(module), Value::Str(name)) => {
                self.global(module.as_bytes(), name.as_bytes())
            }
            _ => Err(error(format!(
                "imports from {} a name that is {}, not strings",
                module.kind(),
                name.kind()
            ))),
        }
    }

    /// SETITEM (`one`) or SETITEMS into the dict below.
    fn set_items(&mut self, one: bool) -> Result<()> {
        let items = if one {
            let value = self.pop()?;
            let key = self.pop()?;
            vec![key, value]
        } else {
            self.pop_mark()?
        };
        if items.len() % 2 != 0 {
            return Err(error("finds a key without a value"));
        }
        let dict = match self.top()? {
            &Value::Dict(id) => self.heap.dicts.get_mut(id),
            other => return Err(not_a("sets items of", other, "dict")),
        };
        let dict = dict.ok_or_else(|| error("sets items of a dict that was never made"))?;
        let mut items = items.into_iter();
        while let (Some(key), Some(value)) = (items.next(), items.next()) {
            dict.push((key, value));
        }
        Ok(())
    }

    /// APPEND (`one`) or APPENDS to the list below.
    fn append(&mut self, one: bool) -> Result<()> {
        let items = if one {
            vec![self.pop()?]
        } else {
            self.pop_mark()?
        };
        let list = match self.top()? {
            &Value::List(id) => self.heap.lists.get_mut(id),
            other => return Err(not_a("appends to", other, "list")),
        };
        list.ok_or_else(|| error("appends to a list that was never made"))?
            .extend(items);
        Ok(())
    }
}

/// Every pickle opcode's name (Python's `pickletools`), for messages.
pub(super) fn opcode_name(op: u8) -> Option<&'static str> {
    Some(match op {
        b'(' => "MARK",
        b'.' => "STOP",
        b'0' => "POP",
        b'1' => "POP_MARK",
        b'2' => "DUP",
        b'F' => "FLOAT",
        b'I' => "INT",
        b'J' => "BININT",
        b'K' => "BININT1",
        b'L' => "LONG",
        b'M' => "BININT2",
        b'N' => "NONE",
        b'P' => "PERSID",
        b'Q' => "BINPERSID",
        b'R' => "REDUCE",
        b'S' => "STRING",
        b'T' => "BINSTRING",
        b'U' => "SHORT_BINSTRING",
        b'V' => "UNICODE",
        b'X' => "BINUNICODE",
        b'a' => "APPEND",
        b'b' => "BUILD",
        b'c' => "GLOBAL",
        b'd' => "DICT",
        b'}' => "EMPTY_DICT",
        b'e' => "APPENDS",
        b'g' => "GET",
        b'h' => "BINGET",
        b'i' => "INST",
        b'j' => "LONG_BINGET",
        b'l' => "LIST",
        b']' => "EMPTY_LIST",
        b'o' => "OBJ",
        b'p' => "PUT",
        b'q' => "BINPUT",
        b'r' => "LONG_BINPUT",
        b's' => "SETITEM",
        b't' => "TUPLE",
        b')' => "EMPTY_TUPLE",
        b'u' => "SETITEMS",
        b'G' => "BINFLOAT",
        b'B' => "BINBYTES",
        b'C' => "SHORT_BINBYTES",
        0x80 => "PROTO",
        0x81 => "NEWOBJ",
        0x82 => "EXT1",
        0x83 => "EXT2",
        0x84 => "EXT4",
        0x85 => "TUPLE1",
        0x86 => "TUPLE2",
        0x87 => "TUPLE3",
        0x88 => "NEWTRUE",
        0x89 => "NEWFALSE",
        0x8a => "LONG1",
        0x8b => "LONG4",
        0x8c => "SHORT_BINUNICODE",
        0x8d => "BINUNICODE8",
        0x8e => "BINBYTES8",
        0x8f => "EMPTY_SET",
        0x90 => "ADDITEMS",
        0x91 => "FROZENSET",
        0x92 => "NEWOBJ_EX",
        0x93 => "STACK_GLOBAL",
        0x94 => "MEMOIZE",
        0x95 => "FRAME",
        0x96 => "BYTEARRAY8",
        0x97 => "NEXT_BUFFER",
        0x98 => "READONLY_BUFFER",
        _ => return None,
    })
}
