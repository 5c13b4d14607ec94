//! Traces: SimGrid's time-independent traces (`-trace-ti`), byte for
//! byte as SimGrid 3.32 writes them.

use std::path::Path;

use crate::{build, run, scratch, stderr, NO_COMPUTE};

/// What SimGrid 3.32 writes for rank 1 of tests/c/trace_pattern.c on 4
/// ranks (its `-trace-ti`, computation timing off), trailing spaces kept.
const RANK_1: &[&str] = &[
    "1 init",
    "1 irecv 0 7 100 0",
    "1 isend 2 7 100 0",
    "1 waitall 2",
    "1 recv 0 3 100 1",
    "1 sendRecv 50 2 50 0 0 0",
    "1 isend 0 9 10 2",
    "1 recv 2 9 10 2",
    "1 wait 1 0 9",
    "1 barrier",
    "1 bcast 100 0 0 ",
    "1 reduce 50 0 1 0 ",
    "1 allreduce 100 0 0 ",
    "1 allgather 20 20 1 1",
    "1 gather 30 30 0 1 1",
    "1 scatter 40 40 0 1 1",
    "1 alltoall 25 25 1 1",
    "1 alltoallv 14 2 3 4 5 14 2 3 4 5 1 1",
    "1 gatherv 2 0 0 0 0 0 1 1",
    "1 allgatherv 2 1 2 3 4 1 1",
    "1 scatterv 0 0 0 0 2 0 1 1",
    "1 reducescatter 1 2 3 4 0 0",
    "1 scan 7 0 0 ",
    "1 compute 2e+06",
    "1 irecv 0 7 100 0",
    "1 isend 2 7 100 0",
    "1 waitall 2",
    "1 recv 0 3 200 1",
    "1 sendRecv 50 2 50 0 0 0",
    "1 isend 0 9 10 2",
    "1 recv 2 9 10 2",
    "1 wait 1 0 9",
    "1 barrier",
    "1 bcast 100 1 0 ",
    "1 reduce 50 0 1 0 ",
    "1 allreduce 100 0 0 ",
    "1 allgather 20 20 1 1",
    "1 gather 30 30 0 1 1",
    "1 scatter 40 40 0 1 1",
    "1 alltoall 25 25 1 1",
    "1 alltoallv 14 2 3 4 5 14 2 3 4 5 1 1",
    "1 gatherv 2 0 0 0 0 0 1 1",
    "1 allgatherv 2 1 2 3 4 1 1",
    "1 scatterv 0 0 0 0 2 0 1 1",
    "1 reducescatter 1 2 3 4 0 0",
    "1 scan 7 0 0 ",
    "1 compute 2e+06",
    "1 finalize",
];

/// Runs tests/c/trace_pattern.c on 4 ranks with a TI trace indexed in
/// `dir/index.txt`.
fn trace_pattern(dir: &Path) -> std::process::Output {
    let app = build("tests/c/trace_pattern.c");
    std::fs::create_dir_all(dir).unwrap();
    let index = dir.join("index.txt");
    run(&[
        "-np",
        "4",
        NO_COMPUTE,
        "-trace-ti",
        "-trace-file",
        index.to_str().unwrap(),
        app.to_str().unwrap(),
    ])
}

#[test]
fn ti_traces_are_simgrids_lines_indexed_in_rank_order_and_deterministic() {
    let dir = scratch().join("ti-pattern");
    let o = trace_pattern(&dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let index = std::fs::read_to_string(dir.join("index.txt")).unwrap();
    let files: Vec<&str> = index.lines().collect();
    let want: Vec<String> = (0..4)
        .map(|r| format!("{}/index.txt_files/rank-{r}.txt", dir.display()))
        .collect();
    assert_eq!(files, want);
    let rank1 = std::fs::read_to_string(files[1]).unwrap();
    assert_eq!(rank1.lines().collect::<Vec<_>>(), RANK_1);
    assert!(rank1.ends_with("finalize\n"));
    // Every rank's lines start with its rank.
    for (r, f) in files.iter().enumerate() {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(
            text.lines().all(|l| l.starts_with(&format!("{r} "))),
            "{text}"
        );
    }
    // The same run writes the same bytes.
    let again = scratch().join("ti-pattern-again");
    assert!(trace_pattern(&again).status.success());
    for r in 0..4 {
        let name = format!("index.txt_files/rank-{r}.txt");
        assert_eq!(
            std::fs::read(dir.join(&name)).unwrap(),
            std::fs::read(again.join(&name)).unwrap()
        );
    }
}
