//! Logs through `tracing`, set up with SimGrid's `--log=` syntax, and the
//! log categories programs declare (`XBT_LOG_NEW_DEFAULT_CATEGORY`).
//!
//! Each category of smpirun is a `tracing` target: log with
//! `tracing::info!(target: log::CONFIG, ...)`. Without a `--log` setting
//! for one of them (or root), no subscriber is installed at all, so a log
//! call costs one check of a disabled call site and nothing is printed: a
//! simulation's output stays what SimGrid prints. Named, they print at
//! their threshold and above, to stderr, in SimGrid's layout
//! `[<simulated time>] [<category>/<LEVEL>] message`; categories no setting
//! names (nor `root`) stay silent.
//!
//! A program's categories ([`Programs`]) are SimGrid's: they print at INFO
//! and above unless `--log` (or the program's `xbt_log_control_set`) sets
//! their threshold, their parent's or root's, in SimGrid's layout for
//! actors, `[host:rank:(pid) time] [category/LEVEL] message`. Settings may
//! name categories nobody declares (SimGrid's own, such as `smpi_config`):
//! as in SimGrid, they are kept and apply to nothing.

use std::fmt;
use std::sync::{Mutex, MutexGuard};

use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, MakeWriter};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;

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
        "'{setting}': '{key}' is not supported (only <category>.thres:<level>, \
         <category>.threshold:<level> and no_loc)"
    )]
    UnsupportedKey { setting: String, key: String },
    #[error("'{0}' is not of the form <category>.thres:<level> (or no_loc)")]
    Syntax(String),
    #[error("cannot install the logger: {0}")]
    Install(#[from] tracing::subscriber::SetGlobalDefaultError),
}

fn level_list() -> String {
    Priority::ALL
        .map(|p| p.label().to_ascii_lowercase())
        .join(", ")
}

/// What the `--log` options ask for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Thresholds by category name, in the order given: a later one for
    /// the same category replaces an earlier one.
    thresholds: Vec<(String, Priority)>,
    /// `no_loc`: the program's log lines name no source location.
    no_loc: bool,
}

impl Settings {
    const EMPTY: Settings = Settings {
        thresholds: Vec::new(),
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

    /// Adds the settings of one `--log` value: comma- or space-separated
    /// `<category>.thres:<level>` (any prefix of `threshold`, as SimGrid
    /// reads it) and `no_loc`. A bad setting changes nothing.
    pub fn add(&mut self, option: &str) -> Result<(), LogError> {
        let mut parsed = Vec::new();
        let mut no_loc = false;
        for setting in option
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
        {
            if setting == "no_loc" {
                no_loc = true;
                continue;
            }
            // SimGrid's reading: the category up to the first '.', the key
            // up to ':' or '=', then the value; an empty key is a prefix
            // of "threshold" as any other (`smpi.:info`).
            let syntax = || LogError::Syntax(setting.to_string());
            let (category, rest) = setting.split_once('.').ok_or_else(syntax)?;
            let (what, level) = rest.split_once([':', '=']).ok_or_else(syntax)?;
            if category.is_empty() || category.contains([':', '=']) {
                return Err(syntax());
            }
            if !"threshold".starts_with(what) {
                return Err(LogError::UnsupportedKey {
                    setting: setting.to_string(),
                    key: what.to_string(),
                });
            }
            let priority = Priority::from_name(level)
                .ok_or_else(|| LogError::UnknownLevel(level.to_string()))?;
            parsed.push((category.to_string(), priority));
        }
        self.no_loc |= no_loc;
        for (category, priority) in parsed {
            self.thresholds.retain(|(c, _)| *c != category);
            self.thresholds.push((category, priority));
        }
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
        self.thresholds
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, p)| p)
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

/// Reads the simulated time, in seconds, for the log lines.
pub type Clock = fn() -> f64;

/// SimGrid's layout: `[<simulated time>] [<category>/<LEVEL>] message`.
struct SimGridLayout {
    clock: Clock,
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

/// SimGrid's name of a level (it says WARNING where tracing says WARN).
fn level_name(level: Level) -> &'static str {
    match level {
        Level::TRACE => "TRACE",
        Level::DEBUG => "DEBUG",
        Level::INFO => "INFO",
        Level::WARN => "WARNING",
        Level::ERROR => "ERROR",
    }
}

impl<S, N> FormatEvent<S, N> for SimGridLayout
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let meta = event.metadata();
        write!(
            writer,
            "[{:.6}] [{}/{}] ",
            (self.clock)(),
            category_of(meta.target()),
            level_name(*meta.level())
        )?;
        ctx.format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}

