//! The sweep spec: a TOML file naming the program, how to run it, the axes
//! whose cross product makes the points, and what to capture from each
//! run's output.
//!
//! Every string of the top level may hold `{axis}` placeholders, replaced
//! by the point's value of that axis. Errors name the file, the line and
//! the key.

use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Deserialize;
use toml::Spanned;

/// A spec that cannot be used: where and why.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("{file}: {source}")]
    Toml {
        file: String,
        source: Box<toml::de::Error>,
    },
    #[error("{file}:{line}: {key}: {message}")]
    At {
        file: String,
        line: usize,
        key: String,
        message: String,
    },
    #[error("{file}: {0}", file = .1)]
    Io(std::io::Error, String),
}

/// A value of an axis or a scalar setting, as TOML writes it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Scalar {
    Text(String),
    Integer(i64),
    Float(f64),
    Bool(bool),
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Text(s) => f.write_str(s),
            Scalar::Integer(i) => write!(f, "{i}"),
            Scalar::Float(x) => write!(f, "{x}"),
            Scalar::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// The `[slurm]` table: where the job array's tasks run.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlurmSettings {
    pub partition: Option<String>,
    /// Slurm's `--time` of each task (`10:00`, `1-00:00:00`...).
    pub time: Option<String>,
    /// Slurm's `--mem` of each task (`4G`...).
    pub mem: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    program: Spanned<String>,
    #[serde(default)]
    args: Vec<Spanned<Scalar>>,
    np: Spanned<Scalar>,
    platform: Option<Spanned<String>>,
    hostfile: Option<Spanned<String>>,
    #[serde(default)]
    cfg: Vec<Spanned<String>>,
    #[serde(default)]
    repeat: Option<Spanned<i64>>,
    /// Seconds, or a number with s, m or h.
    timeout: Option<Spanned<Scalar>>,
    /// The smpirun to use (default: the one beside smpi-sweep, else
    /// `$SMPIRUN`, else `smpirun` on the PATH).
    smpirun: Option<Spanned<String>>,
    /// Files copied into each point's directory before it runs (the
    /// input files a program reads from its working directory).
    #[serde(default)]
    inputs: Vec<Spanned<String>>,
    /// The file, in the point's directory, that the captures read
    /// (default: the program's standard output).
    output: Option<Spanned<String>>,
    axes: Option<Spanned<toml::Table>>,
    capture: Option<Spanned<toml::Table>>,
    #[serde(default)]
    slurm: SlurmSettings,
}

/// One string of the spec that may hold placeholders, with where it was.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pub text: String,
    pub key: String,
    pub line: usize,
}

/// A checked spec.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The spec file, and its directory (relative paths are from there).
    pub file: PathBuf,
    pub program: Template,
    pub args: Vec<Template>,
    pub np: Template,
    pub platform: Option<Template>,
    pub hostfile: Option<Template>,
    pub cfg: Vec<Template>,
    pub repeat: usize,
    pub timeout: Option<f64>,
    pub smpirun: Option<PathBuf>,
    pub inputs: Vec<Template>,
    pub output: Option<Template>,
    /// The axes in the spec's order, each with its values.
    pub axes: Vec<(String, Vec<String>)>,
    /// Named regular expressions applied to each run's output.
    pub captures: Vec<(String, Regex)>,
    pub slurm: SlurmSettings,
    /// The spec's text, whose hash tells a changed spec.
    pub text: String,
}

/// One run: a value of every axis, and which repetition it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Its place in the sweep, from 0 (the last axis varies fastest, then
    /// the repetition).
    pub index: usize,
    pub values: Vec<String>,
    pub rep: usize,
}

/// The line of byte offset `at` in `text`, from 1.
fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// The placeholder of the spec's own directory (absolute), for paths in
/// `cfg` values, which smpirun reads from the point's directory.
pub const SPEC_DIR: &str = "spec_dir";

fn placeholder() -> Regex {
    Regex::new(r"\{([A-Za-z_][A-Za-z0-9_]*)\}").expect("a valid pattern")
}

/// Reads seconds: a number, or a number with s, m or h.
fn seconds(v: &Scalar) -> Option<f64> {
    let (number, factor) = match v {
        Scalar::Integer(i) => (*i as f64, 1.0),
        Scalar::Float(x) => (*x, 1.0),
        Scalar::Text(t) => {
            let t = t.trim();
            let (num, unit) = t.split_at(t.find(|c: char| c.is_ascii_alphabetic())?);
            let factor = match unit {
                "s" => 1.0,
                "m" | "min" => 60.0,
                "h" => 3600.0,
                _ => return None,
            };
            (num.trim().parse().ok()?, factor)
        }
        Scalar::Bool(_) => return None,
    };
    (number > 0.0 && number.is_finite()).then_some(number * factor)
}

