//! `smpirun`: runs an smpicc-built MPI program on a simulated platform.

fn main() {
    emulator::install_panic_hook("smpirun");
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    match emulator::run::run(args) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("smpirun: {e:#}");
            std::process::exit(1);
        }
    }
}
