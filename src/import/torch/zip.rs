//! The zip container of torch ≥ 1.6: read through its central directory (ZIP64 records and extra
//! fields included), entries stored uncompressed as torch writes them. Nothing is inflated:
//! a compressed entry is an error naming its method.

use std::collections::HashMap;

use super::pickle::{unpickle, Unpickled};
use super::{Cursor, Result, TorchError};

const END_OF_DIRECTORY: u32 = 0x0605_4b50;
const ZIP64_END_LOCATOR: u32 = 0x0706_4b50;
const ZIP64_END_OF_DIRECTORY: u32 = 0x0606_4b50;
const DIRECTORY_ENTRY: u32 = 0x0201_4b50;
const LOCAL_HEADER: u32 = 0x0403_4b50;
/// In a field of the classic records, "see the ZIP64 record".
const ZIP64_MARK: u32 = u32::MAX;

/// A torch archive: its entries by name, and the folder they sit in.
pub(super) struct Archive<'a> {
    entries: HashMap<String, Entry<'a>>,
    /// The top folder (`archive`, or the file's stem), without the slash.
    prefix: String,
}

/// An entry's bytes as stored, and how.
struct Entry<'a> {
    method: u16,
    stored: &'a [u8],
}

/// Where the central directory is, from the end records.
struct Directory {
    entries: u64,
    size: u64,
    offset: u64,
}

impl<'a> Archive<'a> {
    pub fn read(bytes: &'a [u8]) -> Result<Archive<'a>> {
        let directory =
            Directory::find(bytes).map_err(|e| e.within("zip end of central directory"))?;
        let start = usize::try_from(directory.offset).ok();
        let end = start
            .zip(usize::try_from(directory.size).ok())
            .and_then(|(s, n)| s.checked_add(n));
        let listing = start
            .zip(end)
            .and_then(|(start, end)| bytes.get(start..end))
            .ok_or_else(|| {
                TorchError::new(format!(
                    "zip central directory: {} bytes at byte {} lie outside the file of {} bytes",
                    directory.size,
                    directory.offset,
                    bytes.len()
                ))
            })?;
        let mut cursor = Cursor::at(listing, 0);
        let mut entries = HashMap::new();
        // The declared count is only a bound: each entry's read checks the listing's length.
        for index in 0..directory.entries {
            let (name, entry) = read_entry(&mut cursor, bytes)
                .map_err(|e| e.within(&format!("zip central directory entry {index}")))?;
            if entries.contains_key(&name) {
                return Err(TorchError::new(format!("zip entry {name} appears twice")));
            }
            entries.insert(name, entry);
        }
        let prefix = find_prefix(&entries)?;
        Ok(Archive { entries, prefix })
    }

    /// The state dict's pickle (`<prefix>/data.pkl`), run; the byte order checked first.
    pub fn state_dict(&self) -> Result<Unpickled> {
        if let Some(order) = self.file("byteorder")? {
            if order != b"little" {
                return Err(TorchError::new(format!(
                    "{}/byteorder is '{}': the checkpoint was written big-endian, which this \
                     reader does not support",
                    self.prefix,
                    String::from_utf8_lossy(order.get(..16).unwrap_or(order))
                )));
            }
        }
        let place = format!("{}/data.pkl", self.prefix);
        let pickle = self
            .file("data.pkl")?
            .ok_or_else(|| TorchError::new(format!("no {place}")))?;
        unpickle(pickle, 0, &place)
    }

    /// The bytes of storage `key` (`<prefix>/data/<key>`).
    pub fn storage(&self, key: &str) -> Result<&'a [u8]> {
        self.file(&format!("data/{key}"))?.ok_or_else(|| {
            TorchError::new(format!(
                "the archive has no storage {}/data/{key}",
                self.prefix
            ))
        })
    }