/// The subscriber `settings` ask for, writing to `writer`.
fn subscriber<W>(settings: &Settings, clock: Clock, writer: W) -> impl Subscriber + Send + Sync
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    tracing_subscriber::registry().with(settings.filter()).with(
        tracing_subscriber::fmt::layer()
            .with_writer(writer)
            .event_format(SimGridLayout { clock }),
    )
}

/// Installs the logger `settings` ask for, writing to stderr (none when
/// they name none of smpirun's categories), and gives the settings to
/// the program's categories.
pub fn install(settings: &Settings, clock: Clock) -> Result<(), LogError> {
    programs().set_settings(settings.clone());
    if settings.is_off() {
        return Ok(());
    }
    tracing::subscriber::set_global_default(subscriber(settings, clock, std::io::stderr))?;
    Ok(())
}

/// A category a program declared.
#[derive(Debug)]
struct ProgramCategory {
    name: String,
    /// Its parent's name (root's children have none).
    parent: Option<String>,
    /// The threshold the settings give it.
    threshold: Priority,
}

/// The categories programs declare, numbered from 1 in the order they are
/// first used, and the settings that give them their thresholds.
#[derive(Debug)]
pub struct Programs {
    settings: Settings,
    categories: Vec<ProgramCategory>,
}

/// The one [`Programs`] of the process (the C side of every rank reaches
/// it; a simulation runs on one thread, so the lock is never contended).
static PROGRAMS: Mutex<Programs> = Mutex::new(Programs::new());

/// The program categories of the process.
pub fn programs() -> MutexGuard<'static, Programs> {
    PROGRAMS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Who a program's log line is from: SimGrid's actor (host, name, pid).
#[derive(Debug, Clone, Copy)]
pub struct Actor<'a> {
    pub host: &'a str,
    /// The MPI rank in MPI_COMM_WORLD: SimGrid names a rank's actor by it
    /// and numbers it rank + 1 (pid 0 is the maestro).
    pub rank: usize,
}

impl Actor<'_> {
    /// SimGrid's head of an actor's log line: `[host:rank:(pid) time] `.
    pub fn prefix(&self, time: f64) -> String {
        format!(
            "[{}:{}:({}) {time:.6}] ",
            self.host,
            self.rank,
            self.rank + 1
        )
    }
}

/// A line of smpirun's own in SimGrid's layout for what no actor says
/// (the maestro's): `[time] [category/LEVEL] message`, with its newline.
pub fn maestro_line(time: f64, category: &str, priority: Priority, message: &str) -> String {
    format!("[{time:.6}] [{category}/{}] {message}\n", priority.label())
}

/// Where a program's log line comes from in its sources.
#[derive(Debug, Clone, Copy)]
pub struct Location<'a> {
    pub file: &'a str,
    pub line: u32,
}

impl Programs {
    const fn new() -> Programs {
        Programs {
            settings: Settings::EMPTY,
            categories: Vec::new(),
        }
    }

    fn set_settings(&mut self, settings: Settings) {
        self.settings = settings;
        self.resolve();
    }

    /// Applies a setting at run time (`xbt_log_control_set`).
    pub fn control_set(&mut self, text: &str) -> Result<(), LogError> {
        self.settings.add(text)?;
        self.resolve();
        Ok(())
    }

    /// The number of the category `name` (child of `parent`, root's when
    /// none), declaring it on its first use.
    pub fn category(&mut self, name: &str, parent: Option<&str>) -> usize {
        if let Some(i) = self.categories.iter().position(|c| c.name == name) {
            return i + 1;
        }
        self.categories.push(ProgramCategory {
            name: name.to_string(),
            parent: parent.filter(|p| *p != ROOT).map(str::to_string),
            threshold: Priority::Info,
        });
        // A new category may be the parent of ones declared before it.
        self.resolve();
        self.categories.len()
    }

    /// Whether category `id` logs at `priority`.
    pub fn enabled(&self, id: usize, priority: Priority) -> bool {
        id.checked_sub(1)
            .and_then(|i| self.categories.get(i))
            .is_some_and(|c| priority >= c.threshold)
    }

    /// Whether source locations are left out of the lines (`no_loc`).
    pub fn no_loc(&self) -> bool {
        self.settings.no_loc
    }

    /// Gives every category the threshold of the nearest of itself and
    /// its ancestors that a setting names; else root's; else INFO.
    fn resolve(&mut self) {
        let thresholds: Vec<Priority> = self.categories.iter().map(|c| self.inherited(c)).collect();
        for (c, t) in self.categories.iter_mut().zip(thresholds) {
            c.threshold = t;
        }
    }

