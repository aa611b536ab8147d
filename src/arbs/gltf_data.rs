//! glTF buffers and accessors, read defensively for [`super::gltf_load`]: every buffer (the
//! GLB binary chunk, a base64 `data:` URI, or a file beside the glTF — no scheme, absolute path
//! or `..`) must hold the bytes the file declares, and every accessor's type, count, offset and
//! stride are checked against its buffer view and buffer with overflow-checked arithmetic
//! before a byte is read, so that a malformed file is an [`ArbsError`] naming the file, the
//! accessor and the problem, never a panic (the `gltf` crate's own readers assume valid
//! ranges).

use super::ArbsError;
use super::skeleton::MAX_FILE_BYTES;
use gltf::accessor::{DataType, Dimensions};
use std::path::{Component, Path};

/// The most elements an accessor may hold.
const MAX_ELEMENTS: usize = 10_000_000;

/// Reads an accessor's elements as numbers (normalised integers scaled to [0, 1] or [−1, 1]),
/// checking the type, the count and every byte range first.
pub(super) fn read_accessor(
    acc: &gltf::Accessor,
    buffers: &[Vec<u8>],
    path: &str,
    what: &str,
    expected: &[Dimensions],
) -> Result<Vec<f64>, ArbsError> {
    let i = acc.index();
    let err = |m: String| ArbsError::file(path, format!("accessor {i} ({what}): {m}"));
    if acc.sparse().is_some() {
        return Err(err("sparse accessors are not supported".into()));
    }
    let dims = acc.dimensions();
    if !expected.contains(&dims) {
        return Err(err(format!("expected type {expected:?}, found {dims:?}")));
    }
    let count = acc.count();
    if count == 0 || count > MAX_ELEMENTS {
        return Err(err(format!(
            "expected 1 to {MAX_ELEMENTS} elements, found {count}"
        )));
    }
    let comp = acc.data_type();
    if dims == Dimensions::Mat4 && comp != DataType::F32 {
        return Err(err(format!(
            "expected float matrices, found {comp:?} components"
        )));
    }
    let view = acc
        .view()
        .ok_or_else(|| err("the accessor has no buffer view".into()))?;
    let csize = comp.size();
    let m = dims.multiplicity();
    let elem = csize * m;
    let stride = view.stride().unwrap_or(elem);
    if stride < elem {
        return Err(err(format!(
            "buffer view {} has a stride of {stride} bytes, less than the {elem}-byte element",
            view.index()
        )));
    }
    let buffer = &buffers[view.buffer().index()];
    let view_start = view.offset();
    let view_end = view_start.checked_add(view.length());
    if view_end.is_none_or(|e| e > buffer.len()) {
        return Err(err(format!(
            "buffer view {} spans bytes {view_start}..{} of buffer {}, which holds {}: out of range",
            view.index(),
            view_end.map_or("overflow".into(), |e| e.to_string()),
            view.buffer().index(),
            buffer.len()
        )));
    }
    let need = stride
        .checked_mul(count - 1)
        .and_then(|x| x.checked_add(elem))
        .and_then(|x| x.checked_add(acc.offset()));
    if need.is_none_or(|n| n > view.length()) {
        return Err(err(format!(
            "{count} elements from byte {} need {} bytes of buffer view {}, which holds {}: out of range",
            acc.offset(),
            need.map_or("too many".into(), |n| n.to_string()),
            view.index(),
            view.length()
        )));
    }
    let normalized = acc.normalized();
    let data = &buffer[view_start..view_start + view.length()];
    let mut out = Vec::with_capacity(count * m);
    for k in 0..count {
        let base = acc.offset() + k * stride;
        for c in 0..m {
            let b = &data[base + c * csize..base + (c + 1) * csize];
            let v = match comp {
                DataType::F32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                DataType::U32 => f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                DataType::U8 if normalized => f64::from(b[0]) / 255.0,
                DataType::U8 => f64::from(b[0]),
                DataType::I8 if normalized => (f64::from(b[0] as i8) / 127.0).max(-1.0),
                DataType::I8 => f64::from(b[0] as i8),
                DataType::U16 if normalized => {
                    f64::from(u16::from_le_bytes([b[0], b[1]])) / 65535.0
                }
                DataType::U16 => f64::from(u16::from_le_bytes([b[0], b[1]])),
                DataType::I16 if normalized => {
                    (f64::from(i16::from_le_bytes([b[0], b[1]])) / 32767.0).max(-1.0)
                }
                DataType::I16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
            };
            if !v.is_finite() {
                return Err(err(format!("element {k} is not finite (NaN or infinity)")));
            }
            out.push(v);
        }
    }
    Ok(out)
}

