//! Reading a SentencePiece model file (`*.spm`, `*.model`): the fields a converter needs, from
//! its protobuf bytes, without a protobuf library.
//!
//! The file is a `sentencepiece.ModelProto` (`sentencepiece_model.proto`):
//!
//! | field | number | what we read |
//! |---|---|---|
//! | `pieces` | 1 (repeated) | `piece` (1, string), `score` (2, float), `type` (3, enum) |
//! | `trainer_spec` | 2 | `model_type` (3), `treat_whitespace_as_suffix` (24), `byte_fallback` (35) |
//! | `normalizer_spec` | 3 | `name` (1), `precompiled_charsmap` (2), `add_dummy_prefix` (3), `remove_extra_whitespaces` (4), `escape_whitespaces` (5) |
//!
//! Every other field is skipped by its wire type. A truncated or malformed file is an error,
//! never a panic.

use crate::error::{Error, Result};

/// The kind of a piece (`SentencePiece.Type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceType {
    /// An ordinary piece (1), matched by the segmentation.
    Normal,
    /// `<unk>` (2).
    Unknown,
    /// A control symbol such as `</s>` (3): never matched in text.
    Control,
    /// A user-defined symbol (4): matched in text.
    UserDefined,
    /// Unused (5).
    Unused,
    /// A byte piece `<0x..>` (6), for byte fallback.
    Byte,
}

/// One vocabulary entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    /// The piece text (spaces written as `▁`).
    pub piece: String,
    /// Its log probability (unigram) or merge rank (BPE).
    pub score: f32,
    /// Its kind.
    pub kind: PieceType,
}

/// How SentencePiece normalizes text before it segments it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NormalizerSpec {
    /// The rule set's name, e.g. `nmt_nfkc` or `identity`.
    pub name: String,
    /// The compiled character map (empty for `identity`).
    pub precompiled_charsmap: Vec<u8>,
    /// Put a `▁` before the text.
    pub add_dummy_prefix: bool,
    /// Drop leading and trailing spaces and collapse runs of spaces.
    pub remove_extra_whitespaces: bool,
    /// Write spaces as `▁`.
    pub escape_whitespaces: bool,
}

/// The parts of a SentencePiece model a converter needs.
#[derive(Clone, Debug, PartialEq)]
pub struct SentencePieceModel {
    /// The vocabulary, in id order.
    pub pieces: Vec<Piece>,
    /// `TrainerSpec.model_type`: 1 unigram, 2 BPE, 3 word, 4 char.
    pub model_type: u64,
    /// Whether unknown characters fall back to byte pieces.
    pub byte_fallback: bool,
    /// Whether `▁` ends words instead of starting them.
    pub treat_whitespace_as_suffix: bool,
    /// The normalization.
    pub normalizer: NormalizerSpec,
}

/// `TrainerSpec.model_type` of a unigram model.
pub const UNIGRAM: u64 = 1;

/// A field's value as the wire format carries it.
enum Value<'a> {
    Varint(u64),
    Fixed32(u32),
    Fixed64,
    Bytes(&'a [u8]),
}

/// A cursor over protobuf bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    file: &'a str,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], file: &'a str) -> Self {
        Self { bytes, at: 0, file }
    }

    fn error(&self, what: &str) -> Error {
        Error::Import(format!(
            "{}: not a SentencePiece model ({what} at byte {})",
            self.file, self.at
        ))
    }

    fn varint(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self
                .bytes
                .get(self.at)
                .ok_or_else(|| self.error("a truncated number"))?;
            self.at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.error("a number longer than 10 bytes"))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| self.error("a field longer than the file"))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    /// The next field number and value, or `None` at the end.
    fn field(&mut self) -> Result<Option<(u64, Value<'a>)>> {
        if self.at >= self.bytes.len() {
            return Ok(None);
        }
        let key = self.varint()?;
        let value = match key & 7 {
            0 => Value::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Value::Fixed64
            }
            2 => {
                let len = usize::try_from(self.varint()?)
                    .map_err(|_| self.error("a length out of range"))?;
                Value::Bytes(self.take(len)?)
            }
            5 => {
                let b = self.take(4)?;
                Value::Fixed32(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            _ => return Err(self.error("an unknown wire type")),
        };
        Ok(Some((key >> 3, value)))
    }
}

fn text(bytes: &[u8], file: &str) -> Result<String> {
    String::from_utf8(bytes.to_vec())
        .map_err(|_| Error::Import(format!("{file}: a piece is not UTF-8")))
}

impl SentencePieceModel {
    /// Parse a model file's bytes; `file` names it in error messages.
    pub fn from_bytes(bytes: &[u8], file: &str) -> Result<Self> {
        let mut model = Self {
            pieces: vec![],
            model_type: UNIGRAM,
            byte_fallback: false,
            treat_whitespace_as_suffix: false,
            normalizer: NormalizerSpec {
                name: String::new(),
                precompiled_charsmap: vec![],
                add_dummy_prefix: true,
                remove_extra_whitespaces: true,
                escape_whitespaces: true,
            },
        };
        let mut seen_normalizer = false;
        let mut reader = Reader::new(bytes, file);
        while let Some((number, value)) = reader.field()? {
            match (number, value) {
                (1, Value::Bytes(b)) => model.pieces.push(Self::piece(b, file)?),
                (2, Value::Bytes(b)) => model.trainer_spec(b, file)?,
                (3, Value::Bytes(b)) => {
                    seen_normalizer = true;
                    model.normalizer_spec(b, file)?;
                }
                _ => {}
            }
        }
        if model.pieces.is_empty() || !seen_normalizer {
            return Err(Error::Import(format!(
                "{file}: not a SentencePiece model (no pieces or no normalizer)"
            )));
        }
        Ok(model)
    }

