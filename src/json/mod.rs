//! JSON without a DOM: a strict tokenizer, span navigation and a bounded writer.

pub mod doc;
pub mod num;
pub mod tokenizer;
pub mod writer;

pub use doc::{ConvError, Doc, Unescape};
pub use tokenizer::{Error as TokenizeError, Kind, Token, tokenize};
pub use writer::{Mark, WriteError, Writer};

/// True when `text` is one valid JSON value (nested at most `max_depth`)
/// that starts with `open`: `b'{'` for an object, `b'['` for an array.
pub fn is_container(text: &str, open: u8, max_depth: usize) -> bool {
    let first = text
        .bytes()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    first == Some(open) && tokenize(text.as_bytes(), &mut [], max_depth).is_ok()
}
