//! Kernel models (`smpi/blas:model`, `-calibrate-blas`) and function
//! models (`smpi/function-models`), with tests/c/blas_models.c: a program
//! carrying its own small BLAS and a slow set-up function.

use std::process::Command;

use crate::{build, run, scratch, smpicc, stderr, stdout, write_scratch, NO_COMPUTE};

/// The value printed after `key` on a line of its own.
fn field<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(key).map(str::trim))
        .unwrap_or_else(|| panic!("no '{key}' in:\n{out}"))
}

fn seconds(out: &str, key: &str) -> f64 {
    field(out, key).parse().expect("a number")
}

/// The function-model library for blas_models.c.
fn function_models() -> String {
    let out = scratch().join("function_models.so");
    let o = smpicc()
        .args(["-shared", "-O2"])
        .arg(crate::repo().join("tests/c/function_models.c"))
        .arg("-o")
        .arg(&out)
        .output()
        .expect("run smpicc");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out.to_string_lossy().into_owned()
}

/// MPI_Wtime's own cost, which every interval printed includes once.
const WTIME: f64 = 1e-8;

#[test]
fn without_models_the_program_computes() {
    let app = build("tests/c/blas_models.c");
    let o = run(&["-np", "2", NO_COMPUTE, app.to_str().unwrap()]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert_eq!(field(&out, "C00"), "128");
    assert_eq!(field(&out, "idamax"), "501");
    assert_eq!(field(&out, "dscal"), "3");
    assert_eq!(field(&out, "setup"), format!("7 {WTIME:.9}"));
}

#[test]
fn kernel_models_charge_their_time_and_compute_nothing() {
    let app = build("tests/c/blas_models.c");
    let models = write_scratch(
        "dgemm-model.toml",
        "# test\n[dgemm]\nmnk = 1e-9\n1 = 1e-6\n",
    );
    let file = format!("--cfg=smpi/blas-model-file:{}", models.display());
    let fm = format!("--cfg=smpi/function-models:{}", function_models());
    // Scaled as measured code, host speed = the default platform's host
    // speed: a second of the model is a simulated second.
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "--cfg=smpi/host-speed:1e9",
        "--cfg=smpi/blas:model",
        "--cfg=smpi/blas-model-scale:host-speed",
        &file,
        &fm,
        app.to_str().unwrap(),
    ]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert_eq!(field(&out, "C00"), "0", "dgemm computed");
    assert_eq!(
        field(&out, "idamax"),
        "1",
        "idamax answers the first element"
    );
    assert_eq!(field(&out, "dscal"), "1", "dscal computed");
    // dgemm: 1e-9 * 64^3 + 1e-6 from the file.
    let dgemm = seconds(&out, "dgemm") - WTIME;
    assert!((dgemm - 263.144e-6).abs() < 1e-12, "{dgemm}");
    // dscal is not in the file: its flop count (1000) at 1 Gflop/s.
    let dscal = seconds(&out, "dscal-time") - WTIME;
    assert!((dscal - 1e-6).abs() < 1e-12, "{dscal}");
    // slow_setup replaced by function_models.c's: 1e9 flops, 42.
    assert_eq!(field(&out, "setup"), format!("42 {:.9}", 1.0 + WTIME));
}

