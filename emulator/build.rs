//! Compiles the C helper for reductions on `long double` (a type Rust
//! does not have).

fn main() {
    println!("cargo:rerun-if-changed=csrc/long_double.c");
    cc::Build::new()
        .file("csrc/long_double.c")
        .warnings(true)
        .compile("smpi_long_double");
}
