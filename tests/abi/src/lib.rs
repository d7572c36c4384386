//! ABI checks: include/emcp.h against the emcp crate's Rust definitions.
//!
//! How to run each check (from tests/abi; add `-- --nocapture` to see the lists):
//! - all of them:                                                        `cd tests/abi && cargo test`
//! - ctest (constants, struct size/align/field offsets, typedef sizes):  `cd tests/abi && cargo test ctest`
//! - bindgen: function signatures (compile-time) + exports on both sides: `cd tests/abi && cargo test signatures`
//! - bindgen: struct field and fn-pointer typedef types (compile-time):   `cd tests/abi && cargo test field_types`
//! - bindgen: constant values and constants/types on both sides:          `cd tests/abi && cargo test constants_and_types`
//!
//! build.rs generates the checks; a signature or type mismatch is a compile
//! error in the generated `abi_checks.rs` whose comment line names the item.

use core::marker::PhantomData;

/// A type as a value, for comparing types in generated checks.
pub struct Ty<T: ?Sized>(PhantomData<T>);

/// The type `T`.
pub fn ty<T>() -> Ty<T> {
    Ty(PhantomData)
}

/// The type of the field `get` reads from an `S`.
pub fn field<S, F>(_get: fn(&S) -> &F) -> Ty<F> {
    Ty(PhantomData)
}

/// Compiles only if `a` and `b` have the same type.
pub fn same<T>(_a: T, _b: T) {}

/// Compiles only if the header's type `H` and the Rust type `R` are the same
/// once both are written in emcp's terms (see [`Canon`]).
pub fn same_canon<H: Canon, R: Canon<C = H::C>>(_h: Ty<H>, _r: Ty<R>) {}

/// One canonical Rust type for a header type (as bindgen writes it) or a Rust
/// type: a header struct becomes the emcp struct of the same name, and every
/// C function pointer becomes an `unsafe extern "C" fn` (bindgen writes them
/// unsafe, emcp's callbacks may be safe; C cannot tell the two apart).
pub trait Canon {
    /// The canonical type.
    type C;
}

macro_rules! canon_self {
    ($($t:ty),* $(,)?) => { $(impl Canon for $t { type C = $t; })* };
}
canon_self!(
    u8,
    u16,
    u32,
    u64,
    i8,
    i16,
    i32,
    i64,
    usize,
    isize,
    f32,
    f64,
    bool,
    (),
    core::ffi::c_void
);

impl<T: Canon> Canon for *const T {
    type C = *const T::C;
}
impl<T: Canon> Canon for *mut T {
    type C = *mut T::C;
}
impl<T: Canon, const N: usize> Canon for [T; N] {
    type C = [T::C; N];
}
impl<T: Canon> Canon for Option<T> {
    type C = Option<T::C>;
}

macro_rules! canon_fn {
    ($($a:ident),*) => {
        impl<R: Canon, $($a: Canon),*> Canon for extern "C" fn($($a),*) -> R {
            type C = unsafe extern "C" fn($($a::C),*) -> R::C;
        }
        impl<R: Canon, $($a: Canon),*> Canon for unsafe extern "C" fn($($a),*) -> R {
            type C = unsafe extern "C" fn($($a::C),*) -> R::C;
        }
    };
}
canon_fn!();
canon_fn!(A);
canon_fn!(A, B);
canon_fn!(A, B, C);
canon_fn!(A, B, C, D);
canon_fn!(A, B, C, D, E);
canon_fn!(A, B, C, D, E, F);

/// For each `header_struct => rust_struct` pair: both map to the Rust struct.
macro_rules! impl_canon_structs {
    ($($h:path => $r:path),* $(,)?) => {
        $(
            impl Canon for $h { type C = $r; }
            impl Canon for $r { type C = $r; }
        )*
    };
}

mod generated {
    use super::{Canon, field, same, same_canon, ty};
    include!(concat!(env!("OUT_DIR"), "/abi_checks.rs"));
}

pub use generated::*;

/// ctest's generated test program, kept in a module (its `main` runs every check
/// and panics with "some tests failed" after printing each mismatch).
#[cfg(test)]
mod ctest_generated {
    #![allow(clippy::all, unused_imports)]
    use emcp::ffi::*;
    use emcp::limits::*;
    use emcp::registry::*;
    include!(concat!(env!("OUT_DIR"), "/ctest_emcp.rs"));