    /// The entry `<prefix>/<name>`, if any; stored, or an error naming its compression.
    fn file(&self, name: &str) -> Result<Option<&'a [u8]>> {
        let path = format!("{}/{name}", self.prefix);
        let Some(entry) = self.entries.get(&path) else {
            return Ok(None);
        };
        match entry.method {
            0 => Ok(Some(entry.stored)),
            method => Err(TorchError::new(format!(
                "zip entry {path} is compressed ({}); torch writes its entries stored, and this \
                 reader does not inflate",
                method_name(method)
            ))),
        }
    }
}

impl Directory {
    /// The end-of-central-directory record (the last one, behind at most a 64 KiB comment),
    /// and the ZIP64 record its locator points to, when there is one.
    fn find(bytes: &[u8]) -> Result<Directory> {
        const RECORD: usize = 22;
        let lowest = bytes.len().saturating_sub(RECORD + usize::from(u16::MAX));
        let found = (lowest..=bytes.len().saturating_sub(RECORD))
            .rev()
            .find(|&at| bytes.get(at..at + 4) == Some(&END_OF_DIRECTORY.to_le_bytes()[..]));
        let at = found
            .ok_or_else(|| TorchError::new("not found: the file is not a whole zip archive"))?;
        let mut record = Cursor::at(bytes, at + 4);
        let disk = record.u16()?;
        let directory_disk = record.u16()?;
        let _entries_here = record.u16()?;
        let entries = record.u16()?;
        let size = record.u32()?;
        let offset = record.u32()?;
        let comment = usize::from(record.u16()?);
        if record.remaining() < comment {
            return Err(TorchError::new(
                "the file ends inside the archive's comment",
            ));
        }
        let locator = at.checked_sub(20).and_then(|l| bytes.get(l..at));
        if let Some(locator) = locator.filter(|l| l.starts_with(&ZIP64_END_LOCATOR.to_le_bytes())) {
            return Directory::zip64(bytes, locator);
        }
        if disk != 0 || directory_disk != 0 {
            return Err(TorchError::new("the archive spans several disks"));
        }
        if entries == u16::MAX || size == ZIP64_MARK || offset == ZIP64_MARK {
            return Err(TorchError::new(
                "its fields point to a ZIP64 record, but there is none",
            ));
        }
        Ok(Directory {
            entries: entries.into(),
            size: size.into(),
            offset: offset.into(),
        })
    }

    /// The ZIP64 end record, at the offset the 20-byte `locator` gives.
    fn zip64(bytes: &[u8], locator: &[u8]) -> Result<Directory> {
        let mut locator = Cursor::at(locator, 4);
        let _disk = locator.u32()?;
        let at = locator.u64()?;
        let at = usize::try_from(at)
            .map_err(|_| TorchError::new(format!("ZIP64 record at byte {at}")))?;
        let mut record = Cursor::at(bytes, at);
        if record.u32()? != ZIP64_END_OF_DIRECTORY {
            return Err(TorchError::new(format!("no ZIP64 end record at byte {at}")));
        }
        let _record_size = record.u64()?;
        let _versions = record.u32()?;
        let disk = record.u32()?;
        let directory_disk = record.u32()?;
        if disk != 0 || directory_disk != 0 {
            return Err(TorchError::new("the archive spans several disks"));
        }
        let _entries_here = record.u64()?;
        Ok(Directory {
            entries: record.u64()?,
            size: record.u64()?,
            offset: record.u64()?,
        })
    }
}

