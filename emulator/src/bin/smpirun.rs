//! `smpirun`: runs an smpicc-built MPI program on a simulated platform.

use emulator::run;

fn main() {
    // Keeps libc's interposed time functions in the link (the build
    // exports them to the program and its libraries).
    std::hint::black_box(emulator::abi::interpose::interposers());
    emulator::install_panic_hook("smpirun");
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let code = match emulator::run::run(args) {
        Ok(code) => code,
        Err(e) => {
            if let Some(missing) = e.downcast_ref::<run::MissingFile>() {
                // SimGrid's smpirun script's words.
                eprintln!("[smpirun] ** error: {missing}. Aborting.");
                std::process::exit(1);
            }
            if let Some(empty) = e.downcast_ref::<run::EmptyHostfile>() {
                let line = empty.to_string();
                emulator::log::categories().emit(&emulator::log::Event {
                    category: "root",
                    priority: emulator::log::Priority::Critical,
                    source: emulator::log::Source::Maestro,
                    time: 0.0,
                    location: None,
                    function: None,
                    message: &line,
                });
                println!("Execution failed with code {}.", run::EMPTY_HOSTFILE_EXIT);
                run::EMPTY_HOSTFILE_EXIT
            } else {
                eprintln!("smpirun: {e:#}");
                std::process::exit(1);
            }
        }
    };
    std::process::exit(code)
}
