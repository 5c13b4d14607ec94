//! Programs written for SimGrid's headers: every header path SMPI programs
//! include comes from smpicc's include directory, never from an installed
//! SimGrid's, and brings what SimGrid's brings.

use super::*;

/// The header paths of SimGrid's that smpicc provides.
const SIMGRID_PATHS: &[&str] = &["mpi.h", "smpi/mpi.h", "smpi/smpi.h"];

/// The headers a compilation of `source` reads (`-M`, system ones too).
fn headers_read(dir: &Path, source: &str) -> Vec<String> {
    let o = smpicc()
        .current_dir(dir)
        .args(["-M", source])
        .output()
        .expect("run smpicc -M");
    assert!(o.status.success(), "smpicc -M {source}: {}", stderr(&o));
    stdout(&o)
        .split_whitespace()
        .filter(|w| w.ends_with(".h") || w.ends_with(".hpp"))
        .map(String::from)
        .collect()
}

#[test]
fn simgrids_header_paths_are_ours_even_with_simgrid_installed() {
    let dir = scratch().join("simgrid_paths");
    std::fs::create_dir_all(&dir).unwrap();
    let includes: String = SIMGRID_PATHS
        .iter()
        .map(|p| format!("#include <{p}>\n"))
        .collect();
    for (name, lang) in [("paths.c", "C"), ("paths.cpp", "C++")] {
        std::fs::write(
            dir.join(name),
            format!("{includes}int main(void) {{ return 0; }}\n"),
        )
        .unwrap();
        let read = headers_read(&dir, name);
        for path in SIMGRID_PATHS {
            let ours = scratch().join("cache");
            assert!(
                read.iter()
                    .any(|h| Path::new(h).starts_with(&ours)
                        && h.ends_with(&format!("/include/{path}"))),
                "{lang}: <{path}> is not smpicc's: {read:?}"
            );
        }
        // Whether or not SimGrid is installed in /usr/include, nothing of it
        // is read: what compiles here compiles on a machine without it.
        for h in &read {
            for dir in ["smpi", "simgrid", "xbt"] {
                assert!(
                    !h.starts_with(&format!("/usr/include/{dir}/"))
                        && !h.starts_with(&format!("/usr/local/include/{dir}/")),
                    "{lang}: {h} is SimGrid's"
                );
            }
        }
    }
}

#[test]
fn smpi_mpi_h_brings_simgrids_extensions_and_system_headers() {
    let app = build("tests/c/simgrid_mpi_h.c");
    let o = run(&[
        "-np",
        "3",
        NO_COMPUTE,
        "--cfg=smpi/host-speed:1Gf",
        app.to_str().unwrap(),
    ]);
    assert!(
        o.status.success() && stdout(&o).contains(" No Errors"),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
    // 0.76296 s, 0.5 s and the 1 s of SMPI_SAMPLE_FLOPS (and barriers).
    assert!(
        (simulated_time(&o) - 2.26296).abs() < 1e-3,
        "{}",
        stderr(&o)
    );
}
