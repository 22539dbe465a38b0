//! What torch's objects become in the pickle machine: the allowed globals, persistent ids as
//! storages, `_rebuild_tensor_v2` calls as tensor views checked against their storage, and
//! `OrderedDict`s (whose `_metadata` state is dropped). Nothing else can be imported or called.

use std::rc::Rc;

use super::ops::error;
use super::{Global, Machine, Result, StorageRef, TensorRef, TorchDtype, Value};

/// More dimensions than any tensor has.
const MAX_DIMS: usize = 64;

impl Global {
    /// The allowed `module`, `name` pairs; `None` for everything else.
    fn resolve(module: &str, name: &str) -> Option<Global> {
        match (module, name) {
            ("collections", "OrderedDict") => Some(Global::OrderedDict),
            ("torch._utils", "_rebuild_tensor_v2") => Some(Global::RebuildTensorV2),
            ("torch._utils", "_rebuild_parameter") => Some(Global::RebuildParameter),
            ("torch", class) => TorchDtype::from_storage_class(class).map(Global::StorageClass),
            _ => None,
        }
    }

    /// `module.name`, as Python spells it.
    pub fn name(self) -> String {
        match self {
            Global::OrderedDict => "collections.OrderedDict".into(),
            Global::RebuildTensorV2 => "torch._utils._rebuild_tensor_v2".into(),
            Global::RebuildParameter => "torch._utils._rebuild_parameter".into(),
            Global::StorageClass(dtype) => format!("torch.{}", storage_class(dtype)),
        }
    }
}

fn storage_class(dtype: TorchDtype) -> &'static str {
    match dtype {
        TorchDtype::F32 => "FloatStorage",
        TorchDtype::F16 => "HalfStorage",
        TorchDtype::BF16 => "BFloat16Storage",
        TorchDtype::F64 => "DoubleStorage",
        TorchDtype::I64 => "LongStorage",
        TorchDtype::I32 => "IntStorage",
        TorchDtype::I16 => "ShortStorage",
        TorchDtype::I8 => "CharStorage",
        TorchDtype::U8 => "ByteStorage",
        TorchDtype::Bool => "BoolStorage",
    }
}

impl Machine<'_> {
    /// GLOBAL or STACK_GLOBAL: only the allowed names become values.
    pub(super) fn global(&mut self, module: &[u8], name: &[u8]) -> Result<()> {
        let resolved = std::str::from_utf8(module)
            .ok()
            .zip(std::str::from_utf8(name).ok())
            .and_then(|(module, name)| Global::resolve(module, name));
        match resolved {
            Some(global) => {
                self.push(Value::Global(global));
                Ok(())
            }
            None if module == b"torch" && name.ends_with(b"Storage") => Err(error(format!(
                "imports torch.{}, a storage type this reader does not support",
                shown(name)
            ))),
            None => Err(error(format!(
                "imports {}.{}, which a state dict never holds",
                shown(module),
                shown(name)
            ))),
        }
    }

    /// BINPERSID of `('storage', torch.FloatStorage, key, location, numel[, view])`: a storage
    /// that the archive (or the legacy file's tail) holds under `key`.
    pub(super) fn persistent_load(&mut self) -> Result<()> {
        let pid = self.pop()?;
        let Value::Tuple(pid) = pid else {
            return Err(error(format!(
                "loads a persistent id that is {}",
                pid.kind()
            )));
        };
        let [Value::Str(tag), Value::Global(Global::StorageClass(dtype)), Value::Str(key), Value::Str(_), Value::Int(numel), view @ ..] =
            pid.items.as_slice()
        else {
            return Err(error(
                "loads a persistent id that is not ('storage', torch.<Type>Storage, key, location, numel)",
            ));
        };
        match view {
            _ if &**tag != "storage" => {
                return Err(error(format!(
                    "loads a '{}', not a storage",
                    shown(tag.as_bytes())
                )))
            }
            [] | [Value::None] => {}
            [_] => {
                return Err(error(
                    "loads a view of a storage (torch < 1.0), which this reader does not support",
                ))
            }
            _ => return Err(error("loads a persistent id with more than 6 items")),
        }
        let numel = usize::try_from(*numel)
            .map_err(|_| error(format!("loads a storage of {numel} elements")))?;
        let storage = StorageRef {
            dtype: *dtype,
            key: key.to_string(),
            numel,
        };
        let storage = match self.storages.get(&storage.key) {
            Some(seen) if **seen == storage => Rc::clone(seen),
            Some(seen) => {
                return Err(error(format!(
                    "loads storage '{}' as {} {} elements, and before as {} {}",
                    seen.key,
                    storage.numel,
                    storage.dtype.name(),
                    seen.numel,
                    seen.dtype.name()
                )))
            }
            None => {
                let storage = Rc::new(storage);
                self.storages
                    .insert(storage.key.clone(), Rc::clone(&storage));
                storage
            }
        };
        self.push(Value::Storage(storage));
        Ok(())
    }

    /// REDUCE: "calls" one of the allowed globals, building its value here.
    pub(super) fn reduce(&mut self) -> Result<()> {
        let args = self.pop()?;
        let callable = self.pop()?;
        let Value::Global(global) = callable else {
            return Err(error(format!(
                "calls {}, which a state dict never calls",
                callable.kind()
            )));
        };
        let Value::Tuple(args) = args else {
            return Err(error(format!(
                "calls {} with {}, not a tuple of arguments",
                global.name(),
                args.kind()
            )));
        };
        let value = match (global, args.items.as_slice()) {
            (Global::OrderedDict, []) => {
                self.new_dict();
                return Ok(());
            }
            (Global::RebuildTensorV2, items) => Value::Tensor(Rc::new(rebuild_tensor(items)?)),
            (Global::RebuildParameter, [tensor @ Value::Tensor(_), Value::Bool(_), _]) => {
                tensor.clone()
            }
            (Global::StorageClass(_), _) => {
                return Err(error(format!(
                    "calls {}, which a state dict never calls",
                    global.name()
                )))
            }
            (_, items) => {
                return Err(error(format!(
                    "calls {} with {} arguments, which torch.save never writes",
                    global.name(),
                    items.len()
                )))
            }
        };
        self.push(value);
        Ok(())
    }

    /// BUILD: `OrderedDict`'s state (the modules' `_metadata`) is accepted and dropped.
    pub(super) fn build(&mut self) -> Result<()> {
        let _state = self.pop()?;
        match self.top()? {
            Value::Dict(_) => Ok(()),
            other => Err(error(format!(
                "sets the state of {}, which a state dict never does",
                other.kind()
            ))),
        }
    }
}

