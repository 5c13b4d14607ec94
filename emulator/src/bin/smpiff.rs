//! `smpiff`: builds a Fortran MPI program for smpirun (see `emulator::cc`).

fn main() {
    emulator::install_panic_hook("smpiff");
    match emulator::cc::run(emulator::cc::Lang::Fortran("smpiff")) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("smpiff: {e:#}");
            std::process::exit(1);
        }
    }
}
