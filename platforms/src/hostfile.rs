//! Hostfiles: which host each MPI rank runs on.
//!
//! The format is SMPI's: one host name per line, optionally followed by
//! `:N` to give that host N slots (N consecutive ranks); blank lines and
//! everything from `#` to the end of a line are ignored. With the list of
//! slots written out in order, rank i goes to slot i mod (number of slots).

use crate::error::{PlatformError, Problem};

/// One line of a hostfile: a host name and its number of slots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostfileEntry {
    /// The host, as named in the platform.
    pub name: String,
    /// How many consecutive ranks it takes (1 unless `host:N`).
    pub slots: u32,
}

/// Reads a hostfile; `file_name` names it in errors, which give its line.
/// A hostfile without any host is an error.
pub fn parse_hostfile(text: &str, file_name: &str) -> Result<Vec<HostfileEntry>, PlatformError> {
    let mut entries = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let entry = parse_line(line).map_err(|reason| PlatformError::Invalid {
            file: file_name.to_string(),
            line: u32::try_from(index + 1).unwrap_or(u32::MAX),
            problem: Box::new(Problem::HostfileLine {
                text: line.to_string(),
                reason,
            }),
        })?;
        entries.push(entry);
    }
    if entries.is_empty() {
        return Err(PlatformError::EmptyHostfile {
            file: file_name.to_string(),
        });
    }
    Ok(entries)
}

fn parse_line(line: &str) -> Result<HostfileEntry, &'static str> {
    let (name, slots) = match line.split_once(':') {
        Some((name, slots)) => (name.trim(), Some(slots.trim())),
        None => (line, None),
    };
    if name.is_empty() {
        return Err("expected a host name, optionally followed by ':N' for N slots");
    }
    if name.chars().any(char::is_whitespace) {
        return Err("expected one host name per line (optionally 'host:N'), without spaces");
    }
    let slots = match slots {
        None => 1,
        Some(text) => match text.parse::<u32>() {
            Ok(n) if n >= 1 && text.bytes().all(|c| c.is_ascii_digit()) => n,
            _ => return Err("the slot count after ':' must be a whole number >= 1"),
        },
    };
    Ok(HostfileEntry {
        name: name.to_string(),
        slots,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, slots: u32) -> HostfileEntry {
        HostfileEntry {
            name: name.to_string(),
            slots,
        }
    }

    #[test]
    fn reads_names_slots_comments_and_blank_lines() {
        let text = "# my machines\nnode-0\n\n  node-1:4  # four ranks\nnode-2 : 2\r\nnode-0\n";
        assert_eq!(
            parse_hostfile(text, "hosts.txt").unwrap(),
            vec![
                entry("node-0", 1),
                entry("node-1", 4),
                entry("node-2", 2),
                entry("node-0", 1)
            ]
        );
    }

    #[test]
    fn errors_name_file_line_and_problem() {
        for (text, line, needle) in [
            ("a\n:3\n", 2, "expected a host name"),
            ("a\nb c\n", 2, "without spaces"),
            ("a:0\n", 1, "whole number >= 1"),
            ("\n\na:x\n", 3, "'a:x': the slot count"),
            ("a:1:2\n", 1, "slot count"),
            ("a:-1\n", 1, "slot count"),
            ("a:+1\n", 1, "slot count"),
            ("a:99999999999\n", 1, "slot count"),
        ] {
            let e = parse_hostfile(text, "h.txt").unwrap_err();
            assert_eq!(e.line(), Some(line), "{text:?}");
            let msg = e.to_string();
            assert!(msg.starts_with(&format!("h.txt:{line}: ")), "{msg}");
            assert!(msg.contains(needle), "{msg}");
        }
    }

    #[test]
    fn empty_hostfile_is_an_error() {
        for text in ["", "\n# nothing\n   \n"] {
            let e = parse_hostfile(text, "h.txt").unwrap_err();
            assert_eq!(e.to_string(), "h.txt: the hostfile lists no host");
        }
    }
}
