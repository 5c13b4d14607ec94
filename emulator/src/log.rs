//! Logs in SimGrid's manner: its `--log=` settings, its category tree, its
//! layouts and appenders.
//!
//! Three kinds of categories share one tree ([`Categories`]):
//! - smpirun's own (`engine`, `network`, `mpi`, `privatize`, `config`) are
//!   `tracing` targets: log with `tracing::info!(target: log::CONFIG, ...)`.
//!   Without a `--log` threshold for one of them (or root), no subscriber is
//!   installed at all, so such a call costs one check of a disabled call
//!   site: they are silent by default.
//! - SimGrid's categories that smpirun's SimGrid-compatible lines belong to
//!   ([`SimGrid`]: `smpi_config`, `smpi_kernel`, `smpi_mpi`...), printed as
//!   SimGrid prints them: INFO and above by default.
//! - The categories programs declare (`XBT_LOG_NEW_DEFAULT_CATEGORY`),
//!   likewise.
//!
//! A threshold is inherited from the nearest ancestor a setting names, else
//! root's, else INFO. A line is written by the appender of its category if
//! a setting gives it one, then by each ancestor's in turn (root's is
//! stderr) until one whose additivity is off, each in its own layout:
//! SimGrid's default (`[host:rank:(pid) time] [category/LEVEL] message`,
//! `[time] ...` for the maestro) or a `fmt` setting's (`%r %a %h %m`...).

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, MutexGuard};

use tracing::{Event as Event_, Level, Subscriber};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::{Layer, SubscriberExt};

/// The event loop: clock, timers, ready ranks, computations.
pub const ENGINE: &str = "smpi::engine";
/// The network model: flows, factors, routes.
pub const NETWORK: &str = "smpi::network";
/// MPI semantics: matching, protocols, collectives.
pub const MPI: &str = "smpi::mpi";
/// Loading the program and giving ranks their globals.
pub const PRIVATIZE: &str = privatize::LOG;
/// The command line, the options and the platform.
pub const CONFIG: &str = "smpi::config";

/// The root of every category, smpirun's and the program's.
const ROOT: &str = "root";

/// A category of smpirun's that `--log` can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    /// Every category at once (SimGrid's root of the category tree).
    Root,
    Engine,
    Network,
    Mpi,
    Privatize,
    Config,
}

impl Category {
    pub const ALL: [Category; 6] = [
        Category::Root,
        Category::Engine,
        Category::Network,
        Category::Mpi,
        Category::Privatize,
        Category::Config,
    ];

    /// The name `--log` and the log lines use.
    pub fn name(self) -> &'static str {
        match self {
            Category::Root => ROOT,
            Category::Engine => "engine",
            Category::Network => "network",
            Category::Mpi => "mpi",
            Category::Privatize => "privatize",
            Category::Config => "config",
        }
    }

    /// The `tracing` target of the category (none for root, which stands
    /// for every target).
    fn target(self) -> Option<&'static str> {
        match self {
            Category::Root => None,
            Category::Engine => Some(ENGINE),
            Category::Network => Some(NETWORK),
            Category::Mpi => Some(MPI),
            Category::Privatize => Some(PRIVATIZE),
            Category::Config => Some(CONFIG),
        }
    }

    fn from_name(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// SimGrid's log priorities, lowest first, with the values of its
/// `e_xbt_log_priority_t` (which programs pass).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Priority {
    Trace = 1,
    Debug = 2,
    Verbose = 3,
    Info = 4,
    Warning = 5,
    Error = 6,
    Critical = 7,
}

impl Priority {
    const ALL: [Priority; 7] = [
        Priority::Trace,
        Priority::Debug,
        Priority::Verbose,
        Priority::Info,
        Priority::Warning,
        Priority::Error,
        Priority::Critical,
    ];

    /// The priority of a C value, if it is one.
    pub fn from_c(value: i32) -> Option<Priority> {
        Priority::ALL.into_iter().find(|p| *p as i32 == value)
    }

    /// How log lines name it.
    pub fn label(self) -> &'static str {
        match self {
            Priority::Trace => "TRACE",
            Priority::Debug => "DEBUG",
            Priority::Verbose => "VERBOSE",
            Priority::Info => "INFO",
            Priority::Warning => "WARNING",
            Priority::Error => "ERROR",
            Priority::Critical => "CRITICAL",
        }
    }

    /// The `tracing` level of smpirun's categories: tracing has no verbose
    /// (between debug and info) nor critical (above error).
    fn level(self) -> Level {
        match self {
            Priority::Trace => Level::TRACE,
            Priority::Debug | Priority::Verbose => Level::DEBUG,
            Priority::Info => Level::INFO,
            Priority::Warning => Level::WARN,
            Priority::Error | Priority::Critical => Level::ERROR,
        }
    }

    fn from_name(name: &str) -> Option<Priority> {
        Priority::ALL
            .into_iter()
            .find(|p| p.label().eq_ignore_ascii_case(name))
    }
}

/// A `--log` setting smpirun cannot apply.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("unknown log level '{0}'; valid levels are: {valid}", valid = level_list())]
    UnknownLevel(String),
    #[error(
        "'{setting}': unknown setting '{key}' of a log category (SimGrid's are threshold, \
         additivity, appender and fmt)"
    )]
    UnsupportedKey { setting: String, key: String },
    #[error("'{0}' is not of the form <category>.<setting>:<value> (or no_loc)")]
    Syntax(String),
    #[error(
        "'{0}': unknown appender (SimGrid's are stderr, stdout and file:<path>; rollfile and \
         splitfile are not available here)"
    )]
    UnknownAppender(String),
    #[error("{0}")]
    Layout(String),
    #[error("cannot open the log file {path}")]
    File {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot install the logger: {0}")]
    Install(#[from] tracing::subscriber::SetGlobalDefaultError),
}

fn level_list() -> String {
    Priority::ALL
        .map(|p| p.label().to_ascii_lowercase())
        .join(", ")
}

/// Where a category's lines go (SimGrid's appenders).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Appender {
    Stderr,
    Stdout,
    /// A file, created (or emptied) when the setting is applied.
    File(String),
}

