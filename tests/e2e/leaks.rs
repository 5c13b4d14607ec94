//! SimGrid's memory analysis at the end of a run: the MPI handles and the
//! buffers a program leaves unfreed (`--cfg=smpi/list-leaks`), with the
//! places `smpicc -trace-call-location` records, and what it allocated
//! (`--cfg=smpi/display-allocs`).

use super::*;

const SOURCE: &str = "tests/c/leaks.c";

/// Builds tests/c/leaks.c with `flags` into the scratch directory as
/// `name` (once: two tests use the same build).
fn build_leaks(name: &str, flags: &[&str]) -> PathBuf {
    build_as(SOURCE, name, flags)
}

/// The line of the source that holds `marker`.
fn line_of(marker: &str) -> usize {
    line_in(SOURCE, marker)
}

/// smpirun as a user runs it (no closing line), on 4 ranks.
fn run_leaks(app: &Path, options: &[&str]) -> Output {
    with_env(Command::new(env!("CARGO_BIN_EXE_smpirun")))
        .args(["-np", "4", NO_COMPUTE])
        .args(options)
        .arg(app)
        .output()
        .expect("run smpirun")
}

/// The lines on stderr, without their dates (all the run's end).
fn undated(o: &Output) -> Vec<String> {
    let err = stderr(o);
    let date = err.split(' ').next().unwrap_or_default().to_string();
    err.lines()
        .map(|l| l.strip_prefix(&format!("{date} ")).unwrap_or(l).to_string())
        .collect()
}

/// The end of the analysis, the same with places or without.
fn memory_usage() -> Vec<String> {
    let biggest = line_of("/* BIGGEST */");
    vec![
        "[smpi_utils/INFO] Memory Usage: Simulated application allocated 296 bytes during its \
         lifetime through malloc/calloc calls."
            .to_string(),
        format!(
            "Largest allocation at once from a single process was 64 bytes, at leaks.c:{biggest}. \
             It was called 4 times during the whole simulation."
        ),
        "If this is too much, consider sharing allocations for computation buffers.".to_string(),
        "This can be done automatically by setting --cfg=smpi/auto-shared-malloc-thresh to the \
         minimum size wanted size (this can alter execution if data content is necessary)"
            .to_string(),
        String::new(),
    ]
}

#[test]
fn leaks_are_listed_by_type_and_place() {
    let app = build_leaks("leaks_located", &["-O2", "-trace-call-location"]);
    let o = run_leaks(&app, &["--cfg=smpi/list-leaks:10"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 4, "{}", stdout(&o));
    let (comm, ty, buffer) = (
        line_of("/* LEAK comm */"),
        line_of("/* LEAK type */"),
        line_of("/* LEAK buffer */"),
    );
    let mut expected = vec![
        "[smpi_utils/INFO] Probable memory leaks in your code: SMPI detected 12 unfreed MPI \
         handles:"
            .to_string(),
        format!("[smpi_utils/INFO] 4 leaked handles of type MPI_Comm at leaks.c:{comm}"),
        format!("[smpi_utils/INFO] 4 leaked handles of type MPI_Datatype at leaks.c:{ty}"),
        format!("[smpi_utils/INFO] 4 leaked handles of type MPI_Group at leaks.c:{comm}"),
        "[smpi_utils/INFO] Probable memory leaks in your code: SMPI detected 4 unfreed buffers:"
            .to_string(),
        format!(
            "[smpi_utils/INFO] leaks.c:{buffer}: leaked allocations of total size 40, called 4 \
             times, with minimum size 4 and maximum size 16"
        ),
    ];
    expected.extend(memory_usage());
    assert_eq!(undated(&o), expected);
    // The same simulated end date on every line, SimGrid's.
    assert!(stderr(&o).starts_with("[0.0"), "{}", stderr(&o));

    // A limit of one line per list.
    let o = run_leaks(&app, &["--cfg=smpi/list-leaks:1"]);
    let lines = undated(&o);
    assert_eq!(
        lines[2],
        "[smpi_utils/INFO] (2 more handle leaks hidden as you wanted to see only 1 of them)"
    );
}

#[test]
fn without_places_handles_are_listed_by_type_with_advice() {
    let app = build_leaks("leaks_unlocated", &["-O2"]);
    let o = run_leaks(&app, &["--cfg=smpi/display-allocs:yes"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let buffer = line_of("/* LEAK buffer */");
    let mut expected = vec![
        "[smpi_utils/INFO] Probable memory leaks in your code: SMPI detected 12 unfreed MPI \
         handles:"
            .to_string(),
        "[smpi_utils/WARNING] To get more information (location of allocations), compile your \
         code with -trace-call-location flag of smpicc/f90"
            .to_string(),
        "[smpi_utils/INFO] 4 leaked handles of type MPI_Comm".to_string(),
        "[smpi_utils/INFO] 4 leaked handles of type MPI_Datatype".to_string(),
        "[smpi_utils/INFO] 4 leaked handles of type MPI_Group".to_string(),
        "[smpi_utils/INFO] Probable memory leaks in your code: SMPI detected 4 unfreed buffers:"
            .to_string(),
        // malloc always passes its place.
        format!(
            "[smpi_utils/INFO] leaks.c:{buffer}: leaked allocations of total size 40, called 4 \
             times, with minimum size 4 and maximum size 16"
        ),
    ];
    expected.extend(memory_usage());
    assert_eq!(undated(&o), expected);
}

#[test]
fn nothing_is_reported_unless_asked() {
    let app = build_leaks("leaks_located", &["-O2", "-trace-call-location"]);
    let o = run_leaks(&app, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    assert_eq!(stdout(&o).lines().count(), 4, "{}", stdout(&o));
}

#[test]
fn trace_call_location_defines_simgrids_macro() {
    let o = smpicc()
        .args(["-show", "-trace-call-location", "-c", "x.c"])
        .output()
        .expect("run smpicc");
    assert!(o.status.success(), "{}", stderr(&o));
    let line = stdout(&o);
    assert!(line.contains(" -DTRACE_CALL_LOCATION "), "{line}");
    assert!(!line.contains("-trace-call-location"), "{line}");
}