#[test]
fn peak_scaling_runs_a_kernel_at_this_machine_s_efficiency_on_the_simulated_host() {
    let app = build("tests/c/blas_models.c");
    // dgemm of 64^3 (524,288 flops): 263.144 us here by the model; dscal
    // is not in the file: its flop count (1000) at the host's speed. The
    // default platform's hosts run at smpi/host-speed.
    let dgemm_and_dscal = |peak: &str, host_speed: &str| {
        let models = write_scratch(
            &format!("dgemm-model-peak-{peak}-{host_speed}.toml"),
            &format!("[machine]\npeak = {peak}\n[dgemm]\nmnk = 1e-9\n1 = 1e-6\n"),
        );
        let o = run(&[
            "-np",
            "1",
            NO_COMPUTE,
            &format!("--cfg=smpi/host-speed:{host_speed}"),
            "--cfg=smpi/blas:model",
            &format!("--cfg=smpi/blas-model-file:{}", models.display()),
            app.to_str().unwrap(),
        ]);
        let out = stdout(&o);
        assert!(o.status.success(), "{out}{}", stderr(&o));
        (
            seconds(&out, "dgemm") - WTIME,
            seconds(&out, "dscal-time") - WTIME,
        )
    };
    let close = |(t, want): (f64, f64)| assert!((t - want).abs() < 1e-12, "{t} vs {want}");
    // A peak of 2.5 Gflop/s here: the call ran at 1.99 Gflop/s, 79.7% of
    // it, so it takes 524,288 flops / (0.797 * 1 Gflop/s) on the simulated
    // host: 263.144 us * 2.5.
    let (dgemm, dscal) = dgemm_and_dscal("2.5e9", "1e9");
    close((dgemm, 657.86e-6));
    close((dscal, 1e-6));
    // A peak below the call's rate (a model file from another machine):
    // never faster than the simulated host, 524.288 us.
    let (dgemm, dscal) = dgemm_and_dscal("1e9", "1e9");
    close((dgemm, 524.288e-6));
    close((dscal, 1e-6));
    // smpi/host-speed left at auto: this machine's speed is the peak, and
    // the default platform's hosts run at it, so the call takes its
    // seconds here and dscal's 1,000 flops 0.4 us.
    let (dgemm, dscal) = dgemm_and_dscal("2.5e9", "auto");
    close((dgemm, 263.144e-6));
    close((dscal, 0.4e-6));
}

