//! SimGrid's time-independent (TI) traces: one file per rank of the
//! actions it took (`<rank> <action> <args>`), and an index file that
//! lists them in rank order, as `smpirun -replay` reads them.
//!
//! Lines are SimGrid 3.32's, byte for byte (its `TIData::print`); files are
//! `<index>_files/rank-<rank>.txt` (SimGrid's names carry the wall-clock
//! date and the rank plus one: ours are the same at every run). Writing
//! streams: lines wait in per-rank buffers until all buffers together
//! hold [`BUDGET`] bytes, then every buffer is appended to its file, so
//! memory stays bounded and no more than one file is open at a time,
//! whatever the number of ranks.

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::{Args, Coll, Traced, Tracer, VarColl};
use crate::engine::observe::Observer;

/// Bytes the per-rank buffers may hold together before they are written.
pub const BUDGET: usize = 8 << 20;

/// Writes a TI trace.
pub struct TiWriter {
    index: PathBuf,
    dir: PathBuf,
    /// `compute` lines for computations (`tracing/smpi/computing`).
    computing: bool,
    /// `sleep` lines for the program's sleeps (`tracing/smpi/sleeping`).
    sleeping: bool,
    /// Each rank's lines not yet written.
    pending: Vec<String>,
    /// Each rank's file exists (it called MPI_Init).
    started: Vec<bool>,
    buffered: usize,
    /// The first error met, reported at the end.
    error: Option<io::Error>,
    /// Each rank's current call location, written before its lines
    /// (`smpi/trace-call-location`; empty when off).
    locations: Vec<Option<(Rc<str>, u32)>>,
}

impl TiWriter {
    /// A writer of `ranks` ranks' traces, indexed in `index`.
    pub fn new(index: &Path, ranks: usize, settings: &super::Settings) -> io::Result<Self> {
        let mut dir = index.as_os_str().to_owned();
        dir.push("_files");
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir)?;
        Ok(Self {
            index: index.to_path_buf(),
            dir,
            computing: settings.computing,
            sleeping: settings.sleeping,
            locations: vec![None; if settings.call_location { ranks } else { 0 }],
            pending: vec![String::new(); ranks],
            started: vec![false; ranks],
            buffered: 0,
            error: None,
        })
    }

    fn file_of(&self, rank: usize) -> PathBuf {
        self.dir.join(format!("rank-{rank}.txt"))
    }

    /// Appends `rank`'s line for `action` and `args`.
    fn line(&mut self, rank: usize, action: &str, args: &Args) {
        let Some(buf) = self.pending.get_mut(rank) else {
            return;
        };
        let before = buf.len();
        if let Some(Some((file, line))) = self.locations.get(rank) {
            // SimGrid's line before each action.
            let _ = writeln!(buf, "{rank} location {file} {line}");
        }
        write_line(buf, rank, action, args);
        self.buffered += buf.len() - before;
        if self.buffered >= BUDGET {
            self.flush();
        }
    }

    /// Appends every buffer to its file.
    fn flush(&mut self) {
        for rank in 0..self.pending.len() {
            if self.pending[rank].is_empty() {
                continue;
            }
            let text = std::mem::take(&mut self.pending[rank]);
            if let Err(e) = append(&self.file_of(rank), text.as_bytes()) {
                self.error.get_or_insert(e);
            }
        }
        self.buffered = 0;
    }
}

fn append(path: &Path, bytes: &[u8]) -> io::Result<()> {
    OpenOptions::new().append(true).open(path)?.write_all(bytes)
}

impl Observer for TiWriter {
    fn compute_start(&mut self, _at: f64, rank: usize, flops: f64) {
        if self.computing && self.started.get(rank) == Some(&true) {
            self.line(rank, "compute", &Args::Amount(flops));
        }
    }
}