/// One central directory entry and the bytes its local header points to.
fn read_entry<'a>(listing: &mut Cursor<'_>, bytes: &'a [u8]) -> Result<(String, Entry<'a>)> {
    if listing.u32()? != DIRECTORY_ENTRY {
        return Err(TorchError::new("has no central directory signature"));
    }
    let _versions = listing.u32()?;
    let flags = listing.u16()?;
    let method = listing.u16()?;
    let _time_date_crc = listing.array::<8>()?;
    let mut stored_size = u64::from(listing.u32()?);
    let mut size = u64::from(listing.u32()?);
    let name_len = usize::from(listing.u16()?);
    let extra_len = usize::from(listing.u16()?);
    let comment_len = usize::from(listing.u16()?);
    let _disk_attributes = listing.array::<8>()?;
    let mut local = u64::from(listing.u32()?);
    let name = listing.take(name_len)?;
    let extra = listing.take(extra_len)?;
    listing.take(comment_len)?;
    let name = String::from_utf8(name.to_vec())
        .map_err(|_| TorchError::new("has a name that is not UTF-8"))?;
    let within = |e: TorchError| e.within(&name);
    if flags & 1 != 0 {
        return Err(within(TorchError::new("is encrypted")));
    }
    // ZIP64 extra field: the 64-bit values of the fields marked u32::MAX, in this order.
    let wide = [size, stored_size, local].map(|field| field == u64::from(ZIP64_MARK));
    if wide.iter().any(|&w| w) {
        let mut values = zip64_extra(extra).map_err(within)?;
        for (field, is_wide) in [&mut size, &mut stored_size, &mut local]
            .into_iter()
            .zip(wide)
        {
            if is_wide {
                *field = values
                    .u64()
                    .map_err(|e| within(e.within("ZIP64 extra field")))?;
            }
        }
    }
    if method == 0 && stored_size != size {
        return Err(within(TorchError::new(format!(
            "is stored, but its sizes differ ({stored_size} and {size})"
        ))));
    }
    let stored = local_data(bytes, local, stored_size, &name).map_err(within)?;
    Ok((name, Entry { method, stored }))
}

/// The data of the ZIP64 extra field (id 1) within an entry's extra fields.
fn zip64_extra(extra: &[u8]) -> Result<Cursor<'_>> {
    let mut fields = Cursor::at(extra, 0);
    while fields.remaining() > 0 {
        let id = fields.u16()?;
        let len = usize::from(fields.u16()?);
        let data = fields.take(len)?;
        if id == 1 {
            return Ok(Cursor::at(data, 0));
        }
    }
    Err(TorchError::new(
        "has sizes marked ZIP64 but no ZIP64 extra field",
    ))
}

/// The `len` bytes after the local header at `at` (whose own extra field pads them to torch's
/// alignment). The local header must name the same file.
fn local_data<'a>(bytes: &'a [u8], at: u64, len: u64, name: &str) -> Result<&'a [u8]> {
    let at =
        usize::try_from(at).map_err(|_| TorchError::new(format!("local header at byte {at}")))?;
    let mut header = Cursor::at(bytes, at);
    if header.u32().ok() != Some(LOCAL_HEADER) {
        return Err(TorchError::new(format!("has no local header at byte {at}")));
    }
    let _fields = header.array::<22>()?;
    let name_len = usize::from(header.u16()?);
    let extra_len = usize::from(header.u16()?);
    if header.take(name_len)? != name.as_bytes() {
        return Err(TorchError::new("has a local header with another name"));
    }
    header.take(extra_len)?;
    header.take_declared(len)
}

/// `<prefix>` of the one `<prefix>/data.pkl` in the archive.
fn find_prefix(entries: &HashMap<String, Entry<'_>>) -> Result<String> {
    let mut prefixes: Vec<&str> = entries
        .keys()
        .filter_map(|name| name.strip_suffix("/data.pkl"))
        .filter(|prefix| !prefix.contains('/'))
        .collect();
    prefixes.sort_unstable();
    match prefixes.as_slice() {
        [prefix] => Ok((*prefix).to_string()),
        [] => {
            let mut names: Vec<&str> = entries.keys().map(String::as_str).collect();
            names.sort_unstable();
            names.truncate(5);
            Err(TorchError::new(format!(
                "a zip archive without <folder>/data.pkl, so not a torch checkpoint (it holds {names:?})"
            )))
        }
        several => Err(TorchError::new(format!(
            "a zip archive with several state dicts, in {several:?}"
        ))),
    }
}

fn method_name(method: u16) -> String {
    let name = match method {
        8 => "deflate",
        9 => "deflate64",
        12 => "bzip2",
        14 => "lzma",
        93 => "zstd",
        95 => "xz",
        _ => "",
    };
    match name {
        "" => format!("method {method}"),
        name => format!("{name}, method {method}"),
    }
}