impl Spec {
    /// Reads and checks the spec in `path`.
    pub fn load(path: &Path) -> Result<Spec, SpecError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| SpecError::Io(e, path.display().to_string()))?;
        Spec::parse(&text, path)
    }

    /// Checks the spec `text` read from `file`.
    pub fn parse(text: &str, file: &Path) -> Result<Spec, SpecError> {
        let name = file.display().to_string();
        let raw: RawSpec = toml::from_str(text).map_err(|e| SpecError::Toml {
            file: name.clone(),
            source: Box::new(e),
        })?;
        let at = |span: std::ops::Range<usize>, key: &str, message: String| SpecError::At {
            file: name.clone(),
            line: line_of(text, span.start),
            key: key.to_string(),
            message,
        };
        let template = |s: &Spanned<String>, key: &str| Template {
            text: s.get_ref().clone(),
            key: key.to_string(),
            line: line_of(text, s.span().start),
        };
        let scalar = |s: &Spanned<Scalar>, key: &str| Template {
            text: s.get_ref().to_string(),
            key: key.to_string(),
            line: line_of(text, s.span().start),
        };
        let empty = Spanned::new(0..0, toml::Table::new());
        let raw_axes = raw.axes.as_ref().unwrap_or(&empty);
        let raw_capture = raw.capture.as_ref().unwrap_or(&empty);
        let mut axes = Vec::new();
        for (axis, values) in raw_axes.get_ref() {
            if axis == SPEC_DIR {
                return Err(at(
                    raw_axes.span(),
                    &format!("axes.{axis}"),
                    "{spec_dir} is the spec's directory: give the axis another name".to_string(),
                ));
            }
            let list = values.as_array().ok_or_else(|| {
                at(
                    raw_axes.span(),
                    &format!("axes.{axis}"),
                    "an axis is a list of values, such as [64, 256]".to_string(),
                )
            })?;
            if list.is_empty() {
                return Err(at(
                    raw_axes.span(),
                    &format!("axes.{axis}"),
                    "an axis needs at least one value".to_string(),
                ));
            }
            let mut strings = Vec::with_capacity(list.len());
            for v in list {
                let s = match v {
                    toml::Value::String(s) => s.clone(),
                    toml::Value::Integer(i) => i.to_string(),
                    toml::Value::Float(x) => x.to_string(),
                    toml::Value::Boolean(b) => b.to_string(),
                    other => {
                        return Err(at(
                            raw_axes.span(),
                            &format!("axes.{axis}"),
                            format!("values are strings or numbers, not {}", other.type_str()),
                        ))
                    }
                };
                strings.push(s);
            }
            axes.push((axis.clone(), strings));
        }
        let mut captures = Vec::new();
        for (name, pattern) in raw_capture.get_ref() {
            let key = format!("capture.{name}");
            let p = pattern.as_str().ok_or_else(|| {
                at(
                    raw_capture.span(),
                    &key,
                    "a capture is a regular expression in a string".to_string(),
                )
            })?;
            let re = Regex::new(p).map_err(|e| at(raw_capture.span(), &key, e.to_string()))?;
            if re.captures_len() < 2 {
                return Err(at(
                    raw_capture.span(),
                    &key,
                    "the expression needs a group, (...): its text becomes the column".to_string(),
                ));
            }
            captures.push((name.clone(), re));
        }
        let repeat = match &raw.repeat {
            Some(r) => usize::try_from(*r.get_ref())
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| at(r.span(), "repeat", "expected a count >= 1".to_string()))?,
            None => 1,
        };
        let timeout = match &raw.timeout {
            Some(t) => Some(seconds(t.get_ref()).ok_or_else(|| {
                at(
                    t.span(),
                    "timeout",
                    format!(
                        "'{}' is not a duration (seconds, or a number with s, m or h)",
                        t.get_ref()
                    ),
                )
            })?),
            None => None,
        };
        let dir = file.parent().unwrap_or(Path::new("."));
        let spec = Spec {
            file: file.to_path_buf(),
            program: template(&raw.program, "program"),
            args: raw
                .args
                .iter()
                .enumerate()
                .map(|(i, a)| scalar(a, &format!("args[{i}]")))
                .collect(),
            np: scalar(&raw.np, "np"),
            platform: raw.platform.as_ref().map(|p| template(p, "platform")),
            hostfile: raw.hostfile.as_ref().map(|h| template(h, "hostfile")),
            cfg: raw
                .cfg
                .iter()
                .enumerate()
                .map(|(i, c)| template(c, &format!("cfg[{i}]")))
                .collect(),
            repeat,
            timeout,
            smpirun: raw.smpirun.as_ref().map(|s| dir.join(s.get_ref())),
            inputs: raw
                .inputs
                .iter()
                .enumerate()
                .map(|(i, f)| template(f, &format!("inputs[{i}]")))
                .collect(),
            output: raw.output.as_ref().map(|o| template(o, "output")),
            axes,
            captures,
            slurm: raw.slurm,
            text: text.to_string(),
        };
        spec.check_placeholders()?;
        for c in &spec.cfg {
            if !c.text.contains(':') {
                return Err(spec.error(c, "expected name:value, as --cfg takes it"));
            }
        }
        Ok(spec)
    }

    fn error(&self, t: &Template, message: &str) -> SpecError {
        SpecError::At {
            file: self.file.display().to_string(),
            line: t.line,
            key: t.key.clone(),
            message: message.to_string(),
        }
    }

    /// Every string of the top level, with its key.
    pub fn templates(&self) -> impl Iterator<Item = &Template> {
        std::iter::once(&self.program)
            .chain(&self.args)
            .chain(std::iter::once(&self.np))
            .chain(&self.platform)
            .chain(&self.hostfile)
            .chain(&self.cfg)
            .chain(&self.inputs)
            .chain(&self.output)
    }

    fn check_placeholders(&self) -> Result<(), SpecError> {
        let re = placeholder();
        for t in self.templates() {
            for c in re.captures_iter(&t.text) {
                let name = &c[1];
                if name != SPEC_DIR && !self.axes.iter().any(|(a, _)| a == name) {
                    let known: Vec<&str> = self.axes.iter().map(|(a, _)| a.as_str()).collect();
                    return Err(self.error(
                        t,
                        &format!(
                            "{{{name}}} names no axis (the axes are: {})",
                            if known.is_empty() {
                                "none".to_string()
                            } else {
                                known.join(", ")
                            }
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The points: the cross product of the axes, each `repeat` times.
    pub fn points(&self) -> Vec<Point> {
        let mut points = Vec::new();
        let sizes: Vec<usize> = self.axes.iter().map(|(_, v)| v.len()).collect();
        let total: usize = sizes.iter().product();
        for combo in 0..total {
            let mut rest = combo;
            let mut values = vec![String::new(); sizes.len()];
            for (k, &n) in sizes.iter().enumerate().rev() {
                values[k] = self.axes[k].1[rest % n].clone();
                rest /= n;
            }
            for rep in 0..self.repeat {
                points.push(Point {
                    index: points.len(),
                    values: values.clone(),
                    rep,
                });
            }
        }
        points
    }

    /// `t` with the point's values in place of its placeholders.
    pub fn fill(&self, t: &Template, point: &Point) -> String {
        placeholder()
            .replace_all(&t.text, |c: &regex::Captures| {
                if &c[1] == SPEC_DIR {
                    let dir = std::path::absolute(self.dir()).unwrap_or(self.dir().to_path_buf());
                    return dir.display().to_string();
                }
                let k = self
                    .axes
                    .iter()
                    .position(|(a, _)| a == &c[1])
                    .expect("placeholders were checked");
                point.values[k].clone()
            })
            .into_owned()
    }

    /// The spec's directory: relative paths start there.
    pub fn dir(&self) -> &Path {
        self.file.parent().unwrap_or(Path::new("."))
    }

    /// A stable hash (FNV-1a) of what the spec asks for, to tell a
    /// changed spec (comments and layout do not count).
    pub fn hash(&self) -> String {
        use std::hash::Hasher;
        let mut h = fnv::FnvHasher::default();
        let mut put = |s: &str| {
            h.write(s.as_bytes());
            h.write(&[0]);
        };
        for t in self.templates() {
            put(&t.key);
            put(&t.text);
        }
        put(&self.repeat.to_string());
        put(&format!("{:?}", self.timeout));
        put(&format!("{:?}", self.smpirun));
        for (axis, values) in &self.axes {
            put(axis);
            values.iter().for_each(|v| put(v));
        }
        for (name, re) in &self.captures {
            put(name);
            put(re.as_str());
        }
        format!("{:016x}", h.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Spec, SpecError> {
        Spec::parse(text, Path::new("sweep.toml"))
    }

    const EXAMPLE: &str = r#"
program = "./allreduce"
args = ["{size}", 3]
np = "{np}"
platform = "fat-tree:2;{k},{k};1,{k};1,1:bw={bw}"
cfg = ["smpi/simulate-computation:no"]
repeat = 2
timeout = "2m"

[axes]
np = [64, 256]
bw = ["10Gbps", "100Gbps"]
k = [8, 16]
size = [1024]

[capture]
time = "took ([0-9.e+-]+) s"
"#;

    #[test]
    fn the_example_expands_to_the_cross_product_in_axis_order() {
        let s = parse(EXAMPLE).unwrap();
        let names: Vec<&str> = s.axes.iter().map(|(a, _)| a.as_str()).collect();
        assert_eq!(names, ["np", "bw", "k", "size"]);
        assert_eq!((s.repeat, s.timeout), (2, Some(120.0)));
        let points = s.points();
        assert_eq!(points.len(), 16);
        assert_eq!(points[0].values, ["64", "10Gbps", "8", "1024"]);
        assert_eq!(
            (points[1].values.clone(), points[1].rep),
            (points[0].values.clone(), 1)
        );
        assert_eq!(points[2].values, ["64", "10Gbps", "16", "1024"]);
        assert_eq!(points[15].values, ["256", "100Gbps", "16", "1024"]);
        let p = &points[2];
        assert_eq!(
            s.fill(s.platform.as_ref().unwrap(), p),
            "fat-tree:2;16,16;1,16;1,1:bw=10Gbps"
        );
        assert_eq!(s.fill(&s.args[0], p), "1024");
        assert_eq!(s.fill(&s.args[1], p), "3");
        assert_eq!(s.captures[0].0, "time");
    }

    #[test]
    fn inputs_output_and_the_spec_directory() {
        let s = Spec::parse(
            "program = \"p\"\nnp = 2\ninputs = [\"in-{n}.txt\"]\noutput = \"out.txt\"\n\
             cfg = [\"smpi/blas-model-file:{spec_dir}/m.toml\"]\n[axes]\nn = [1]\n",
            Path::new("/some/where/s.toml"),
        )
        .unwrap();
        let p = &s.points()[0];
        assert_eq!(s.fill(&s.inputs[0], p), "in-1.txt");
        assert_eq!(s.output.as_ref().unwrap().text, "out.txt");
        assert_eq!(
            s.fill(&s.cfg[0], p),
            "smpi/blas-model-file:/some/where/m.toml"
        );
    }

    #[test]
    fn errors_name_the_line_and_the_key() {
        let e = parse("program = \"a\"\nnp = 4\nplatform = \"x{bw}\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "sweep.toml:3: platform: {bw} names no axis (the axes are: none)"
        );
        let e = parse("program = \"a\"\nnp = \"{n}\"\n[axes]\nn = []\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("axes.n: an axis needs at least one value"),
            "{e}"
        );
        let e = parse("program = \"a\"\nnp = 4\ntimeout = \"soon\"\n").unwrap_err();
        assert!(
            e.to_string().starts_with("sweep.toml:3: timeout: 'soon'"),
            "{e}"
        );
        let e = parse("program = \"a\"\nnp = 4\ncfg = [\"novalue\"]\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("sweep.toml:3: cfg[0]: expected name:value"),
            "{e}"
        );
        let e = parse("program = \"a\"\nnp = 4\nbogus = 1\n").unwrap_err();
        assert!(e.to_string().contains("unknown field `bogus`"), "{e}");
        assert!(e.to_string().contains("line 3"), "{e}");
        let e = parse("program = \"a\"\nnp = 4\n[capture]\nt = \"no group\"\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("capture.t: the expression needs a group"),
            "{e}"
        );
    }

    #[test]
    fn the_hash_follows_what_the_spec_asks_for() {
        let a = parse(EXAMPLE).unwrap();
        let b = parse(&EXAMPLE.replace("repeat = 2", "repeat = 3")).unwrap();
        let c = parse(&format!("# a comment\n{EXAMPLE}")).unwrap();
        assert_eq!(a.hash(), c.hash());
        assert_ne!(a.hash(), b.hash());
    }
}