/// Every buffer's bytes: the GLB binary chunk, a `data:` URI, or a file beside the glTF.
pub(super) fn load_buffers(
    gltf: &gltf::Gltf,
    dir: Option<&Path>,
    path: &str,
) -> Result<Vec<Vec<u8>>, ArbsError> {
    let mut out = Vec::new();
    for b in gltf.document.buffers() {
        let i = b.index();
        let err = |m: String| ArbsError::file(path, format!("buffer {i}: {m}"));
        let (mut data, source) = match b.source() {
            gltf::buffer::Source::Bin => (
                gltf.blob.clone().ok_or_else(|| {
                    err("refers to the binary chunk, but the file has none".into())
                })?,
                "the binary chunk".to_string(),
            ),
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                let (_, payload) = uri
                    .split_once(";base64,")
                    .ok_or_else(|| err("expected a base64 `data:` URI".into()))?;
                (
                    decode_base64(payload).map_err(|e| err(e.to_string()))?,
                    "its data URI".to_string(),
                )
            }
            gltf::buffer::Source::Uri(uri) => {
                let relative = percent_decode(uri);
                let rel = Path::new(&relative);
                if uri.contains("://")
                    || rel
                        .components()
                        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
                {
                    return Err(err(format!(
                        "`{uri}`: expected a file beside the glTF (no scheme, absolute path or `..`)"
                    )));
                }
                let file = dir.unwrap_or(Path::new(".")).join(rel);
                let size = std::fs::metadata(&file)
                    .map_err(|e| err(format!("cannot read {}: {e}", file.display())))?
                    .len();
                if size > MAX_FILE_BYTES {
                    return Err(err(format!(
                        "{} has {size} bytes; at most {MAX_FILE_BYTES} are read",
                        file.display()
                    )));
                }
                (
                    std::fs::read(&file)
                        .map_err(|e| err(format!("cannot read {}: {e}", file.display())))?,
                    file.display().to_string(),
                )
            }
        };
        if data.len() < b.length() {
            return Err(err(format!(
                "{source} holds {} bytes, the file declares {}: truncated",
                data.len(),
                b.length()
            )));
        }
        data.truncate(b.length());
        out.push(data);
    }
    Ok(out)
}

/// `%20` and friends of a relative URI.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[k] == b'%'
            && k + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[k + 1]), hex(bytes[k + 2]))
        {
            out.push((h * 16 + l) as u8);
            k += 3;
            continue;
        }
        out.push(bytes[k]);
        k += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A byte that is not base64, at its offset in the data URI's payload.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid base64 character at offset {offset} of the data URI")]
struct InvalidBase64 {
    offset: usize,
}

/// Standard base64 (padding optional, whitespace ignored).
fn decode_base64(s: &str) -> Result<Vec<u8>, InvalidBase64> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0;
    for (k, c) in s.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            c if c.is_ascii_whitespace() => continue,
            _ => return Err(InvalidBase64 { offset: k }),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_percent_decoding() {
        assert_eq!(decode_base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode_base64("aGVsbG8").unwrap(), b"hello");
        assert_eq!(decode_base64("AAEC\n/w==").unwrap(), vec![0, 1, 2, 255]);
        assert!(decode_base64("a*b").is_err());
        assert_eq!(percent_decode("my%20file.bin"), "my file.bin");
        assert_eq!(percent_decode("100%"), "100%");
    }
}
