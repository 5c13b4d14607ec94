//! Logs through `tracing`, set up with SimGrid's `--log=` syntax.
//!
//! Each category is a `tracing` target: log with
//! `tracing::info!(target: log::CONFIG, ...)`. Without `--log` no
//! subscriber is installed at all, so a log call costs one check of a
//! disabled call site and nothing is printed: a simulation's output stays
//! what SimGrid prints. With `--log`, the named categories print at their
//! threshold and above, to stderr, in SimGrid's layout
//! `[<simulated time>] [<category>/<LEVEL>] message`; categories no setting
//! names (nor `root`) stay silent.

use std::fmt;

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

/// A category `--log` can name.
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
            Category::Root => "root",
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

/// SimGrid's priority names and the `tracing` level each maps to: tracing
/// has no verbose (between debug and info) nor critical (above error).
const LEVELS: &[(&str, Level)] = &[
    ("trace", Level::TRACE),
    ("debug", Level::DEBUG),
    ("verbose", Level::DEBUG),
    ("info", Level::INFO),
    ("warning", Level::WARN),
    ("error", Level::ERROR),
    ("critical", Level::ERROR),
];

fn level_from_name(name: &str) -> Option<Level> {
    LEVELS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|&(_, level)| level)
}

/// A `--log` setting smpirun cannot apply.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("unknown log category '{0}'; valid categories are: {valid}", valid = category_list())]
    UnknownCategory(String),
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

fn category_list() -> String {
    Category::ALL.map(Category::name).join(", ")
}

fn level_list() -> String {
    LEVELS
        .iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the `--log` options ask for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Thresholds in the order given: a later one for the same category
    /// replaces an earlier one.
    thresholds: Vec<(Category, Level)>,
}

impl Settings {
    /// Parses the values of every `--log` option, in order.
    pub fn parse<'a>(options: impl IntoIterator<Item = &'a str>) -> Result<Settings, LogError> {
        let mut settings = Settings::default();
        for option in options {
            settings.add(option)?;
        }
        Ok(settings)
    }

    /// Adds the settings of one `--log` value: comma- or space-separated
    /// `<category>.thres:<level>` and `no_loc`.
    pub fn add(&mut self, option: &str) -> Result<(), LogError> {
        for setting in option
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
        {
            // SimGrid's layouts print file and line unless told `no_loc`;
            // ours never print them, so the setting is accepted as is.
            if setting == "no_loc" {
                continue;
            }
            let (key, level) = setting
                .split_once(':')
                .ok_or_else(|| LogError::Syntax(setting.to_string()))?;
            let (category, what) = key
                .rsplit_once('.')
                .ok_or_else(|| LogError::Syntax(setting.to_string()))?;
            if what != "thres" && what != "threshold" {
                return Err(LogError::UnsupportedKey {
                    setting: setting.to_string(),
                    key: what.to_string(),
                });
            }
            let category = Category::from_name(category)
                .ok_or_else(|| LogError::UnknownCategory(category.to_string()))?;
            let level =
                level_from_name(level).ok_or_else(|| LogError::UnknownLevel(level.to_string()))?;
            self.thresholds.retain(|(c, _)| *c != category);
            self.thresholds.push((category, level));
        }
        Ok(())
    }

    /// Whether nothing is to be logged.
    pub fn is_off(&self) -> bool {
        self.thresholds.is_empty()
    }

    /// The threshold of each target; root's for every other target.
    fn filter(&self) -> Targets {
        let mut filter = Targets::new().with_default(LevelFilter::OFF);
        for &(category, level) in &self.thresholds {
            filter = match category.target() {
                Some(target) => filter.with_target(target, level),
                None => filter.with_default(level),
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

/// Installs the logger `settings` ask for, writing to stderr; installs
/// nothing when they ask for nothing.
pub fn install(settings: &Settings, clock: Clock) -> Result<(), LogError> {
    if settings.is_off() {
        return Ok(());
    }
    tracing::subscriber::set_global_default(subscriber(settings, clock, std::io::stderr))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    fn parse(options: &[&str]) -> Result<Settings, LogError> {
        Settings::parse(options.iter().copied())
    }

    fn thresholds(options: &[&str]) -> Vec<(Category, Level)> {
        parse(options).unwrap().thresholds
    }

    #[test]
    fn thresholds_of_root_and_categories() {
        assert_eq!(
            thresholds(&["root.thres:critical"]),
            [(Category::Root, Level::ERROR)]
        );
        assert_eq!(
            thresholds(&["config.thres:debug"]),
            [(Category::Config, Level::DEBUG)]
        );
        assert_eq!(
            thresholds(&["network.threshold:warning"]),
            [(Category::Network, Level::WARN)]
        );
        assert_eq!(
            thresholds(&["mpi.thres:verbose"]),
            [(Category::Mpi, Level::DEBUG)]
        );
        assert_eq!(
            thresholds(&["engine.thres:TRACE"]),
            [(Category::Engine, Level::TRACE)]
        );
    }

    #[test]
    fn every_simgrid_level_is_known() {
        for (name, level) in [
            ("trace", Level::TRACE),
            ("debug", Level::DEBUG),
            ("verbose", Level::DEBUG),
            ("info", Level::INFO),
            ("warning", Level::WARN),
            ("error", Level::ERROR),
            ("critical", Level::ERROR),
        ] {
            assert_eq!(
                thresholds(&[&format!("privatize.thres:{name}")]),
                [(Category::Privatize, level)]
            );
        }
    }

    #[test]
    fn several_settings_in_one_option_and_repeated_options() {
        assert_eq!(
            thresholds(&["config.thres:debug,mpi.thres:info"]),
            [
                (Category::Config, Level::DEBUG),
                (Category::Mpi, Level::INFO)
            ]
        );
        assert_eq!(
            thresholds(&["config.thres:debug  engine.thres:error no_loc"]),
            [
                (Category::Config, Level::DEBUG),
                (Category::Engine, Level::ERROR)
            ]
        );
        assert_eq!(
            thresholds(&[
                "config.thres:debug",
                "root.thres:info",
                "config.thres:error"
            ]),
            [
                (Category::Root, Level::INFO),
                (Category::Config, Level::ERROR)
            ]
        );
    }

    #[test]
    fn no_loc_alone_logs_nothing() {
        assert!(parse(&["no_loc"]).unwrap().is_off());
        assert!(parse(&[]).unwrap().is_off());
        assert!(!parse(&["no_loc,root.thres:info"]).unwrap().is_off());
    }

    #[test]
    fn errors_name_the_culprit_and_the_valid_choices() {
        let e = parse(&["smpi_config.thres:debug"]).unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown log category 'smpi_config'; valid categories are: root, engine, network, \
             mpi, privatize, config"
        );
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
        // One bad setting spoils the option, even after good ones.
        assert!(parse(&["config.thres:debug,bogus.thres:info"]).is_err());
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
