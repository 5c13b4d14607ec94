//! Memory folding: `SMPI_SHARED_MALLOC` under each `smpi/shared-malloc`
//! strategy (tests/c/shared_malloc.c checks its own data and memory).

use crate::{build, run, stderr, stdout, NO_COMPUTE};

/// Runs shared_malloc.c on `np` ranks with `cfg` and `args`; its output.
fn shared_malloc(np: &str, cfg: &[&str], args: &[&str]) -> std::process::Output {
    let app = build("tests/c/shared_malloc.c");
    let mut all = vec!["-np", np, NO_COMPUTE];
    all.extend_from_slice(cfg);
    all.push(app.to_str().unwrap());
    all.extend_from_slice(args);
    run(&all)
}

fn assert_passes(np: &str, cfg: &[&str], args: &[&str]) -> String {
    let o = shared_malloc(np, cfg, args);
    let out = stdout(&o);
    assert!(
        o.status.success() && out.contains(" No Errors"),
        "{cfg:?} {args:?}:\n{out}{}",
        stderr(&o)
    );
    out
}

/// The run failed and its error names every one of `needed`.
fn assert_fails_naming(o: &std::process::Output, needed: &[&str]) {
    let err = stderr(o);
    assert!(!o.status.success(), "{err}");
    for needed in needed {
        assert!(err.contains(needed), "no '{needed}' in: {err}");
    }
}

#[test]
fn global_folding_keeps_gigabytes_out_of_memory() {
    // 8 ranks touch 256 MiB each: 2 GiB of buffers, no private memory.
    let out = assert_passes("8", &[], &["global", "256"]);
    assert!(out.contains("2048 MiB allocated in all"), "{out}");
    // Without folding the same program sees its memory grow, and says so.
    let o = shared_malloc("4", &["--cfg=smpi/shared-malloc:no"], &["global", "64"]);
    assert!(
        stdout(&o).contains("folding saved too little"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn local_folding_shares_per_call_site_skips_copies_and_no_folding_is_private() {
    assert_passes("4", &["--cfg=smpi/shared-malloc:local"], &["local"]);
    assert_passes("2", &["--cfg=smpi/shared-malloc:local"], &["copies"]);
    assert_passes("4", &[], &["partial"]);
    assert_passes("4", &["--cfg=smpi/shared-malloc:no"], &["no"]);
}

#[test]
fn auto_threshold_folds_large_plain_mallocs_only() {
    let on = ["--cfg=smpi/auto-shared-malloc-thresh:1048576"];
    assert_passes("4", &on, &["auto", "folded"]);
    assert_passes("4", &[], &["auto", "private"]);
    // Above the threshold of the allocation: nothing is folded.
    assert_passes(
        "4",
        &["--cfg=smpi/auto-shared-malloc-thresh:8388608"],
        &["auto", "private"],
    );
    // The check can fail: expecting folding without the option does.
    let o = shared_malloc("2", &[], &["auto", "folded"]);
    assert!(!stdout(&o).contains(" No Errors"), "{}", stdout(&o));
    assert_passes("3", &[], &["unfold"]);
}

#[test]
fn running_out_of_mappings_names_the_limit_and_the_fix() {
    // One mapping per 4 KiB block, more blocks than vm.max_map_count.
    let max: usize = std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(65530);
    let mib = ((max + 25_000) * 4096).div_ceil(1 << 20).to_string();
    let o = shared_malloc(
        "1",
        &["--cfg=smpi/shared-malloc-blocksize:4096"],
        &["huge", &mib],
    );
    assert_fails_naming(
        &o,
        &[
            "rank 0: SMPI_SHARED_MALLOC(",
            "shared_malloc.c:",
            "vm.max_map_count is",
            "sysctl -w vm.max_map_count=",
            "--cfg=smpi/shared-malloc-blocksize:",
        ],
    );
    // A bad strategy is refused before the run.
    let o = shared_malloc("1", &["--cfg=smpi/shared-malloc:sometimes"], &["no"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("smpi/shared-malloc"), "{}", stderr(&o));
}

/// A mounted hugetlbfs with at least `pages` free huge pages of 2 MiB, and
/// how many are free.
fn hugetlbfs(pages: usize) -> Option<(String, usize)> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let free: usize = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("HugePages_Free:"))?
        .trim()
        .parse()
        .ok()?;
    let mounts = std::fs::read_to_string("/proc/mounts").ok()?;
    let dir = mounts.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.get(2) == Some(&"hugetlbfs") && f.get(3).is_some_and(|o| o.contains("pagesize=2M")))
            .then(|| f[1].to_string())
    })?;
    (free >= pages).then_some((dir, free))
}

#[test]
fn huge_pages_come_from_a_hugetlbfs_mount() {
    // Not a hugetlbfs: the run stops and says what to do.
    let o = shared_malloc(
        "2",
        &["--cfg=smpi/shared-malloc-hugepage:/tmp"],
        &["hugepage"],
    );
    assert_fails_naming(
        &o,
        &[
            "/tmp is not a mounted hugetlbfs",
            "mount -t hugetlbfs",
            "vm.nr_hugepages",
        ],
    );
    // With one (scripts/hugepages.sh makes it, as .ci/run does), the 8 MiB
    // of every rank are one 2 MiB huge page mapped 4 times per rank.
    match hugetlbfs(2) {
        Some((dir, free)) => {
            let cfg = format!("--cfg=smpi/shared-malloc-hugepage:{dir}");
            assert_passes("4", &[&cfg], &["hugepage"]);
            // A block larger than the free huge pages: named, with the fix.
            let mib = (free + 1) * 2;
            let block = format!("--cfg=smpi/shared-malloc-blocksize:{}", mib << 20);
            let o = shared_malloc("1", &[&cfg, &block], &["global", &mib.to_string()]);
            assert_fails_naming(
                &o,
                &[
                    "in huge pages from",
                    "huge pages are free",
                    "vm.nr_hugepages=",
                ],
            );
        }
        None => eprintln!(
            "huge_pages_come_from_a_hugetlbfs_mount: no hugetlbfs with free huge pages \
             (run scripts/hugepages.sh as root): only the error path was checked"
        ),
    }
}
