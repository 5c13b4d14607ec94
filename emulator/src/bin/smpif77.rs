//! `smpif77`: builds a Fortran MPI program for smpirun (see `emulator::cc`).

fn main() {
    emulator::install_panic_hook("smpif77");
    match emulator::cc::run(emulator::cc::Lang::Fortran("smpif77")) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("smpif77: {e:#}");
            std::process::exit(1);
        }
    }
}