    fn piece(bytes: &[u8], file: &str) -> Result<Piece> {
        let mut piece = Piece {
            piece: String::new(),
            score: 0.0,
            kind: PieceType::Normal,
        };
        let mut reader = Reader::new(bytes, file);
        while let Some((number, value)) = reader.field()? {
            match (number, value) {
                (1, Value::Bytes(b)) => piece.piece = text(b, file)?,
                (2, Value::Fixed32(bits)) => piece.score = f32::from_bits(bits),
                (3, Value::Varint(kind)) => {
                    piece.kind = match kind {
                        1 => PieceType::Normal,
                        2 => PieceType::Unknown,
                        3 => PieceType::Control,
                        4 => PieceType::UserDefined,
                        5 => PieceType::Unused,
                        6 => PieceType::Byte,
                        other => {
                            return Err(Error::Import(format!(
                                "{file}: unknown piece type {other}"
                            )))
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(piece)
    }

    fn trainer_spec(&mut self, bytes: &[u8], file: &str) -> Result<()> {
        let mut reader = Reader::new(bytes, file);
        while let Some((number, value)) = reader.field()? {
            match (number, value) {
                (3, Value::Varint(v)) => self.model_type = v,
                (24, Value::Varint(v)) => self.treat_whitespace_as_suffix = v != 0,
                (35, Value::Varint(v)) => self.byte_fallback = v != 0,
                _ => {}
            }
        }
        Ok(())
    }

    fn normalizer_spec(&mut self, bytes: &[u8], file: &str) -> Result<()> {
        let spec = &mut self.normalizer;
        let mut reader = Reader::new(bytes, file);
        while let Some((number, value)) = reader.field()? {
            match (number, value) {
                (1, Value::Bytes(b)) => spec.name = text(b, file)?,
                (2, Value::Bytes(b)) => spec.precompiled_charsmap = b.to_vec(),
                (3, Value::Varint(v)) => spec.add_dummy_prefix = v != 0,
                (4, Value::Varint(v)) => spec.remove_extra_whitespaces = v != 0,
                (5, Value::Varint(v)) => spec.escape_whitespaces = v != 0,
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A varint-keyed field.
    fn key(number: u64, wire: u64) -> Vec<u8> {
        varint((number << 3) | wire)
    }

    fn varint(mut v: u64) -> Vec<u8> {
        let mut out = vec![];
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(byte);
                return out;
            }
            out.push(byte | 0x80);
        }
    }

    fn bytes_field(number: u64, body: &[u8]) -> Vec<u8> {
        let mut out = key(number, 2);
        out.extend(varint(body.len() as u64));
        out.extend(body);
        out
    }

    fn piece(text: &str, score: f32, kind: u64) -> Vec<u8> {
        let mut body = bytes_field(1, text.as_bytes());
        body.extend(key(2, 5));
        body.extend(score.to_bits().to_le_bytes());
        body.extend(key(3, 0));
        body.extend(varint(kind));
        bytes_field(1, &body)
    }

    #[test]
    fn reads_pieces_scores_types_and_the_normalizer() {
        let mut file = piece("</s>", 0.0, 3);
        file.extend(piece("<unk>", 0.0, 2));
        file.extend(piece("\u{2581}a", -2.5, 1));
        // trainer_spec: model_type 1, byte_fallback 0, and an unknown fixed64 field.
        let mut trainer = key(3, 0);
        trainer.extend(varint(1));
        trainer.extend(key(35, 0));
        trainer.extend(varint(0));
        trainer.extend(key(7, 1));
        trainer.extend([0u8; 8]);
        file.extend(bytes_field(2, &trainer));
        let mut normalizer = bytes_field(1, b"identity");
        normalizer.extend(key(3, 0));
        normalizer.extend(varint(0));
        file.extend(bytes_field(3, &normalizer));
        let model = SentencePieceModel::from_bytes(&file, "x.spm").unwrap();
        assert_eq!(model.pieces.len(), 3);
        assert_eq!(model.pieces[2].piece, "\u{2581}a");
        assert_eq!(model.pieces[2].score, -2.5);
        assert_eq!(model.pieces[0].kind, PieceType::Control);
        assert_eq!(model.pieces[1].kind, PieceType::Unknown);
        assert_eq!(model.normalizer.name, "identity");
        assert!(!model.normalizer.add_dummy_prefix);
        assert!(model.normalizer.remove_extra_whitespaces);
        assert_eq!(model.model_type, UNIGRAM);
    }

    #[test]
    fn truncated_and_foreign_files_are_errors() {
        let file = piece("\u{2581}a", -2.5, 1);
        for cut in 0..file.len() {
            assert!(SentencePieceModel::from_bytes(&file[..cut], "x.spm").is_err());
        }
        assert!(SentencePieceModel::from_bytes(b"{\"not\": \"protobuf\"}", "x.spm").is_err());
        assert!(SentencePieceModel::from_bytes(&[0xff; 12], "x.spm").is_err());
    }
}
