//! `smpicxx`: builds a C++ MPI program for smpirun.

fn main() {
    emulator::install_panic_hook("smpicxx");
    match emulator::cc::run(emulator::cc::Lang::Cxx) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("smpicxx: {e:#}");
            std::process::exit(1);
        }
    }
}