    #[test]
    fn ctest_constants_layouts_and_typedefs() {
        println!(
            "ctest: {} checks of include/emcp.h compiled by the C compiler against emcp:",
            super::CTEST_CHECKS.len()
        );
        for (prefix, what) in [
            ("ctest_const_", "constant values"),
            (
                "ctest_size_align_",
                "size and alignment (structs, typedefs)",
            ),
            ("ctest_field_size_offset_", "field offset and size"),
            ("ctest_field_ptr_", "field address"),
            ("ctest_roundtrip_", "by-value round trip through C"),
        ] {
            let items: Vec<&str> = super::CTEST_CHECKS
                .iter()
                .filter_map(|c| c.strip_prefix(prefix))
                .collect();
            println!("  {what} ({}): {}", items.len(), items.join(" "));
        }
        println!(
            "ctest skipped opaque handles (incomplete types in C): {:?}",
            super::OPAQUE_TYPES
        );
        // Panics with "some tests failed" after printing each mismatch to stderr.
        main();
        // A struct C reads by value must have a defined layout; an opaque
        // handle only crosses as a pointer, so it is reported, not failed.
        let by_value: Vec<&&str> = super::NOT_REPR_C
            .iter()
            .filter(|s| !s.ends_with("(opaque)"))
            .collect();
        if !super::NOT_REPR_C.is_empty() {
            println!(
                "NOTE: mcp_* structs without #[repr(C)]: {:?}",
                super::NOT_REPR_C
            );
        }
        assert!(
            by_value.is_empty(),
            "mcp_* structs shared with C by value lack #[repr(C)]: {by_value:?}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none_or_fail(what: &str, names: &[&str], failures: &mut Vec<String>) {
        if !names.is_empty() {
            failures.push(format!("{what}: {}", names.join(", ")));
        }
    }

    #[test]
    fn signatures_match_and_every_function_exists_on_both_sides() {
        // The comparison itself happened at compile time; this counts it.
        let n = check_signatures();
        println!(
            "bindgen: {n} header function signatures equal to the Rust exports (checked at compile time):"
        );
        for f in SIGNATURES_CHECKED {
            println!("  {f}");
        }
        let mut failures = Vec::new();
        none_or_fail(
            "declared in include/emcp.h but not exported by emcp",
            HEADER_ONLY_FUNCTIONS,
            &mut failures,
        );
        none_or_fail(
            "exported by emcp (no_mangle extern \"C\") but not declared in include/emcp.h",
            RUST_ONLY_FUNCTIONS,
            &mut failures,
        );
        assert!(n > 0, "no function was compared");
        assert_eq!(n, SIGNATURES_CHECKED.len());
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn field_types_and_typedefs_match() {
        let n = check_field_and_typedef_types();
        println!(
            "bindgen: {n} struct field and typedef types equal to Rust's (checked at compile time):"
        );
        for f in FIELD_TYPES_CHECKED {
            println!("  {f}");
        }
        assert!(n > 0, "no field was compared");
    }

    #[test]
    fn constants_and_types_match_and_exist_on_both_sides() {
        let values = constant_values();
        let mut failures = Vec::new();
        println!(
            "bindgen: {} constant values read back from include/emcp.h:",
            values.len()
        );
        for (name, header, rust) in &values {
            println!("  {name} = {header}");
            if header != rust {
                failures.push(format!(
                    "{name}: {header} in include/emcp.h, {rust} in Rust"
                ));
            }
        }
        if !CONSTANTS_NOT_EVALUATED_BY_BINDGEN.is_empty() {
            println!(
                "not evaluated by bindgen (values checked by ctest): {:?}",
                CONSTANTS_NOT_EVALUATED_BY_BINDGEN
            );
        }
        none_or_fail(
            "#define in include/emcp.h without a Rust constant",
            HEADER_ONLY_CONSTANTS,
            &mut failures,
        );
        none_or_fail(
            "Rust MCP_* constant missing from include/emcp.h",
            RUST_ONLY_CONSTANTS,
            &mut failures,
        );
        none_or_fail(
            "type in include/emcp.h without a Rust definition",
            HEADER_ONLY_TYPES,
            &mut failures,
        );
        none_or_fail(
            "public Rust mcp_* type missing from include/emcp.h",
            RUST_ONLY_TYPES,
            &mut failures,
        );
        assert!(!values.is_empty(), "no constant was compared");
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