/// `_rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks
/// [, metadata])`: checked here against the storage's declared length, read later.
fn rebuild_tensor(args: &[Value]) -> Result<TensorRef> {
    let bad = |what: String| error(format!("calls torch._utils._rebuild_tensor_v2 with {what}"));
    let [storage, offset, shape, stride, Value::Bool(_), _hooks, metadata @ ..] = args else {
        return Err(bad(format!(
            "{} arguments, not storage, offset, size, stride, requires_grad, hooks",
            args.len()
        )));
    };
    if metadata.len() > 1 {
        return Err(bad(format!("{} arguments, not 6 or 7", args.len())));
    }
    let Value::Storage(storage) = storage else {
        return Err(bad(format!("{} for its storage", storage.kind())));
    };
    let Value::Int(offset) = offset else {
        return Err(bad(format!("{} for its storage offset", offset.kind())));
    };
    let offset = usize::try_from(*offset).map_err(|_| bad(format!("storage offset {offset}")))?;
    let shape = indices(shape).ok_or_else(|| {
        bad(format!(
            "{} for its size, not a tuple of ints ≥ 0",
            shape.kind()
        ))
    })?;
    let stride = indices(stride).ok_or_else(|| {
        bad(format!(
            "{} for its stride, not a tuple of ints ≥ 0",
            stride.kind()
        ))
    })?;
    if shape.len() != stride.len() || shape.len() > MAX_DIMS {
        return Err(bad(format!(
            "a size of {} dimensions and a stride of {}",
            shape.len(),
            stride.len()
        )));
    }
    let elements = shape
        .iter()
        .try_fold(1usize, |count, &dim| count.checked_mul(dim))
        .ok_or_else(|| bad(format!("size {shape:?}, more elements than can be counted")))?;
    if elements > 0 {
        // The view's last element: offset + Σ (size − 1) · stride; every dim is ≥ 1 here.
        let last = shape
            .iter()
            .zip(&stride)
            .try_fold(offset, |at, (&dim, &step)| {
                (dim - 1)
                    .checked_mul(step)
                    .and_then(|reach| at.checked_add(reach))
            });
        if last.is_none_or(|last| last >= storage.numel) {
            return Err(bad(format!(
                "a view (offset {offset}, size {shape:?}, stride {stride:?}) reaching past its \
                 storage '{}' of {} elements",
                storage.key, storage.numel
            )));
        }
    }
    Ok(TensorRef {
        storage: Rc::clone(storage),
        offset,
        shape,
        stride,
        elements,
    })
}

/// A tuple of non-negative ints.
fn indices(value: &Value) -> Option<Vec<usize>> {
    let Value::Tuple(tuple) = value else {
        return None;
    };
    tuple
        .items
        .iter()
        .map(|item| match item {
            Value::Int(n) => usize::try_from(*n).ok(),
            _ => None,
        })
        .collect()
}

/// Input bytes shown in a message: lossy UTF-8, at most 80 characters.
fn shown(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.into_owned(),
    }
}
