//! `smpif90`: builds a Fortran MPI program for smpirun (see `emulator::cc`).

fn main() {
    emulator::install_panic_hook("smpif90");
    match emulator::cc::run(emulator::cc::Lang::Fortran("smpif90")) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("smpif90: {e:#}");
            std::process::exit(1);
        }
    }
}