/// One conversion of a `fmt` layout: `%<width>.<precision><letter>`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Conversion {
    letter: char,
    width: usize,
    precision: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Conversion(Conversion),
}

/// A category's line layout: SimGrid's default one, or a `fmt` setting's
/// (its `%` sequences, those of SimGrid's format layout).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
enum Layout {
    #[default]
    Simple,
    Format(Vec<Piece>),
}

/// SimGrid's list of the sequences a `fmt` layout knows.
const KNOWN_SEQUENCES: &str = "known sequences: %m (message), %c (category), %p (priority), \
     %F (file), %L (line), %M (function), %l (file:line), %h (host), %a (actor), %i (actor's \
     pid), %d or %r (simulated date), %% (a percent sign), %n (a new line), %e (a space); a \
     width and a precision may come between % and the letter, as in %10.6r";

impl Layout {
    /// Parses a `fmt` value.
    fn parse(fmt: &str) -> Result<Layout, LogError> {
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut chars = fmt.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                text.push(c);
                continue;
            }
            let number = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>| {
                let mut digits = String::new();
                while let Some(d) = chars.next_if(char::is_ascii_digit) {
                    digits.push(d);
                }
                digits.parse::<usize>().ok()
            };
            let width = number(&mut chars).unwrap_or(0);
            let precision = if chars.next_if_eq(&'.').is_some() {
                Some(number(&mut chars).unwrap_or(0))
            } else {
                None
            };
            let Some(letter) = chars.next() else {
                return Err(LogError::Layout(format!(
                    "layout format '{fmt}' ends with %"
                )));
            };
            match letter {
                '%' => text.push('%'),
                'n' => text.push('\n'),
                'e' => text.push(' '),
                'm' | 'c' | 'p' | 'F' | 'L' | 'M' | 'l' | 'h' | 'a' | 't' | 'P' | 'i' | 'd'
                | 'r' => {
                    if !text.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    pieces.push(Piece::Conversion(Conversion {
                        letter,
                        width,
                        precision,
                    }));
                }
                other => {
                    return Err(LogError::Layout(format!(
                        "unknown sequence %{other} in layout format '{fmt}'; {KNOWN_SEQUENCES}"
                    )))
                }
            }
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        Ok(Layout::Format(pieces))
    }

    /// The text of `event` in this layout.
    fn render(&self, event: &Event<'_>, no_loc: bool) -> String {
        match self {
            Layout::Simple => {
                let mut line = match event.source {
                    Source::Maestro => format!("[{:.6}] ", event.time),
                    Source::Actor(actor) => actor.prefix(event.time),
                };
                if let (Some(at), false, true) =
                    (event.location, no_loc, event.priority != Priority::Info)
                {
                    line.push_str(&format!("{}:{}: ", at.file, at.line));
                }
                line.push_str(&format!(
                    "[{}/{}] {}\n",
                    event.category,
                    event.priority.label(),
                    event.message
                ));
                line
            }
            Layout::Format(pieces) => {
                let mut line = String::new();
                for piece in pieces {
                    match piece {
                        Piece::Text(t) => line.push_str(t),
                        Piece::Conversion(c) => c.render(event, &mut line),
                    }
                }
                line
            }
        }
    }
}

impl Conversion {
    /// Appends the value of the conversion for `event`, as SimGrid's
    /// printf-based layout writes it.
    fn render(&self, event: &Event<'_>, out: &mut String) {
        let width = self.width;
        let string = |out: &mut String, s: &str| match self.precision {
            Some(p) => out.push_str(&format!("{s:>width$.p$}")),
            None => out.push_str(&format!("{s:>width$}")),
        };
        let int = |out: &mut String, n: usize| {
            let digits = format!("{n:0p$}", p = self.precision.unwrap_or(0));
            out.push_str(&format!("{digits:>width$}"));
        };
        let (file, line) = event.location.map_or(("", 0), |l| (l.file, l.line));
        match self.letter {
            'm' => match self.precision {
                Some(p) => out.extend(event.message.chars().take(p)),
                None => out.push_str(event.message),
            },
            'c' => string(out, event.category),
            'p' => string(out, event.priority.label()),
            'F' => string(out, file),
            'M' => string(out, event.function.unwrap_or("")),
            'L' => int(out, line as usize),
            'l' => {
                let at = format!("{file}:{line}");
                match self.precision {
                    Some(p) => out.extend(at.chars().take(p)),
                    None => out.push_str(&at),
                }
            }
            'h' => match event.source {
                Source::Maestro => string(out, ""),
                Source::Actor(a) => string(out, a.host),
            },
            'a' | 't' | 'P' => match event.source {
                Source::Maestro => string(out, "maestro"),
                Source::Actor(a) => string(out, &a.name.to_string()),
            },
            'i' => int(
                out,
                match event.source {
                    Source::Maestro => 0,
                    Source::Actor(a) => a.pid,
                },
            ),
            _ => {
                let p = self.precision.unwrap_or(6);
                out.push_str(&format!("{:>width$.p$}", event.time));
            }
        }
    }
}

/// What the `--log` options ask for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Thresholds by category name, in the order given: a later one for
    /// the same category replaces an earlier one.
    thresholds: Vec<(String, Priority)>,
    /// Layouts (`fmt`), appenders (`app`) and additivities (`add`) by
    /// category name; a later one replaces an earlier one.
    layouts: Vec<(String, Layout)>,
    appenders: Vec<(String, Appender)>,
    additivities: Vec<(String, bool)>,
    /// `no_loc`: the program's log lines name no source location.
    no_loc: bool,
}

