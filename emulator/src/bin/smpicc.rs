//! `smpicc`: builds a C MPI program for smpirun.

fn main() {
    emulator::install_panic_hook("smpicc");
    match emulator::cc::run(emulator::cc::Lang::C) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("smpicc: {e:#}");
            std::process::exit(1);
        }
    }
}