    fn inherited(&self, category: &ProgramCategory) -> Priority {
        let mut name = category.name.as_str();
        let mut parent = category.parent.as_deref();
        // Parents are known by name: a cycle of them ends with root's.
        for _ in 0..=self.categories.len() {
            if let Some(p) = self.settings.threshold(name) {
                return p;
            }
            let Some(up) = parent else { break };
            name = up;
            parent = self
                .categories
                .iter()
                .find(|c| c.name == up)
                .and_then(|c| c.parent.as_deref());
        }
        self.settings.threshold(ROOT).unwrap_or(Priority::Info)
    }

    /// SimGrid's default layout for a line of an actor's:
    /// `[host:rank:(pid) time] [category/LEVEL] message`, with
    /// `file:line: ` before the category when the priority is not INFO
    /// (unless `no_loc`).
    pub fn line(
        &self,
        actor: Actor<'_>,
        time: f64,
        location: Location<'_>,
        category: &str,
        priority: Priority,
        message: &str,
    ) -> String {
        let mut line = actor.prefix(time);
        if priority != Priority::Info && !self.no_loc() {
            line.push_str(&format!("{}:{}: ", location.file, location.line));
        }
        line.push_str(&format!("[{category}/{}] {message}\n", priority.label()));
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

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
            thresholds(&["config.thres:debug,mpi.thres:info"]),
            [
                ("config".to_string(), Priority::Debug),
                ("mpi".to_string(), Priority::Info)
            ]
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
        assert!(!parse(&["no_loc,root.thres:info"]).unwrap().is_off());
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
        let e = parse(&["root.fmt:%m%n"]).unwrap_err().to_string();
        assert!(e.contains("'fmt' is not supported"), "{e}");
        assert!(matches!(
            parse(&["config:debug"]),
            Err(LogError::Syntax(s)) if s == "config:debug"
        ));
        assert!(matches!(parse(&["config.thres"]), Err(LogError::Syntax(_))));
        assert!(matches!(parse(&[".thres:info"]), Err(LogError::Syntax(_))));
        // One bad setting spoils the option, even after good ones, and
        // changes nothing.
        let mut s = Settings::default();
        assert!(s.add("config.thres:debug,bogus.thres:loud").is_err());
        assert_eq!(s, Settings::default());
    }

    #[test]
    fn program_categories_inherit_from_their_parents_then_root_then_info() {
        let mut p = Programs::new();
        let test = p.category("smpi_test", None);
        assert_eq!(p.category("smpi_test", Some("root")), test);
        assert!(p.enabled(test, Priority::Info) && !p.enabled(test, Priority::Verbose));
        p.set_settings(parse(&["root.thres:warning"]).unwrap());
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
        assert!(!p.enabled(0, Priority::Critical) && !p.enabled(99, Priority::Critical));
        assert!(p.control_set("a.thres:loud").is_err());
    }

    #[test]
    fn program_lines_follow_simgrids_actor_layout() {
        let mut p = Programs::new();
        let actor = Actor {
            host: "Tremblay",
            rank: 0,
        };
        let here = Location {
            file: "pt2pt.c",
            line: 42,
        };
        assert_eq!(
            p.line(
                actor,
                0.005896,
                here,
                "dsend",
                Priority::Info,
                "rank 0: done"
            ),
            "[Tremblay:0:(1) 0.005896] [dsend/INFO] rank 0: done\n"
        );
        let actor = Actor {
            host: "Jupiter",
            rank: 1,
        };
        assert_eq!(
            p.line(actor, 14.5, here, "dsend", Priority::Warning, "careful"),
            "[Jupiter:1:(2) 14.500000] pt2pt.c:42: [dsend/WARNING] careful\n"
        );
        p.control_set("no_loc").unwrap();
        assert_eq!(
            p.line(actor, 1e3, here, "root", Priority::Critical, "x"),
            "[Jupiter:1:(2) 1000.000000] [root/CRITICAL] x\n"
        );
    }

    #[test]
    fn categories_of_targets() {
        assert_eq!(category_of(CONFIG), "config");
        assert_eq!(category_of("smpi::engine::timers"), "engine");
        assert_eq!(category_of("smpi::engineering"), "smpi::engineering");
        assert_eq!(category_of("other_crate"), "other_crate");
    }

    /// A writer into a shared buffer.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn logged(options: &[&str], emit: impl FnOnce()) -> String {
        let out = Captured::default();
        let sink = out.clone();
        let sub = subscriber(&parse(options).unwrap(), || 1.5, move || sink.clone());
        tracing::subscriber::with_default(sub, emit);
        let bytes = out.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn lines_follow_simgrid_layout_and_thresholds() {
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
            tracing::error!(target: MPI, "mpi error");
        });
        assert_eq!(
            out,
            "[1.500000] [engine/INFO] engine info\n[1.500000] [mpi/ERROR] mpi error\n"
        );
    }
}
