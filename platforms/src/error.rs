//! Errors of platform loading, hostfile reading and routing.

use crate::units::UnitError;

/// A platform file or hostfile that cannot be used. Its Display names the
/// file, the line and the problem, e.g.
/// `my.xml:12: link 'l3': bandwidth '10Gbs': unknown unit 'Gbs' (expected Bps, bps, kBps, ...)`.
#[derive(Debug, thiserror::Error)]
pub enum PlatformError {
    /// The file could not be read.
    #[error("{file}: cannot read the file: {source}")]
    Io {
        /// The file as named by the caller.
        file: String,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The text is malformed or describes something invalid or unsupported.
    #[error("{file}:{line}: {problem}")]
    Invalid {
        /// The file as named by the caller.
        file: String,
        /// The line (1-based) of the offending element, attribute or line.
        line: u32,
        /// What is wrong (boxed to keep `Result`s small).
        problem: Box<Problem>,
    },
    /// A compact platform description (`fat-tree:2;4,4;1,2;1,1:bw=10Gbps`)
    /// that is malformed.
    #[error("platform '{spec}': {problem}")]
    Compact {
        /// The description as given.
        spec: String,
        /// What is wrong.
        problem: Box<Problem>,
    },
    /// A hostfile that names no host at all.
    #[error("{file}: the hostfile lists no host")]
    EmptyHostfile {
        /// The file as named by the caller.
        file: String,
    },
}

impl PlatformError {
    /// The problem, when the error is about the content of a file.
    pub fn problem(&self) -> Option<&Problem> {
        match self {
            PlatformError::Invalid { problem, .. } | PlatformError::Compact { problem, .. } => {
                Some(&**problem)
            }
            _ => None,
        }
    }

    /// The line the error is about, when there is one.
    pub fn line(&self) -> Option<u32> {
        match self {
            PlatformError::Invalid { line, .. } => Some(*line),
            _ => None,
        }
    }
}

/// What is wrong with a platform file or hostfile (see [`PlatformError`]).
///
/// `element` fields describe the element in words, such as `link 'l3'`,
/// `route from 'a' to 'b'` or `<prop>` when it has no id.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Problem {
    /// Not well-formed XML.
    #[error("malformed XML: {0}")]
    Xml(String),
    /// The root element is not `<platform>`.
    #[error("the root element is <{0}>, expected <platform>")]
    NotAPlatform(String),
    /// The `version` of `<platform>` is not one SimGrid 3.32 reads.
    #[error(
        "<platform>: version '{0}' is not supported: expected version=\"4.1\" \
         (SimGrid's simgrid_update_xml upgrades older files)"
    )]
    Version(String),
    /// An element this loader does not know at that place.
    #[error("unknown element <{element}> in <{parent}>")]
    UnknownElement {
        /// The unknown element's name.
        element: String,
        /// The element it appears in.
        parent: String,
    },
    /// Text where only elements are expected.
    #[error("unexpected text '{text}' in <{parent}>")]
    UnexpectedText {
        /// The text (trimmed, possibly shortened).
        text: String,
        /// The element it appears in.
        parent: String,
    },
    /// A speed or bandwidth of zero: nothing could ever finish on it.
    #[error(
        "{element}: {attribute} '{text}' is zero; a host or link must have a positive \
         {attribute} (nothing could ever cross or run on it)"
    )]
    Zero {
        /// The element.
        element: String,
        /// The attribute.
        attribute: &'static str,
        /// The value as written.
        text: String,
    },
    /// A `pstate` attribute that names none of the host's speeds.
    #[error(
        "{element}: pstate '{given}' is not one of its power states: its speed lists {count}, \
         numbered from 0"
    )]
    BadPstate {
        /// The element.
        element: String,
        /// The value as written.
        given: String,
        /// How many speeds the host lists.
        count: usize,
    },
    /// Something SimGrid accepts but this emulator does not handle yet.
    #[error("{0} is not supported yet")]
    NotSupported(String),
    /// An attribute that this element does not have.
    #[error("{element}: unknown attribute '{attribute}' (expected one of: {expected})")]
    UnknownAttribute {
        /// The element.
        element: String,
        /// The unknown attribute's name.
        attribute: String,
        /// The attributes the element accepts.
        expected: String,
    },
    /// A required attribute is absent.
    #[error("{element}: missing required attribute '{attribute}'")]
    MissingAttribute {
        /// The element.
        element: String,
        /// The missing attribute.
        attribute: &'static str,
    },
    /// A speed, bandwidth or time that cannot be read.
    #[error("{element}: {attribute} '{}': {}", .error.text, .error.problem)]
    BadQuantity {
        /// The element.
        element: String,
        /// The attribute holding the value.
        attribute: &'static str,
        /// Why the value cannot be read.
        error: UnitError,
    },
    /// Any other attribute value that is not one of the accepted ones.
    #[error("{element}: {attribute} '{value}': expected {expected}")]
    BadValue {
        /// The element.
        element: String,
        /// The attribute.
        attribute: &'static str,
        /// The value as given.
        value: String,
        /// What is accepted.
        expected: String,
    },
    /// Two hosts or two links with the same name.
    #[error("duplicate {kind} name '{name}' ({first})")]
    Duplicate {
        /// `host` or `link`.
        kind: &'static str,
        /// The name used twice.
        name: String,
        /// Where the first one comes from, e.g. `first defined at line 3`.
        first: String,
    },
    /// A route names a host that does not exist (yet: hosts must be
    /// declared before the routes that use them, as in SimGrid).
    #[error("{element}: unknown host '{name}'")]
    UnknownHost {
        /// The route.
        element: String,
        /// The name that matches no host.
        name: String,
    },
    /// A route names a link that does not exist (yet).
    #[error("{element}: unknown link '{name}'")]
    UnknownLink {
        /// The route.
        element: String,
        /// The name that matches no link.
        name: String,
    },
    /// A SPLITDUPLEX link used in a route without saying which half.
    #[error(
        "{element}: link '{link}' is SPLITDUPLEX: its <link_ctn> needs direction=\"UP\" or \
         direction=\"DOWN\""
    )]
    MissingDirection {
        /// The route.
        element: String,
        /// The link.
        link: String,
    },
    /// A route with no link, which SimGrid forbids.
    #[error("{element}: a route needs at least one <link_ctn>")]
    EmptyRoute {
        /// The route.
        element: String,
    },
    /// A route between two hosts given twice (the reverse of a symmetrical
    /// route counts).
    #[error(
        "{element}: the route from '{src}' to '{dst}' is already defined (routes are \
         symmetrical unless symmetrical=\"NO\": each one also defines its reverse)"
    )]
    DuplicateRoute {
        /// The second route.
        element: String,
        /// Source of the clashing route.
        src: String,
        /// Destination of the clashing route.
        dst: String,
    },
    /// A structural problem: misplaced or missing elements.
    #[error("{0}")]
    Structure(String),
    /// A hostfile line that cannot be read.
    #[error("'{text}': {reason}")]
    HostfileLine {
        /// The line as written (comment removed, trimmed).
        text: String,
        /// Why it cannot be read.
        reason: &'static str,
    },
}

/// Two hosts between which the platform has no route. Raised at run time by
/// [`Platform::route`](crate::Platform::route) and on request by
/// [`Platform::check_routes`](crate::Platform::check_routes).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no route from host '{src}' to host '{dst}': {reason}")]
pub struct RouteError {
    /// The source host.
    pub src: String,
    /// The destination host.
    pub dst: String,
    /// Why there is none, and what to add.
    pub reason: String,
}