#[test]
fn with_computation_simulated_the_model_joins_the_burst() {
    // The kernel's time is spent at the next MPI call, with the measured
    // burst around it (a few microseconds of the program's own code).
    let app = build("tests/c/blas_models.c");
    let models = write_scratch("dgemm-model-2.toml", "[dgemm]\nmnk = 1e-9\n1 = 1e-6\n");
    let o = run(&[
        "-np",
        "1",
        "--cfg=smpi/host-speed:1e9",
        "--cfg=smpi/blas:model",
        "--cfg=smpi/blas-model-scale:host-speed",
        &format!("--cfg=smpi/blas-model-file:{}", models.display()),
        app.to_str().unwrap(),
    ]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert_eq!(field(&out, "C00"), "0");
    let dgemm = seconds(&out, "dgemm") - WTIME;
    assert!((263.144e-6..263.144e-6 + 1e-3).contains(&dgemm), "{dgemm}");
}

#[test]
fn model_mistakes_are_named() {
    let app = build("tests/c/blas_models.c");
    let bad = write_scratch(
        "bad-model.toml",
        "[dgemm]\nmnk = 1e-9\n1 = 1e-6\n[zgemm]\nn = 1\n",
    );
    let o = run(&[
        "-np",
        "1",
        "--cfg=smpi/blas:model",
        &format!("--cfg=smpi/blas-model-file:{}", bad.display()),
        app.to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert!(!o.status.success());
    assert!(
        err.contains("bad-model.toml") && err.contains("line 4: 'zgemm'"),
        "{err}"
    );
    // A model library that is not built by smpicc is refused.
    let o = run(&[
        "-np",
        "1",
        "--cfg=smpi/function-models:/bin/true",
        app.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("not a library of function models"),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "-np",
        "1",
        "--cfg=smpi/blas:sometimes",
        app.to_str().unwrap(),
    ]);
    assert!(stderr(&o).contains("smpi/blas"), "{}", stderr(&o));
    let o = run(&[
        "-np",
        "1",
        "--cfg=smpi/blas-model-scale:fast",
        app.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("smpi/blas-model-scale: 'fast' is not peak or host-speed"),
        "{}",
        stderr(&o)
    );
    // Peak scaling (the default) with a file that gives no peak: what to do.
    let no_peak = write_scratch("no-peak-model.toml", "[dgemm]\nmnk = 1e-9\n");
    let o = run(&[
        "-np",
        "1",
        "--cfg=smpi/blas:model",
        &format!("--cfg=smpi/blas-model-file:{}", no_peak.display()),
        app.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("no-peak-model.toml")
            && err.contains("no [machine] peak")
            && err.contains("smpirun -calibrate-blas FILE"),
        "{err}"
    );
}

#[test]
fn calibration_fits_the_kernels_a_library_has() {
    let lib = scratch().join("libnaiveblas.so");
    let o = Command::new("cc")
        .args(["-O2", "-shared", "-fPIC"])
        .arg(crate::repo().join("tests/c/naive_blas.c"))
        .arg("-o")
        .arg(&lib)
        .output()
        .expect("run cc");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file = scratch().join("naive-models.toml");
    let o = run(&[
        "-calibrate-blas",
        file.to_str().unwrap(),
        "-blas-lib",
        lib.to_str().unwrap(),
    ]);
    let report = stdout(&o);
    assert!(o.status.success(), "{report}{}", stderr(&o));
    assert!(
        report.contains("not in ") && report.contains("dtrsm_"),
        "{report}"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    // TOML: a table per kernel found, of term coefficients and r2.
    let tables: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut names: Vec<&str> = tables.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["dgemm", "dscal", "machine"], "{text}");
    // This machine's peak: the best rate measured, a positive flop/s.
    let peak = tables["machine"]["peak"].as_float();
    assert!(peak.is_some_and(|p| p > 0.0 && p.is_finite()), "{text}");
    assert!(report.contains("this machine's peak"), "{report}");
    for (kernel, terms) in tables.iter().filter(|(k, _)| *k != "machine") {
        let terms = terms.as_table().expect("a table per kernel");
        assert!(
            terms.get("r2").is_some_and(toml::Value::is_float),
            "{kernel}: {text}"
        );
        assert!(terms.len() >= 3, "{kernel}: {text}");
        assert!(
            terms.values().all(toml::Value::is_float),
            "{kernel}: {text}"
        );
    }
    // The file is what runs load.
    let app = build("tests/c/blas_models.c");
    let o = run(&[
        "-np",
        "1",
        NO_COMPUTE,
        "--cfg=smpi/blas:model",
        &format!("--cfg=smpi/blas-model-file:{}", file.display()),
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(field(&stdout(&o), "C00"), "0");
    // No such library: the error says what to do.
    let o = run(&[
        "-calibrate-blas",
        "/tmp/x.txt",
        "-blas-lib",
        "libnothere.so",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("libnothere.so"), "{}", stderr(&o));
}

#[test]
fn the_bench_clock_decides_whether_waiting_counts() {
    // 100 ms asleep in the kernel: no CPU time, but 100 ms of wall time
    // (host speed = the default platform's: a second is a second).
    let app = build("tests/c/bench_clock.c");
    let burst = |clock: &str| {
        let o = run(&[
            "-np",
            "1",
            "--cfg=smpi/host-speed:1e9",
            &format!("--cfg=smpi/bench-clock:{clock}"),
            app.to_str().unwrap(),
        ]);
        let out = stdout(&o);
        assert!(o.status.success(), "{out}{}", stderr(&o));
        seconds(&out, "burst")
    };
    let cpu = burst("cpu");
    assert!(cpu < 0.02, "{cpu}");
    let wall = burst("wall");
    assert!(wall >= 0.1, "{wall}");
    let o = run(&[
        "-np",
        "1",
        "--cfg=smpi/bench-clock:cycles",
        app.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("smpi/bench-clock: 'cycles' is not cpu or wall"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn modelled_dcopy_moves_data_like_blas_from_private_and_folded_memory() {
    let app = build("tests/c/blas_moves.c");
    let models = write_scratch("dcopy-model.toml", "[dgemm]\nmnk = 1e-9\n");
    let file = format!("--cfg=smpi/blas-model-file:{}", models.display());
    let o = run(&[
        "-np",
        "1",
        NO_COMPUTE,
        "--cfg=smpi/blas:model",
        "--cfg=smpi/blas-model-scale:host-speed",
        &file,
        app.to_str().unwrap(),
    ]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert_eq!(
        out,
        "private 1 2 3 4\nfrom-folded 10 11 12 13\nmixed 6 7 8\n",
        "{}",
        stderr(&o)
    );
}
