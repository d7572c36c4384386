//! JSON without a DOM: a strict tokenizer, span navigation and a bounded writer.

pub mod doc;
pub mod tokenizer;
pub mod writer;

pub use doc::{ConvError, Doc};
pub use tokenizer::{Error as TokenizeError, Kind, Token, tokenize};
pub use writer::{Mark, WriteError, Writer};
