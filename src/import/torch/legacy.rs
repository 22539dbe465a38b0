//! The format of torch < 1.6 (`_use_new_zipfile_serialization=False`): five pickles in a row
//! (torch's magic number, the protocol version 1001, system info, the state dict, the list of
//! storage keys), then each listed storage as its element count (u64, little-endian) and bytes.

use std::collections::HashMap;

use super::pickle::{unpickle, Unpickled, Value};
use super::{Cursor, Result, TorchError};

/// 0x1950a86a20f9469cfc6c, as pickle's LONG1 writes it (little-endian).
const MAGIC_NUMBER: [u8; 10] = [0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19];
const PROTOCOL_VERSION: i64 = 1001;

/// A legacy checkpoint: the state dict's pickle and the storages after it.
pub(super) struct Legacy<'a> {
    pub unpickled: Unpickled,
    storages: HashMap<String, &'a [u8]>,
}

impl<'a> Legacy<'a> {
    pub fn read(bytes: &'a [u8]) -> Result<Legacy<'a>> {
        let magic = unpickle(bytes, 0, "pickle 1 (legacy torch: the magic number)")?;
        if !matches!(&magic.value, Value::BigInt(n) if **n == MAGIC_NUMBER) {
            return Err(TorchError::new(format!(
                "not a PyTorch checkpoint: a pickle of {}, where torch's legacy format starts \
                 with its magic number 0x1950a86a20f9469cfc6c",
                magic.value.kind()
            )));
        }
        let protocol = unpickle(bytes, magic.end, "pickle 2 (legacy torch: the protocol)")?;
        if !matches!(protocol.value, Value::Int(PROTOCOL_VERSION)) {
            return Err(TorchError::new(format!(
                "legacy torch file: protocol version {}, where torch wrote {PROTOCOL_VERSION}",
                match protocol.value {
                    Value::Int(n) => n.to_string(),
                    ref other => other.kind(),
                }
            )));
        }
        let info = unpickle(bytes, protocol.end, "pickle 3 (legacy torch: system info)")?;
        check_little_endian(&info)?;
        let unpickled = unpickle(bytes, info.end, "pickle 4 (legacy torch: the state dict)")?;
        let keys = unpickle(
            bytes,
            unpickled.end,
            "pickle 5 (legacy torch: the storage keys)",
        )?;
        let storages = read_storages(bytes, &keys, &unpickled)?;
        Ok(Legacy {
            unpickled,
            storages,
        })
    }

    /// The bytes of storage `key`.
    pub fn storage(&self, key: &str) -> Result<&'a [u8]> {
        self.storages
            .get(key)
            .copied()
            .ok_or_else(|| TorchError::new(format!("the file has no storage '{key}'")))
    }
}

/// System info says `little_endian: False` for files written on big-endian machines.
fn check_little_endian(info: &Unpickled) -> Result<()> {
    let entries = info
        .dict()
        .map_err(|e| e.within("legacy torch file: system info"))?;
    let little = entries.iter().find_map(|(key, value)| match key {
        Value::Str(key) if &**key == "little_endian" => Some(value),
        _ => None,
    });
    match little {
        None | Some(Value::Bool(true)) => Ok(()),
        Some(other) => Err(TorchError::new(format!(
            "legacy torch file: little_endian is {}; big-endian checkpoints are not supported",
            match other {
                Value::Bool(false) => "False".to_string(),
                other => other.kind(),
            }
        ))),
    }
}

/// After the keys' pickle, each storage in the keys' order: its element count, then its bytes
/// (the element type comes from the persistent ids of the state dict).
fn read_storages<'a>(
    bytes: &'a [u8],
    keys: &Unpickled,
    state_dict: &Unpickled,
) -> Result<HashMap<String, &'a [u8]>> {
    let mut input = Cursor::at(bytes, keys.end);
    let mut storages = HashMap::new();
    for key in keys.list()? {
        let Value::Str(key) = key else {
            return Err(TorchError::new(format!(
                "legacy torch file: a storage key is {}, not a string",
                key.kind()
            )));
        };
        let within = |e: TorchError| e.within(&format!("legacy torch file: storage '{key}'"));
        let storage = state_dict
            .storages
            .get(&**key)
            .ok_or_else(|| within(TorchError::new("is listed, but no tensor uses it")))?;
        let count = input.u64().map_err(within)?;
        if usize::try_from(count).ok() != Some(storage.numel) {
            return Err(within(TorchError::new(format!(
                "holds {count} elements, where its tensors say {}",
                storage.numel
            ))));
        }
        let len = storage.numel.checked_mul(storage.dtype.size());
        let len = len
            .and_then(|len| u64::try_from(len).ok())
            .unwrap_or(u64::MAX);
        let data = input.take_declared(len).map_err(within)?;
        if storages.insert(key.to_string(), data).is_some() {
            return Err(within(TorchError::new("is listed twice")));
        }
    }
    Ok(storages)
}