/// Replaces the entry of `name` in `list` (keeping the given order).
fn set<T>(list: &mut Vec<(String, T)>, name: String, value: T) {
    list.retain(|(n, _)| *n != name);
    list.push((name, value));
}

/// Splits a `--log` value as SimGrid does: on spaces, with `"..."` or
/// `'...'` quoting and `\` escaping the next character.
fn split_settings(option: &str) -> Vec<String> {
    let mut settings = Vec::new();
    let mut current = String::new();
    let mut quote = None;
    let mut chars = option.chars();
    while let Some(c) = chars.next() {
        match (c, quote) {
            ('\\', _) => current.extend(chars.next()),
            ('"' | '\'', None) => quote = Some(c),
            (q, Some(open)) if q == open => quote = None,
            (' ', None) => settings.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    settings.push(current);
    settings.retain(|s| !s.is_empty());
    settings
}

impl Settings {
    const EMPTY: Settings = Settings {
        thresholds: Vec::new(),
        layouts: Vec::new(),
        appenders: Vec::new(),
        additivities: Vec::new(),
        no_loc: false,
    };

    /// Parses the values of every `--log` option, in order.
    pub fn parse<'a>(options: impl IntoIterator<Item = &'a str>) -> Result<Settings, LogError> {
        let mut settings = Settings::default();
        for option in options {
            settings.add(option)?;
        }
        Ok(settings)
    }

    /// Adds the settings of one `--log` value, read as SimGrid reads them:
    /// space-separated `<category>.<setting>:<value>`, the setting any
    /// prefix of `threshold`, `additivity`, `appender` or `fmt` (in that
    /// order of precedence), and `no_loc`. A bad setting changes nothing.
    pub fn add(&mut self, option: &str) -> Result<(), LogError> {
        let mut next = self.clone();
        for setting in split_settings(option) {
            if setting == "no_loc" {
                next.no_loc = true;
                continue;
            }
            // SimGrid's reading: the category up to the first '.', ':',
            // '=' or space, the key up to ':' or '=', then the value.
            let syntax = || LogError::Syntax(setting.clone());
            let dot = setting.find(['.', ':', '=']).ok_or_else(syntax)?;
            let (category, rest) = setting.split_at(dot);
            let rest = rest.strip_prefix('.').ok_or_else(syntax)?;
            let (key, value) = rest.split_once([':', '=']).ok_or_else(syntax)?;
            if category.is_empty() {
                return Err(syntax());
            }
            let category = category.to_string();
            if "threshold".starts_with(key) {
                let priority = Priority::from_name(value)
                    .ok_or_else(|| LogError::UnknownLevel(value.to_string()))?;
                set(&mut next.thresholds, category, priority);
            } else if "additivity".starts_with(key) {
                let on =
                    ["on", "yes"].iter().any(|v| value.eq_ignore_ascii_case(v)) || value == "1";
                set(&mut next.additivities, category, on);
            } else if "appender".starts_with(key) {
                let appender = match value {
                    "stderr" => Appender::Stderr,
                    "stdout" => Appender::Stdout,
                    _ => match value.strip_prefix("file:") {
                        Some(path) => Appender::File(path.to_string()),
                        None => return Err(LogError::UnknownAppender(value.to_string())),
                    },
                };
                set(&mut next.appenders, category, appender);
            } else if "fmt".starts_with(key) {
                set(&mut next.layouts, category, Layout::parse(value)?);
            } else {
                return Err(LogError::UnsupportedKey {
                    setting: setting.clone(),
                    key: key.to_string(),
                });
            }
        }
        *self = next;
        Ok(())
    }

    /// Whether no setting names one of smpirun's categories (nor root):
    /// then `tracing` needs no subscriber.
    pub fn is_off(&self) -> bool {
        !self
            .thresholds
            .iter()
            .any(|(name, _)| Category::from_name(name).is_some())
    }

    /// The threshold set for the category named `name`, if any.
    fn threshold(&self, name: &str) -> Option<Priority> {
        find(&self.thresholds, name).copied()
    }

    /// The `tracing` threshold of each of smpirun's targets; root's for
    /// every other target.
    fn filter(&self) -> Targets {
        let mut filter = Targets::new().with_default(LevelFilter::OFF);
        for (name, priority) in &self.thresholds {
            let Some(category) = Category::from_name(name) else {
                continue;
            };
            filter = match category.target() {
                Some(target) => filter.with_target(target, priority.level()),
                None => filter.with_default(priority.level()),
            };
        }
        filter
    }
}

fn find<'a, T>(list: &'a [(String, T)], name: &str) -> Option<&'a T> {
    list.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

/// Reads the simulated time, in seconds, for the log lines.
pub type Clock = fn() -> f64;

/// The `tracing` side of smpirun's categories: each event becomes a line
/// of its category, laid out and written as any other.
struct SimGridLayer {
    clock: Clock,
    /// Where the lines go: the category tree (a test's capture in tests).
    sink: fn(&Event<'_>),
}

/// The category a target belongs to, by name (the target itself for
/// targets outside ours, such as a library's).
fn category_of(target: &str) -> &str {
    Category::ALL
        .into_iter()
        .find(|c| {
            c.target().is_some_and(|t| {
                target
                    .strip_prefix(t)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
            })
        })
        .map_or(target, |c| c.name())
}

/// SimGrid's priority of a `tracing` level (it says WARNING where tracing
/// says WARN).
fn priority_of(level: Level) -> Priority {
    match level {
        Level::TRACE => Priority::Trace,
        Level::DEBUG => Priority::Debug,
        Level::INFO => Priority::Info,
        Level::WARN => Priority::Warning,
        Level::ERROR => Priority::Error,
    }
}

/// The message of an event: its `message` field, then the others as
/// `name=value`.
#[derive(Default)]
struct Message(String);

impl tracing::field::Visit for Message {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            let rest = std::mem::take(&mut self.0);
            self.0 = format!("{value:?}{rest}");
        } else {
            self.0.push_str(&format!(" {}={value:?}", field.name()));
        }
    }
}

