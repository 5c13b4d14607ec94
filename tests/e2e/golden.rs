//! The golden test: the simulated outputs of the examples, labs and test
//! programs at fixed configurations (tests/golden/cases.txt), compared
//! byte for byte with what was recorded (tests/golden/NAME.out). A
//! refactor keeps them all; a change of the simulation that is meant
//! re-records them (`SMPI_GOLDEN_RECORD=1`) and says so.

use crate::{build, repo, run, stderr, stdout, NO_COMPUTE};

/// One golden case: its name and smpirun arguments (the program as a
/// source path).
struct Case {
    name: String,
    args: Vec<String>,
}

fn cases() -> Vec<Case> {
    let path = repo().join("tests/golden/cases.txt");
    let text = std::fs::read_to_string(&path).expect("read tests/golden/cases.txt");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, args) = l
                .split_once(':')
                .unwrap_or_else(|| panic!("cases.txt: no `name:` in '{l}'"));
            Case {
                name: name.trim().to_string(),
                args: args.split_whitespace().map(str::to_string).collect(),
            }
        })
        .collect()
}

/// What a run shows that the simulation decides: the exit code, stdout,
/// and stderr without the wall time of smpirun's final line.
fn observed(o: &std::process::Output) -> String {
    let err: Vec<String> = stderr(o)
        .lines()
        .map(|l| match (l.find(", wall time "), l.rfind(" s, ")) {
            (Some(start), Some(end)) if l.starts_with("smpirun: simulated time") && end > start => {
                format!("{}{}", &l[..start], &l[end + 2..])
            }
            _ => l.to_string(),
        })
        .collect();
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}\n",
        o.status
            .code()
            .map_or("signal".to_string(), |c| c.to_string()),
        stdout(o),
        err.join("\n")
    )
}

#[test]
fn golden_outputs_are_unchanged() {
    let record = std::env::var_os("SMPI_GOLDEN_RECORD").is_some();
    let dir = repo().join("tests/golden");
    let mut differ = Vec::new();
    for case in cases() {
        let mut args: Vec<String> = vec![
            NO_COMPUTE.to_string(),
            "--cfg=smpi/host-speed:1e9".to_string(),
        ];
        for a in &case.args {
            if a.ends_with(".c") || a.ends_with(".cpp") {
                args.push(build(a).to_string_lossy().into_owned());
            } else {
                args.push(a.clone());
            }
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let got = observed(&run(&args));
        let file = dir.join(format!("{}.out", case.name));
        if record {
            std::fs::write(&file, &got).expect("write a golden file");
            continue;
        }
        let want = std::fs::read_to_string(&file).unwrap_or_else(|_| {
            panic!("no {}: record it with SMPI_GOLDEN_RECORD=1", file.display())
        });
        if got != want {
            differ.push(format!(
                "== {} (smpirun {})\n-- expected\n{want}-- got\n{got}",
                case.name,
                case.args.join(" ")
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{} golden case(s) changed:\n{}",
        differ.len(),
        differ.join("\n")
    );
}