impl Tracer for TiWriter {
    fn call_enter(&mut self, _at: f64, rank: usize, _name: &'static str, traced: Option<&Traced>) {
        let Some(t) = traced else { return };
        if t.action == "init" {
            if let Some(s) = self.started.get_mut(rank) {
                // A new file (emptied if an earlier run left one).
                *s = true;
                if let Err(e) = File::create(self.file_of(rank)) {
                    self.error.get_or_insert(e);
                }
            }
        }
        if self.started.get(rank) == Some(&true) {
            self.line(rank, t.action, &t.args);
        }
    }

    fn call_exit(&mut self, _at: f64, _rank: usize, _name: &'static str, _code: i32) {}

    fn sleep_start(&mut self, _at: f64, rank: usize, seconds: f64) {
        if self.sleeping && self.started.get(rank) == Some(&true) {
            self.line(rank, "sleep", &Args::Amount(seconds));
        }
    }

    fn call_location(&mut self, rank: usize, file: &Rc<str>, line: u32) {
        if let Some(l) = self.locations.get_mut(rank) {
            *l = Some((Rc::clone(file), line));
        }
    }

    fn finish(&mut self, _end: f64) -> io::Result<()> {
        self.flush();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let mut index = String::new();
        for rank in (0..self.started.len()).filter(|&r| self.started[r]) {
            index.push_str(&self.file_of(rank).to_string_lossy());
            index.push('\n');
        }
        std::fs::write(&self.index, index)
    }
}

/// Appends `rank`'s TI line for `action` to `out`, as SimGrid writes it.
pub fn write_line(out: &mut String, rank: usize, action: &str, args: &Args) {
    let _ = write!(out, "{rank} {action}");
    match args {
        Args::None => {}
        Args::Amount(a) => {
            let _ = write!(out, " {}", g6(*a));
        }
        Args::P2p {
            peer,
            tag,
            count,
            dtype,
        } => {
            let _ = write!(out, " {peer} {tag} {count} {dtype}");
        }
        Args::SendRecv {
            send_count,
            dst,
            recv_count,
            src,
            send_type,
            recv_type,
        } => {
            let _ = write!(
                out,
                " {send_count} {dst} {recv_count} {src} {send_type} {recv_type}"
            );
        }
        Args::Wait { src, dst, tag } => {
            let _ = write!(out, " {src} {dst} {tag}");
        }
        Args::Coll(c) => write_coll(out, c),
        Args::VarColl(v) => write_var_coll(out, v),
    }
    out.push('\n');
}

/// A datatype field: its number, or nothing.
fn type_field(t: Option<i32>) -> String {
    t.map_or(String::new(), |t| t.to_string())
}

/// The end of a collective's line: the root when SimGrid writes it
/// (`root > 0 || (root == 0 && send_type not empty)`), then both types.
fn write_root_and_types(out: &mut String, root: i32, send: Option<i32>, recv: Option<i32>) {
    if root > 0 || (root == 0 && send.is_some()) {
        let _ = write!(out, "{root} ");
    }
    let _ = write!(out, "{} {}", type_field(send), type_field(recv));
}

fn write_coll(out: &mut String, c: &Coll) {
    let _ = write!(out, " {} ", c.send_size);
    if c.recv_size > 0 {
        let _ = write!(out, "{} ", c.recv_size);
    }
    if c.amount >= 0.0 {
        let _ = write!(out, "{} ", g6(c.amount));
    }
    write_root_and_types(out, c.root, c.send_type, c.recv_type);
}

fn write_var_coll(out: &mut String, v: &VarColl) {
    out.push(' ');
    if v.send_size > -1 {
        let _ = write!(out, "{} ", v.send_size);
    }
    for c in v.send_counts.iter().flatten() {
        let _ = write!(out, "{c} ");
    }
    if v.recv_size > -1 {
        let _ = write!(out, "{} ", v.recv_size);
    }
    for c in v.recv_counts.iter().flatten() {
        let _ = write!(out, "{c} ");
    }
    write_root_and_types(out, v.root, v.send_type, v.recv_type);
}

/// `x` as C++ streams write a double by default (`%g`: 6 significant
/// digits, trailing zeros dropped, exponent form below 1e-4 or from 1e6).
pub fn g6(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    // The exponent after rounding to 6 significant digits.
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let m = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else {
        let decimals = usize::try_from(5 - exp).unwrap_or(0);
        trim_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_are_written_as_cxx_streams_do() {
        for (x, want) in [
            (796.277, "796.277"),
            (100000.0, "100000"),
            (1234567.0, "1.23457e+06"),
            (0.053, "0.053"),
            (0.001, "0.001"),
            (0.00001234, "1.234e-05"),
            (2.0, "2"),
            (999999.5, "1e+06"),
            (-3.5, "-3.5"),
            (1e9, "1e+09"),
        ] {
            assert_eq!(g6(x), want, "{x}");
        }
    }

    fn line(args: Args, action: &str) -> String {
        let mut s = String::new();
        write_line(&mut s, 0, action, &args);
        s
    }

    #[test]
    fn lines_are_simgrids_with_their_trailing_spaces() {
        let coll = |root, amount, send_size, recv_size, st, rt| {
            Args::Coll(Coll {
                root,
                amount,
                send_size,
                recv_size,
                send_type: st,
                recv_type: rt,
            })
        };
        assert_eq!(
            line(coll(2, -1.0, 100, 0, Some(1), None), "bcast"),
            "0 bcast 100 2 1 \n"
        );
        assert_eq!(
            line(coll(0, -1.0, 100, 0, Some(0), None), "bcast"),
            "0 bcast 100 0 0 \n"
        );
        assert_eq!(
            line(coll(3, 0.0, 50, 0, Some(0), None), "reduce"),
            "0 reduce 50 0 3 0 \n"
        );
        assert_eq!(
            line(coll(-1, 0.0, 60, 0, Some(5), None), "allreduce"),
            "0 allreduce 60 0 5 \n"
        );
        assert_eq!(
            line(coll(1, -1.0, 10, 10, Some(1), Some(1)), "gather"),
            "0 gather 10 10 1 1 1\n"
        );
        let var = Args::VarColl(VarColl {
            root: -1,
            send_size: 10,
            send_counts: Some(vec![1, 2, 3, 4]),
            recv_size: 4,
            recv_counts: Some(vec![1, 1, 1, 1]),
            send_type: Some(1),
            recv_type: Some(1),
        });
        assert_eq!(
            line(var, "alltoallv"),
            "0 alltoallv 10 1 2 3 4 4 1 1 1 1 1 1\n"
        );
        let gatherv = Args::VarColl(VarColl {
            root: 0,
            send_size: 1,
            send_counts: None,
            recv_size: -1,
            recv_counts: Some(vec![1, 2, 3, 4]),
            send_type: Some(1),
            recv_type: Some(1),
        });
        assert_eq!(line(gatherv, "gatherv"), "0 gatherv 1 1 2 3 4 0 1 1\n");
        assert_eq!(
            line(
                Args::P2p {
                    peer: 1,
                    tag: 42,
                    count: 1,
                    dtype: 1
                },
                "send"
            ),
            "0 send 1 42 1 1\n"
        );
        assert_eq!(
            line(
                Args::SendRecv {
                    send_count: 4,
                    dst: 1,
                    recv_count: 4,
                    src: 3,
                    send_type: 0,
                    recv_type: 0
                },
                "sendRecv"
            ),
            "0 sendRecv 4 1 4 3 0 0\n"
        );
        assert_eq!(line(Args::Amount(2.0), "waitall"), "0 waitall 2\n");
        assert_eq!(
            line(
                Args::Wait {
                    src: -333,
                    dst: 1,
                    tag: 8
                },
                "wait"
            ),
            "0 wait -333 1 8\n"
        );
        assert_eq!(line(Args::None, "init"), "0 init\n");
    }
}