impl<S: Subscriber> Layer<S> for SimGridLayer {
    fn on_event(&self, event: &Event_<'_>, _ctx: tracing_subscriber::layer::Context<'_, S>) {
        let meta = event.metadata();
        let mut message = Message::default();
        event.record(&mut message);
        (self.sink)(&Event {
            category: category_of(meta.target()),
            priority: priority_of(*meta.level()),
            source: Source::Maestro,
            time: (self.clock)(),
            location: None,
            function: None,
            message: &message.0,
        });
    }
}

/// Installs the logger `settings` ask for (a `tracing` subscriber only
/// when they name one of smpirun's categories) and gives the settings to
/// the category tree.
pub fn install(settings: &Settings, clock: Clock) -> Result<(), LogError> {
    categories().set_settings(settings.clone())?;
    if settings.is_off() {
        return Ok(());
    }
    let subscriber = tracing_subscriber::registry()
        .with(settings.filter())
        .with(SimGridLayer {
            clock,
            sink: |event| categories().emit(event),
        });
    tracing::subscriber::set_global_default(subscriber)?;
    Ok(())
}

/// Who says a log line: SimGrid's actor (host, name, pid), a rank's or
/// one a rank created.
#[derive(Debug, Clone, Copy)]
pub struct Actor<'a> {
    pub host: &'a str,
    pub name: ActorName<'a>,
    /// SimGrid's actor number: rank + 1 for a rank (pid 0 is the
    /// maestro), then the actors ranks create, in creation order.
    pub pid: usize,
}

/// An actor's name.
#[derive(Debug, Clone, Copy)]
pub enum ActorName<'a> {
    /// A rank's actor, which SimGrid names after its rank in
    /// MPI_COMM_WORLD.
    Rank(usize),
    /// An actor a rank created, with the name it was given.
    Named(&'a str),
}

impl std::fmt::Display for ActorName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ActorName::Rank(rank) => write!(f, "{rank}"),
            ActorName::Named(name) => f.write_str(name),
        }
    }
}

impl<'a> Actor<'a> {
    /// The actor of rank `rank`, on `host`.
    pub fn rank(host: &'a str, rank: usize) -> Self {
        Self {
            host,
            name: ActorName::Rank(rank),
            pid: rank + 1,
        }
    }

    /// SimGrid's head of an actor's line in its default layout:
    /// `[host:name:(pid) time] `.
    pub fn prefix(&self, time: f64) -> String {
        format!("[{}:{}:({}) {time:.6}] ", self.host, self.name, self.pid)
    }
}

/// Who says a line: a rank, or the maestro (the simulation itself).
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    Maestro,
    Actor(Actor<'a>),
}

/// Where a program's log line comes from in its sources.
#[derive(Debug, Clone, Copy)]
pub struct Location<'a> {
    pub file: &'a str,
    pub line: u32,
}

/// A log line before its layout.
#[derive(Debug, Clone, Copy)]
pub struct Event<'a> {
    pub category: &'a str,
    pub priority: Priority,
    pub source: Source<'a>,
    /// The simulated date, in seconds.
    pub time: f64,
    pub location: Option<Location<'a>>,
    pub function: Option<&'a str>,
    pub message: &'a str,
}

/// The categories smpirun itself logs in: SimGrid's names (so that a
/// SimGrid user's `--log` settings apply to the same lines), each with
/// its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimGrid {
    /// Every SMPI category's parent.
    Smpi,
    /// Options and the platform.
    SmpiConfig,
    /// Ranks' lives and the data they exchange.
    SmpiKernel,
    /// MPI calls entering and leaving (VERBOSE).
    SmpiMpi,
    /// The computations a rank asks for (DEBUG).
    SmpiBench,
    /// Collective algorithms.
    SmpiColl,
    /// The collective algorithms' own lines (`automatic`'s verdicts).
    SmpiColls,
    /// SMPI's helpers: the memory analysis at the end of a run.
    SmpiUtils,
    /// Trace replay (`-replay`).
    SmpiReplay,
    /// MPI-IO: file pointers moved and data read and written (VERBOSE).
    SmpiIo,
    Xbt,
    /// The configuration system.
    XbtCfg,
    /// The host energy plugin (under SimGrid's `kernel`).
    HostEnergy,
}

impl SimGrid {
    const ALL: [SimGrid; 13] = [
        SimGrid::Smpi,
        SimGrid::SmpiConfig,
        SimGrid::SmpiKernel,
        SimGrid::SmpiMpi,
        SimGrid::SmpiBench,
        SimGrid::SmpiColl,
        SimGrid::SmpiColls,
        SimGrid::SmpiUtils,
        SimGrid::SmpiReplay,
        SimGrid::SmpiIo,
        SimGrid::Xbt,
        SimGrid::XbtCfg,
        SimGrid::HostEnergy,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SimGrid::Smpi => "smpi",
            SimGrid::SmpiConfig => "smpi_config",
            SimGrid::SmpiKernel => "smpi_kernel",
            SimGrid::SmpiMpi => "smpi_mpi",
            SimGrid::SmpiBench => "smpi_bench",
            SimGrid::SmpiColl => "smpi_coll",
            SimGrid::SmpiColls => "smpi_colls",
            SimGrid::SmpiUtils => "smpi_utils",
            SimGrid::SmpiReplay => "smpi_replay",
            SimGrid::SmpiIo => "smpi_io",
            SimGrid::Xbt => "xbt",
            SimGrid::XbtCfg => "xbt_cfg",
            SimGrid::HostEnergy => "host_energy",
        }
    }

    fn parent(self) -> &'static str {
        match self {
            SimGrid::Smpi | SimGrid::Xbt => ROOT,
            SimGrid::XbtCfg => "xbt",
            SimGrid::HostEnergy => "kernel",
            _ => "smpi",
        }
    }

    /// Its index in the category tree (root is 0).
    fn id(self) -> usize {
        self as usize + 1
    }
}

