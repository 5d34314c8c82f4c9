//! Reader for CTranslate2 model files (`model.bin`, binary format version 6,
//! as written by `ctranslate2.specs.ModelSpec.save`): a table of named,
//! typed tensors plus aliases. Only what the whisper converter needs.

use std::collections::BTreeMap;

use super::ModelError;

/// Element types CTranslate2 writes (its `DataType` enum).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ct2Type {
    F32,
    I8,
    I16,
    I32,
    F16,
    Bf16,
}

impl Ct2Type {
    fn from_id(id: u8) -> Option<Self> {
        Some(match id {
            0 => Self::F32,
            1 => Self::I8,
            2 => Self::I16,
            3 => Self::I32,
            4 => Self::F16,
            5 => Self::Bf16,
            _ => return None,
        })
    }

    pub fn size(self) -> usize {
        match self {
            Self::I8 => 1,
            Self::I16 | Self::F16 | Self::Bf16 => 2,
            Self::F32 | Self::I32 => 4,
        }
    }
}

/// One tensor: its shape, type and raw little-endian bytes.
#[derive(Debug, Clone, Copy)]
pub struct Ct2Tensor<'a> {
    pub dims: &'a [usize],
    pub dtype: Ct2Type,
    pub bytes: &'a [u8],
}

impl Ct2Tensor<'_> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.dims.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of a scalar integer tensor (flags and head counts).
    pub fn scalar_int(&self) -> Option<i64> {
        match (self.dtype, self.bytes) {
            (Ct2Type::I8, [b]) => Some(i64::from(*b as i8)),
            (Ct2Type::I16, [a, b]) => Some(i64::from(i16::from_le_bytes([*a, *b]))),
            (Ct2Type::I32, [a, b, c, d]) => Some(i64::from(i32::from_le_bytes([*a, *b, *c, *d]))),
            _ => None,
        }
    }
}

#[derive(Debug)]
struct Entry {
    dims: Vec<usize>,
    dtype: Ct2Type,
    start: usize,
    end: usize,
}

/// A parsed CTranslate2 model held in memory.
#[derive(Debug)]
pub struct Ct2Model {
    /// The spec name, e.g. `WhisperSpec`.
    pub spec: String,
    pub revision: u32,
    data: Vec<u8>,
    entries: BTreeMap<String, Entry>,
    aliases: BTreeMap<String, String>,
}

/// The binary version this reader understands.
const BINARY_VERSION: u32 = 6;

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ModelError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.data.len())
            .ok_or_else(|| {
                ModelError::Format(format!(
                    "CTranslate2 model is truncated at byte {} (wanted {n} more)",
                    self.pos
                ))
            })?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, ModelError> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, ModelError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, ModelError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    /// A string: u16 length including a trailing NUL, then the bytes.
    fn string(&mut self) -> Result<String, ModelError> {
        let n = usize::from(self.u16()?);
        let b = self.take(n)?;
        let b = b.strip_suffix(&[0]).unwrap_or(b);
        String::from_utf8(b.to_vec()).map_err(|_| {
            ModelError::Format("CTranslate2 model has a name that is not UTF-8".into())
        })
    }
}

impl Ct2Model {
    /// Parses a whole `model.bin`.
    pub fn parse(data: Vec<u8>) -> Result<Self, ModelError> {
        let mut c = Cursor {
            data: &data,
            pos: 0,
        };
        let version = c.u32()?;
        if version != BINARY_VERSION {
            return Err(ModelError::Format(format!(
                "CTranslate2 binary version {version} is not supported (expected {BINARY_VERSION})"
            )));
        }
        let spec = c.string()?;
        let revision = c.u32()?;
        let count = c.u32()?;
        let mut entries = BTreeMap::new();
        for _ in 0..count {
            let name = c.string()?;
            let rank = usize::from(c.u8()?);
            let mut dims = Vec::with_capacity(rank);
            for _ in 0..rank {
                dims.push(c.u32()? as usize);
            }
            let type_id = c.u8()?;
            let dtype = Ct2Type::from_id(type_id).ok_or_else(|| {
                ModelError::Format(format!(
                    "tensor {name} has unknown CTranslate2 type id {type_id}"
                ))
            })?;
            let nbytes = c.u32()? as usize;
            let expected = dims.iter().product::<usize>() * dtype.size();
            if nbytes != expected {
                return Err(ModelError::Format(format!(
                    "tensor {name} declares {nbytes} bytes but its shape {dims:?} needs {expected}"
                )));
            }
            let start = c.pos;
            c.take(nbytes)?;
            entries.insert(
                name,
                Entry {
                    dims,
                    dtype,
                    start,
                    end: start + nbytes,
                },
            );
        }
        let alias_count = c.u32()?;
        let mut aliases = BTreeMap::new();
        for _ in 0..alias_count {
            let alias = c.string()?;
            let target = c.string()?;
            aliases.insert(alias, target);
        }
        if c.pos != data.len() {
            return Err(ModelError::Format(format!(
                "CTranslate2 model has {} unexpected trailing bytes",
                data.len() - c.pos
            )));
        }
        Ok(Self {
            spec,
            revision,
            data,
            entries,
            aliases,
        })
    }

    /// A tensor by name (aliases resolved).
    pub fn get(&self, name: &str) -> Result<Ct2Tensor<'_>, ModelError> {
        let key = self.aliases.get(name).map(String::as_str).unwrap_or(name);
        let e = self
            .entries
            .get(key)
            .ok_or_else(|| ModelError::Format(format!("CTranslate2 model has no tensor {name}")))?;
        Ok(Ct2Tensor {
            dims: &e.dims,
            dtype: e.dtype,
            bytes: &self.data[e.start..e.end],
        })
    }

    /// Names of all stored (non-alias) tensors.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&((s.len() + 1) as u16).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
        out.push(0);
    }

    fn tiny_model() -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&6u32.to_le_bytes());
        string(&mut b, "WhisperSpec");
        b.extend_from_slice(&3u32.to_le_bytes());
        b.extend_from_slice(&2u32.to_le_bytes());
        string(&mut b, "a/weight");
        b.push(2);
        b.extend_from_slice(&2u32.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        b.push(4);
        b.extend_from_slice(&4u32.to_le_bytes());
        b.extend_from_slice(&[0x00, 0x3c, 0x00, 0x40]); // f16 1.0, 2.0
        string(&mut b, "heads");
        b.push(0);
        b.push(2);
        b.extend_from_slice(&2u32.to_le_bytes());
        b.extend_from_slice(&8i16.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        string(&mut b, "b/weight");
        string(&mut b, "a/weight");
        b
    }

    #[test]
    fn parses_tensors_and_aliases() {
        let m = Ct2Model::parse(tiny_model()).unwrap();
        assert_eq!(m.spec, "WhisperSpec");
        assert_eq!(m.revision, 3);
        let t = m.get("b/weight").unwrap();
        assert_eq!(t.dims, &[2, 1]);
        assert_eq!(t.dtype, Ct2Type::F16);
        assert_eq!(t.bytes, &[0x00, 0x3c, 0x00, 0x40]);
        assert_eq!(m.get("heads").unwrap().scalar_int(), Some(8));
        assert!(m.get("missing").is_err());
    }

    #[test]
    fn truncated_or_wrong_version_is_an_error() {
        let mut data = tiny_model();
        data.truncate(30);
        let e = Ct2Model::parse(data).unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
        let mut data = tiny_model();
        data[0] = 5;
        let e = Ct2Model::parse(data).unwrap_err().to_string();
        assert!(e.contains("version 5"), "{e}");
    }
}