/// The thresholds of SimGrid's categories (as `Priority` values), read
/// without a lock: the check before an MPI call's VERBOSE line is on every
/// call's path.
static THRESHOLDS: [AtomicU8; SimGrid::ALL.len()] =
    [const { AtomicU8::new(Priority::Info as u8) }; SimGrid::ALL.len()];

/// Whether a line of `category` at `priority` is printed.
#[inline]
pub fn enabled(category: SimGrid, priority: Priority) -> bool {
    priority as u8 >= THRESHOLDS[category as usize].load(Ordering::Relaxed)
}

/// Writes a line of one of smpirun's SimGrid categories (when enabled).
pub fn simgrid(
    category: SimGrid,
    priority: Priority,
    source: Source<'_>,
    time: f64,
    message: &str,
) {
    simgrid_at(category, priority, source, time, None, message);
}

/// [`simgrid`] with the source location SimGrid's default layout shows
/// for warnings and errors: where in SimGrid's sources the same line is
/// printed, so that the line reads as SimGrid's does.
pub fn simgrid_at(
    category: SimGrid,
    priority: Priority,
    source: Source<'_>,
    time: f64,
    location: Option<Location<'_>>,
    message: &str,
) {
    if !enabled(category, priority) {
        return;
    }
    categories().emit(&Event {
        category: category.name(),
        priority,
        source,
        time,
        location,
        function: None,
        message,
    });
}

/// A node of the category tree.
#[derive(Debug)]
struct Node {
    name: String,
    /// Its parent's name (root has none).
    parent: Option<String>,
    /// The threshold the settings give it.
    threshold: Priority,
}

/// SimGrid's category tree: root, SimGrid's categories smpirun logs in
/// (`SimGrid`), smpirun's own (`Category`) and those programs declare
/// (`XBT_LOG_NEW_DEFAULT_CATEGORY`), numbered in the order they are
/// first known; with the settings that give them thresholds, layouts and
/// appenders, and the log files open.
#[derive(Debug)]
pub struct Categories {
    settings: Settings,
    nodes: Vec<Node>,
    files: Vec<(String, std::fs::File)>,
}

/// The one [`Categories`] of the process (the C side of every rank reaches
/// it; a simulation runs on one thread, so the lock is never contended).
static CATEGORIES: Mutex<Categories> = Mutex::new(Categories::new());

/// The category tree of the process.
pub fn categories() -> MutexGuard<'static, Categories> {
    CATEGORIES.lock().unwrap_or_else(|e| e.into_inner())
}

impl Categories {
    const fn new() -> Categories {
        Categories {
            settings: Settings::EMPTY,
            nodes: Vec::new(),
            files: Vec::new(),
        }
    }

    /// Declares root and the categories smpirun logs in, once.
    fn builtins(&mut self) {
        if !self.nodes.is_empty() {
            return;
        }
        self.nodes.push(Node {
            name: ROOT.to_string(),
            parent: None,
            threshold: Priority::Info,
        });
        for c in SimGrid::ALL {
            self.nodes.push(Node {
                name: c.name().to_string(),
                parent: Some(c.parent().to_string()),
                threshold: Priority::Info,
            });
        }
        for c in Category::ALL.into_iter().filter(|c| *c != Category::Root) {
            self.nodes.push(Node {
                name: c.name().to_string(),
                parent: Some(ROOT.to_string()),
                threshold: Priority::Info,
            });
        }
    }

    fn set_settings(&mut self, settings: Settings) -> Result<(), LogError> {
        let mut files = Vec::new();
        for (_, appender) in &settings.appenders {
            if let Appender::File(path) = appender {
                let file = std::fs::File::create(path).map_err(|source| LogError::File {
                    path: path.clone(),
                    source,
                })?;
                files.push((path.clone(), file));
            }
        }
        self.files = files;
        self.settings = settings;
        self.resolve();
        Ok(())
    }

    /// Applies a setting at run time (`xbt_log_control_set`).
    pub fn control_set(&mut self, text: &str) -> Result<(), LogError> {
        let mut settings = self.settings.clone();
        settings.add(text)?;
        self.set_settings(settings)
    }

    /// The number of the category `name` (child of `parent`, root's when
    /// none), declaring it on its first use.
    pub fn category(&mut self, name: &str, parent: Option<&str>) -> usize {
        self.builtins();
        if let Some(i) = self.nodes.iter().position(|c| c.name == name) {
            return i;
        }
        self.nodes.push(Node {
            name: name.to_string(),
            parent: Some(parent.unwrap_or(ROOT).to_string()),
            threshold: Priority::Info,
        });
        // A new category may be the parent of ones declared before it.
        self.resolve();
        self.nodes.len() - 1
    }

    /// Whether `--log=no_loc` leaves source locations out.
    pub fn no_loc(&self) -> bool {
        self.settings.no_loc
    }

    /// Whether category `id` logs at `priority`.
    pub fn enabled(&self, id: usize, priority: Priority) -> bool {
        self.nodes.get(id).is_some_and(|c| priority >= c.threshold)
    }

    /// Gives every category the threshold of the nearest of itself and
    /// its ancestors that a setting names; else root's; else INFO.
    fn resolve(&mut self) {
        self.builtins();
        let thresholds: Vec<Priority> = (0..self.nodes.len()).map(|i| self.inherited(i)).collect();
        for (c, t) in self.nodes.iter_mut().zip(thresholds) {
            c.threshold = t;
        }
        for c in SimGrid::ALL {
            THRESHOLDS[c as usize].store(self.nodes[c.id()].threshold as u8, Ordering::Relaxed);
        }
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|c| c.name == name)
    }

    fn inherited(&self, id: usize) -> Priority {
        let mut name = self.nodes[id].name.as_str();
        // Parents are known by name (one may not be declared yet): a cycle
        // of them ends with root's threshold.
        for _ in 0..=self.nodes.len() {
            if let Some(p) = self.settings.threshold(name) {
                return p;
            }
            match self
                .index(name)
                .and_then(|i| self.nodes[i].parent.as_deref())
            {
                Some(up) => name = up,
                None => break,
            }
        }
        self.settings.threshold(ROOT).unwrap_or(Priority::Info)
    }

    /// The text `event` gives in the layout of category `name` (SimGrid's
    /// default one unless a `fmt` setting names it).
    fn render(&self, name: &str, event: &Event<'_>) -> String {
        find(&self.settings.layouts, name)
            .unwrap_or(&Layout::Simple)
            .render(event, self.settings.no_loc)
    }

    /// Writes `event` as SimGrid does: with the appender and layout of its
    /// category if it has one, then of each ancestor in turn, up to root
    /// (whose appender is stderr unless set) or to the first category
    /// whose additivity is off (as is that of a category given an
    /// appender). A category given a layout and no appender writes to
    /// stderr (SimGrid gives it its default appender then). The caller
    /// checked the threshold.
    pub fn emit(&mut self, event: &Event<'_>) {
        self.builtins();
        let mut name = event.category.to_string();
        for _ in 0..=self.nodes.len() {
            let appender = find(&self.settings.appenders, &name).cloned().or_else(|| {
                let laid_out = find(&self.settings.layouts, &name).is_some();
                (name == ROOT || laid_out).then_some(Appender::Stderr)
            });
            if let Some(appender) = &appender {
                let text = self.render(&name, event);
                self.write(appender, &text);
            }
            let additive = find(&self.settings.additivities, &name)
                .copied()
                .unwrap_or(appender.is_none() || name == ROOT);
            let parent = self
                .index(&name)
                .and_then(|i| self.nodes[i].parent.clone())
                .or_else(|| (name != ROOT).then(|| ROOT.to_string()));
            match parent {
                Some(p) if additive => name = p,
                _ => break,
            }
        }
    }

    /// Writes one line, in one write, unbuffered (as SimGrid's appenders).
    fn write(&mut self, appender: &Appender, text: &str) {
        use std::io::Write as _;
        let _ = match appender {
            Appender::Stderr => std::io::stderr().write_all(text.as_bytes()),
            Appender::Stdout => {
                // After what the program printed before (C's buffer).
                crate::flush_c_stdio();
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes()).and_then(|()| out.flush())
            }
            Appender::File(path) => match self.files.iter_mut().find(|(p, _)| p == path) {
                Some((_, file)) => file.write_all(text.as_bytes()),
                None => Ok(()),
            },
        };
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn parse(options: &[&str]) -> Result<Settings, LogError> {
        Settings::parse(options.iter().copied())
    }

    fn thresholds(options: &[&str]) -> Vec<(String, Priority)> {
        parse(options).unwrap().thresholds
    }

    fn one(name: &str, priority: Priority) -> Vec<(String, Priority)> {
        vec![(name.to_string(), priority)]
    }

    #[test]
    fn thresholds_of_root_and_categories() {
        assert_eq!(
            thresholds(&["root.thres:critical"]),
            one("root", Priority::Critical)
        );
        assert_eq!(
            thresholds(&["config.thres:debug"]),
            one("config", Priority::Debug)
        );
        assert_eq!(
            thresholds(&["network.threshold:warning"]),
            one("network", Priority::Warning)
        );
        assert_eq!(
            thresholds(&["mpi.thres:verbose"]),
            one("mpi", Priority::Verbose)
        );
        assert_eq!(
            thresholds(&["engine.thres:TRACE"]),
            one("engine", Priority::Trace)
        );
        // Any prefix of "threshold", as SimGrid reads it.
        assert_eq!(
            thresholds(&["smpi_kernel.thr:critical"]),
            one("smpi_kernel", Priority::Critical)
        );
        // The empty prefix, and '=' for ':', as SimGrid's tests write them.
        assert_eq!(thresholds(&["smpi.:info"]), one("smpi", Priority::Info));
        assert_eq!(
            thresholds(&["xbt_cfg.thres=warning"]),
            one("xbt_cfg", Priority::Warning)
        );
    }

    #[test]
    fn every_simgrid_level_is_known() {
        for (name, priority) in [
            ("trace", Priority::Trace),
            ("debug", Priority::Debug),
            ("verbose", Priority::Verbose),
            ("info", Priority::Info),
            ("warning", Priority::Warning),
            ("error", Priority::Error),
            ("critical", Priority::Critical),
        ] {
            assert_eq!(
                thresholds(&[&format!("privatize.thres:{name}")]),
                one("privatize", priority)
            );
            assert_eq!(Priority::from_c(priority as i32), Some(priority));
        }
        assert_eq!(Priority::from_c(0), None);
        assert_eq!(Priority::from_c(8), None);
        // tracing has neither verbose nor critical.
        assert_eq!(Priority::Verbose.level(), Level::DEBUG);
        assert_eq!(Priority::Critical.level(), Level::ERROR);
    }

    #[test]
    fn several_settings_in_one_option_and_repeated_options() {
        assert_eq!(
            thresholds(&["config.thres:debug mpi.thres:info"]),
            [
                ("config".to_string(), Priority::Debug),
                ("mpi".to_string(), Priority::Info)
            ]
        );
        // SimGrid separates settings by spaces only (a comma is part of
        // the value), and reads quotes and backslashes.
        assert!(matches!(
            parse(&["config.thres:debug,mpi.thres:info"]),
            Err(LogError::UnknownLevel(l)) if l == "debug,mpi.thres:info"
        ));
        assert_eq!(
            split_settings(r#"a.fmt:"%m %n" b.thres:info c.fmt:x\ y"#),
            ["a.fmt:%m %n", "b.thres:info", "c.fmt:x y"]
        );
        let s = parse(&["config.thres:debug  engine.thres:error no_loc"]).unwrap();
        assert!(s.no_loc);
        assert_eq!(
            s.thresholds,
            [
                ("config".to_string(), Priority::Debug),
                ("engine".to_string(), Priority::Error)
            ]
        );
        assert_eq!(
            thresholds(&[
                "config.thres:debug",
                "root.thres:info",
                "config.thres:error"
            ]),
            [
                ("root".to_string(), Priority::Info),
                ("config".to_string(), Priority::Error)
            ]
        );
    }

    #[test]
    fn only_smpiruns_categories_or_root_install_a_subscriber() {
        assert!(parse(&["no_loc"]).unwrap().is_off());
        assert!(parse(&[]).unwrap().is_off());
        assert!(!parse(&["no_loc root.thres:info"]).unwrap().is_off());
        // A program's category (or SimGrid's) needs no subscriber.
        assert!(parse(&["smpi_test.thres:warning", "xbt_cfg.thres:warning"])
            .unwrap()
            .is_off());
        assert!(!parse(&["smpi_test.thres:warning", "mpi.thres:debug"])
            .unwrap()
            .is_off());
    }

    #[test]
    fn errors_name_the_culprit_and_the_valid_choices() {
        let e = parse(&["config.thres:loud"]).unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown log level 'loud'; valid levels are: trace, debug, verbose, info, warning, \
             error, critical"
        );
        let e = parse(&["root.fmt:%m%q"]).unwrap_err().to_string();
        assert!(
            e.starts_with("unknown sequence %q in layout format '%m%q'; known"),
            "{e}"
        );
        let e = parse(&["root.fmt:%m%"]).unwrap_err().to_string();
        assert_eq!(e, "layout format '%m%' ends with %");
        let e = parse(&["root.app:syslog"]).unwrap_err().to_string();
        assert!(e.starts_with("'syslog': unknown appender"), "{e}");
        let e = parse(&["root.colour:red"]).unwrap_err().to_string();
        assert!(e.contains("unknown setting 'colour'"), "{e}");
        assert!(matches!(
            parse(&["config:debug"]),
            Err(LogError::Syntax(s)) if s == "config:debug"
        ));
        assert!(matches!(parse(&["config.thres"]), Err(LogError::Syntax(_))));
        assert!(matches!(parse(&[".thres:info"]), Err(LogError::Syntax(_))));
        // One bad setting spoils the option, even after good ones, and
        // changes nothing.
        let mut s = Settings::default();
        assert!(s.add("config.thres:debug bogus.thres:loud").is_err());
        assert_eq!(s, Settings::default());
    }

    #[test]
    fn categories_inherit_from_their_parents_then_root_then_info() {
        let mut p = Categories::new();
        let test = p.category("smpi_test", None);
        assert_eq!(p.category("smpi_test", Some("root")), test);
        assert!(p.enabled(test, Priority::Info) && !p.enabled(test, Priority::Verbose));
        p.set_settings(parse(&["root.thres:warning"]).unwrap())
            .unwrap();
        assert!(!p.enabled(test, Priority::Info) && p.enabled(test, Priority::Warning));
        // A child declared before its parent inherits once both are known.
        let child = p.category("child", Some("parent"));
        assert!(p.enabled(child, Priority::Warning) && !p.enabled(child, Priority::Info));
        p.control_set("grandparent.thres:debug").unwrap();
        let parent = p.category("parent", Some("grandparent"));
        assert!(p.enabled(child, Priority::Debug) && p.enabled(parent, Priority::Debug));
        // The nearest setting wins; the category's own first.
        p.control_set("parent.thres:error child.thr:trace").unwrap();
        assert!(p.enabled(child, Priority::Trace));
        assert!(!p.enabled(parent, Priority::Warning) && p.enabled(parent, Priority::Error));
        assert!(!p.enabled(test, Priority::Info));
        // A cycle of parents ends at root's threshold.
        let a = p.category("a", Some("b"));
        p.category("b", Some("a"));
        assert!(p.enabled(a, Priority::Warning) && !p.enabled(a, Priority::Info));
        assert!(!p.enabled(999, Priority::Critical));
        assert!(p.control_set("a.thres:loud").is_err());
        // SimGrid's categories sit under theirs: smpi_config under smpi.
        p.control_set("smpi.thres:error").unwrap();
        let config = p.category("smpi_config", None);
        assert_eq!(config, SimGrid::SmpiConfig.id());
        assert!(!p.enabled(config, Priority::Warning) && p.enabled(config, Priority::Error));
    }

    fn event<'a>(source: Source<'a>, priority: Priority, message: &'a str) -> Event<'a> {
        Event {
            category: "dsend",
            priority,
            source,
            time: 0.005896,
            location: Some(Location {
                file: "pt2pt.c",
                line: 42,
            }),
            function: None,
            message,
        }
    }

    const TREMBLAY: Actor<'static> = Actor {
        host: "Tremblay",
        name: ActorName::Rank(0),
        pid: 1,
    };

    #[test]
    fn the_default_layout_is_simgrids() {
        let simple = |e: &Event<'_>, no_loc| Layout::Simple.render(e, no_loc);
        let e = event(Source::Actor(TREMBLAY), Priority::Info, "rank 0: done");
        assert_eq!(
            simple(&e, false),
            "[Tremblay:0:(1) 0.005896] [dsend/INFO] rank 0: done\n"
        );
        let e = event(Source::Actor(TREMBLAY), Priority::Warning, "careful");
        assert_eq!(
            simple(&e, false),
            "[Tremblay:0:(1) 0.005896] pt2pt.c:42: [dsend/WARNING] careful\n"
        );
        assert_eq!(
            simple(&e, true),
            "[Tremblay:0:(1) 0.005896] [dsend/WARNING] careful\n"
        );
        let e = event(Source::Maestro, Priority::Info, "[rank 0] -> Tremblay");
        assert_eq!(
            simple(&e, false),
            "[0.005896] [dsend/INFO] [rank 0] -> Tremblay\n"
        );
        // An actor a rank created: its own name and pid.
        let waiter = Actor {
            host: "Tremblay",
            name: ActorName::Named("wait send"),
            pid: 3,
        };
        let e = event(Source::Actor(waiter), Priority::Info, "waiting");
        assert_eq!(
            simple(&e, false),
            "[Tremblay:wait send:(3) 0.005896] [dsend/INFO] waiting\n"
        );
        let render = |fmt: &str| Layout::parse(fmt).unwrap().render(&e, false);
        assert_eq!(render("%i:%a@%h %P"), "3:wait send@Tremblay wait send");
    }

    #[test]
    fn format_layouts_read_simgrids_sequences() {
        let render = |fmt: &str, e: &Event<'_>| Layout::parse(fmt).unwrap().render(e, false);
        let maestro = event(Source::Maestro, Priority::Info, "hello");
        let rank = event(Source::Actor(TREMBLAY), Priority::Verbose, "hello");
        // SimGrid's own tests' layouts.
        let fmt = "[%10.6r]%e(%i:%a@%h)%e%m%n";
        assert_eq!(render(fmt, &maestro), "[  0.005896] (0:maestro@) hello\n");
        assert_eq!(render(fmt, &rank), "[  0.005896] (1:0@Tremblay) hello\n");
        assert_eq!(render("(%a@%h)%e%m%n", &maestro), "(maestro@) hello\n");
        // Every sequence, widths and precisions.
        assert_eq!(
            render("%c/%p %l %F:%L %.2m %5.3i|%%|%r", &rank),
            "dsend/VERBOSE pt2pt.c:42 pt2pt.c:42 he   001|%|0.005896"
        );
        assert_eq!(render("%8c|%.3c|%.1d", &rank), "   dsend|dse|0.0");
        assert_eq!(render("%t %P %M.", &rank), "0 0 .");
    }

    /// A category tree writing to a file of its own: (the tree, the file).
    fn tree_into_file(settings: &str) -> (Categories, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!(
            "smpi-log-test-{}-{}",
            std::process::id(),
            settings.len()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.txt");
        let mut tree = Categories::new();
        let all = settings.replace("FILE", &path.display().to_string());
        tree.set_settings(parse(&[&all]).unwrap()).unwrap();
        (tree, path)
    }

    #[test]
    fn lines_go_up_the_tree_to_each_appender_until_additivity_stops_them() {
        // An appender of its own: the category's line is written there in
        // its layout, and not by root (its additivity is then off).
        let (mut tree, path) = tree_into_file("smpi.app:file:FILE smpi.fmt:<%c>%m%n");
        let e = Event {
            category: "smpi_config",
            ..event(Source::Maestro, Priority::Info, "one")
        };
        tree.emit(&e);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "<smpi_config>one\n"
        );
        // Additivity back on: the line goes on up (to root's stderr too).
        let (mut tree, path) =
            tree_into_file("root.app:file:FILE root.fmt:%m%n xbt.app:file:FILE xbt.add:on");
        tree.emit(&Event {
            category: "xbt_cfg",
            ..event(Source::Maestro, Priority::Info, "twice")
        });
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "[0.005896] [xbt_cfg/INFO] twice\ntwice\n"
        );
    }

    #[test]
    fn categories_of_targets() {
        assert_eq!(category_of(CONFIG), "config");
        assert_eq!(category_of("smpi::engine::timers"), "engine");
        assert_eq!(category_of("smpi::engineering"), "smpi::engineering");
        assert_eq!(category_of("other_crate"), "other_crate");
    }

    thread_local! {
        static SEEN: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }

    fn logged(options: &[&str], emit: impl FnOnce()) -> String {
        let settings = parse(options).unwrap();
        let sub = tracing_subscriber::registry()
            .with(settings.filter())
            .with(SimGridLayer {
                clock: || 1.5,
                sink: |e| SEEN.with(|s| s.borrow_mut().push_str(&Layout::Simple.render(e, false))),
            });
        tracing::subscriber::with_default(sub, emit);
        SEEN.with(|s| std::mem::take(&mut *s.borrow_mut()))
    }

    #[test]
    fn smpiruns_categories_follow_thresholds_and_simgrids_layout() {
        let out = logged(&["config.thres:debug"], || {
            tracing::debug!(target: CONFIG, "set {} to {}", "a", 1);
            tracing::warn!(target: CONFIG, "careful");
            tracing::trace!(target: CONFIG, "too fine");
            tracing::error!(target: ENGINE, "not this category");
        });
        assert_eq!(
            out,
            "[1.500000] [config/DEBUG] set a to 1\n[1.500000] [config/WARNING] careful\n"
        );
        let out = logged(&["root.thres:info", "mpi.thres:error"], || {
            tracing::info!(target: ENGINE, "engine info");
            tracing::info!(target: MPI, "mpi info");
            tracing::error!(target: MPI, rank = 3, "mpi error");
        });
        assert_eq!(
            out,
            "[1.500000] [engine/INFO] engine info\n[1.500000] [mpi/ERROR] mpi error rank=3\n"
        );
    }
}
