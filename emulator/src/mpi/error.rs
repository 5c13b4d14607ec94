//! MPI errors: the error classes and their texts, the errors the layer
//! returns, the program's own error classes and codes, and the error
//! handlers set on communicators and files.

use super::ledger::Kind;
use super::{Ctx, Mpi, COMM_NULL, COMM_WORLD};

pub const ERRORS_ARE_FATAL: i32 = 1;

pub const ERRORS_RETURN: i32 = 2;

pub const FIRST_USER_ERRHANDLER: i32 = 3;

/// MPI_ERR_LASTCODE: user error classes and codes come after it.
pub const LAST_PREDEFINED_CODE: i32 = 0x3fff_ffff;

/// MPI_MAX_ERROR_STRING: the room for an error's text, with its NUL.
pub const MAX_ERROR_STRING: usize = 512;

use super::file::FILE_NULL;

/// MPI error classes (values as in mpi.h).
pub mod class {
    pub const SUCCESS: i32 = 0;
    pub const BUFFER: i32 = 1;
    pub const COUNT: i32 = 2;
    pub const TYPE: i32 = 3;
    pub const TAG: i32 = 4;
    pub const COMM: i32 = 5;
    pub const RANK: i32 = 6;
    pub const ROOT: i32 = 7;
    pub const GROUP: i32 = 8;
    pub const DIMS: i32 = 11;
    pub const TOPOLOGY: i32 = 10;
    pub const OP: i32 = 9;
    pub const ARG: i32 = 12;
    pub const KEYVAL: i32 = 33;
    pub const INFO: i32 = 28;
    pub const INFO_KEY: i32 = 29;
    pub const INFO_VALUE: i32 = 30;
    pub const INFO_NOKEY: i32 = 31;
    pub const UNKNOWN: i32 = 13;
    pub const TRUNCATE: i32 = 14;
    pub const OTHER: i32 = 15;
    pub const INTERN: i32 = 16;
    pub const IN_STATUS: i32 = 17;
    pub const REQUEST: i32 = 19;
    pub const UNSUPPORTED_DATAREP: i32 = 48;
    pub const UNSUPPORTED_OPERATION: i32 = 49;
    pub const LOCKTYPE: i32 = 34;
    pub const NO_MEM: i32 = 36;
    pub const FILE: i32 = 27;
    pub const ACCESS: i32 = 20;
    pub const AMODE: i32 = 21;
    pub const BAD_FILE: i32 = 22;
    pub const FILE_EXISTS: i32 = 25;
    pub const IO: i32 = 32;
    pub const NOT_SAME: i32 = 37;
    pub const NO_SPACE: i32 = 38;
    pub const NO_SUCH_FILE: i32 = 39;
    pub const QUOTA: i32 = 41;
    pub const READ_ONLY: i32 = 42;
    pub const RMA_CONFLICT: i32 = 43;
    pub const RMA_SYNC: i32 = 44;
    pub const SIZE: i32 = 46;
    pub const WIN: i32 = 50;
    pub const BASE: i32 = 51;
    pub const RMA_RANGE: i32 = 52;
    pub const RMA_ATTACH: i32 = 53;
    pub const RMA_SHARED: i32 = 54;
    pub const RMA_FLAVOR: i32 = 55;
}

/// The text of each error class, as MPI_Error_string prints it: its
/// name, as SimGrid's does.
pub fn error_string(code: i32) -> &'static str {
    match code {
        0 => "MPI_SUCCESS",
        1 => "MPI_ERR_BUFFER",
        2 => "MPI_ERR_COUNT",
        3 => "MPI_ERR_TYPE",
        4 => "MPI_ERR_TAG",
        5 => "MPI_ERR_COMM",
        6 => "MPI_ERR_RANK",
        7 => "MPI_ERR_ROOT",
        8 => "MPI_ERR_GROUP",
        9 => "MPI_ERR_OP",
        10 => "MPI_ERR_TOPOLOGY",
        11 => "MPI_ERR_DIMS",
        12 => "MPI_ERR_ARG",
        13 => "MPI_ERR_UNKNOWN",
        14 => "MPI_ERR_TRUNCATE",
        15 => "MPI_ERR_OTHER",
        16 => "MPI_ERR_INTERN",
        17 => "MPI_ERR_IN_STATUS",
        18 => "MPI_ERR_PENDING",
        19 => "MPI_ERR_REQUEST",
        20 => "MPI_ERR_ACCESS",
        21 => "MPI_ERR_AMODE",
        22 => "MPI_ERR_BAD_FILE",
        23 => "MPI_ERR_CONVERSION",
        24 => "MPI_ERR_DUP_DATAREP",
        25 => "MPI_ERR_FILE_EXISTS",
        26 => "MPI_ERR_FILE_IN_USE",
        27 => "MPI_ERR_FILE",
        28 => "MPI_ERR_INFO",
        29 => "MPI_ERR_INFO_KEY",
        30 => "MPI_ERR_INFO_VALUE",
        31 => "MPI_ERR_INFO_NOKEY",
        32 => "MPI_ERR_IO",
        33 => "MPI_ERR_KEYVAL",
        34 => "MPI_ERR_LOCKTYPE",
        35 => "MPI_ERR_NAME",
        36 => "MPI_ERR_NO_MEM",
        37 => "MPI_ERR_NOT_SAME",
        38 => "MPI_ERR_NO_SPACE",
        39 => "MPI_ERR_NO_SUCH_FILE",
        40 => "MPI_ERR_PORT",
        41 => "MPI_ERR_QUOTA",
        42 => "MPI_ERR_READ_ONLY",
        43 => "MPI_ERR_RMA_CONFLICT",
        44 => "MPI_ERR_RMA_SYNC",
        45 => "MPI_ERR_SERVICE",
        46 => "MPI_ERR_SIZE",
        47 => "MPI_ERR_SPAWN",
        48 => "MPI_ERR_UNSUPPORTED_DATAREP",
        49 => "MPI_ERR_UNSUPPORTED_OPERATION",
        50 => "MPI_ERR_WIN",
        51 => "MPI_ERR_BASE",
        52 => "MPI_ERR_RMA_RANGE",
        53 => "MPI_ERR_RMA_ATTACH",
        54 => "MPI_ERR_RMA_SHARED",
        55 => "MPI_ERR_RMA_FLAVOR",
        _ => "unknown error code",
    }
}

/// An MPI error: its class and a message for the person reading it.
#[derive(Debug, Clone)]
pub struct MpiError {
    pub class: i32,
    pub message: String,
}

impl MpiError {
    pub fn new(class: i32, message: impl Into<String>) -> Self {
        Self {
            class,
            message: message.into(),
        }
    }
}

pub type MpiResult<T> = Result<T, MpiError>;

/// What an error handler does with an error raised on its object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    /// MPI_ERRORS_RETURN: the call returns the error code.
    Return,
    /// MPI_ERRORS_ARE_FATAL: the simulation stops.
    Fatal,
    /// The program's function at this address is called.
    Call(usize),
}

impl Mpi {
    /// The function of a user error handler (MPI_Comm_create_errhandler).
    pub fn user_errhandler(&self, eh: i32) -> Option<usize> {
        usize::try_from(eh - FIRST_USER_ERRHANDLER)
            .ok()
            .and_then(|i| self.errhandler_fns.get(i).copied())
    }

    /// Registers a user error handler function; returns its handle.
    pub fn add_errhandler(&mut self, function: usize) -> i32 {
        self.errhandler_fns.push(function);
        FIRST_USER_ERRHANDLER + self.errhandler_fns.len() as i32 - 1
    }

    /// MPI_Add_error_class: a new class, which is also its own code.
    pub fn add_error_class(&mut self) -> i32 {
        let code = self.last_error_code + 1;
        self.last_error_code = code;
        self.attribute_values[7] = code;
        self.user_errors.push((code, code, String::new()));
        code
    }

    /// MPI_Add_error_code: a new code of `class`.
    pub fn add_error_code(&mut self, class_: i32) -> MpiResult<i32> {
        if !(0..=55).contains(&class_)
            && !self
                .user_errors
                .iter()
                .any(|e| e.0 == class_ && e.1 == class_)
        {
            return Err(MpiError::new(
                class::ARG,
                format!("{class_} is not an error class"),
            ));
        }
        let code = self.last_error_code + 1;
        self.last_error_code = code;
        self.attribute_values[7] = code;
        self.user_errors.push((code, class_, String::new()));
        Ok(code)
    }

    /// What error handler `eh` does.
    pub fn handling(&self, eh: i32) -> Handling {
        if eh == ERRORS_RETURN {
            return Handling::Return;
        }
        self.user_errhandler(eh)
            .map_or(Handling::Fatal, Handling::Call)
    }

    /// MPI_Add_error_string: the text of a user class or code, cut to
    /// what fits in MPI_MAX_ERROR_STRING bytes with the NUL.
    pub fn set_error_string(&mut self, code: i32, text: &str) -> MpiResult<()> {
        match self.user_errors.iter_mut().find(|e| e.0 == code) {
            Some(e) => {
                e.2 = text.chars().take(MAX_ERROR_STRING - 1).collect();
                Ok(())
            }
            None => Err(MpiError::new(
                class::ARG,
                format!("{code} is not a user error class or code"),
            )),
        }
    }

    /// The class and text of an error code (predefined or the program's).
    pub fn describe_error(&self, code: i32) -> Option<(i32, String)> {
        if (0..=55).contains(&code) {
            return Some((code, error_string(code).to_string()));
        }
        self.user_errors
            .iter()
            .find(|e| e.0 == code)
            .map(|e| (e.1, e.2.clone()))
    }
}

impl Ctx<'_> {
    /// MPI_Comm_create_errhandler and its siblings: the running rank's
    /// new error handler calling `function`; its handle.
    pub fn new_errhandler(&mut self, function: usize) -> i32 {
        let h = self.mpi.add_errhandler(function);
        self.note_created(Kind::Errhandler, h);
        h
    }

    /// MPI_Errhandler_free: the program lets go of `eh` (the function
    /// stays known: communicators may still use it).
    pub fn free_errhandler(&mut self, eh: i32) {
        self.note_freed(Kind::Errhandler, eh);
    }

    /// A new communicator takes its parent's error handler (MPI: dup,
    /// split, create and the intercommunicator calls inherit it).
    pub fn inherit_errhandler(&mut self, parent: i32, child: i32) {
        if child == COMM_NULL {
            return;
        }
        let eh = self.errhandler(parent);
        if eh != self.mpi.default_errhandler {
            let me = self.core.current();
            let hs = &mut self.mpi.ranks[me].cold_mut().errhandlers;
            match hs.iter_mut().find(|(h, _)| *h == child) {
                Some(e) => e.1 = eh,
                None => hs.push((child, eh)),
            }
        }
    }

    /// The error handler of `comm` for the current rank.
    pub fn errhandler(&self, comm: i32) -> i32 {
        let hs = &self.mpi.ranks[self.core.current()].cold().errhandlers;
        let find = |c: i32| hs.iter().find(|(h, _)| *h == c).map(|(_, e)| *e);
        let comm = if self.comm(comm).is_ok() {
            comm
        } else {
            COMM_WORLD
        };
        find(comm).unwrap_or(self.mpi.default_errhandler)
    }

    /// Checks that `eh` is a predefined or program error handler.
    pub fn check_errhandler(&self, eh: i32) -> MpiResult<()> {
        if eh != ERRORS_ARE_FATAL && eh != ERRORS_RETURN && self.mpi.user_errhandler(eh).is_none() {
            return Err(MpiError::new(
                class::ARG,
                format!("invalid error handler {eh}"),
            ));
        }
        Ok(())
    }

    /// The error handler of `comm`, which must be valid.
    pub fn comm_errhandler(&self, comm: i32) -> MpiResult<i32> {
        self.comm(comm).map(|_| self.errhandler(comm))
    }

    /// The error handler of `file` (MPI_ERRORS_RETURN unless set, as MPI
    /// specifies for files).
    pub fn file_errhandler(&self, file: i32) -> MpiResult<i32> {
        if file != FILE_NULL {
            return Ok(self.file_member(file)?.errhandler);
        }
        let me = self.core.current();
        Ok(self.mpi.ranks[me].file_errhandler.unwrap_or(ERRORS_RETURN))
    }

    /// Sets the error handler of `file` for the current rank.
    pub fn set_file_errhandler(&mut self, file: i32, eh: i32) -> MpiResult<()> {
        self.check_errhandler(eh)?;
        if file != FILE_NULL {
            self.file_member_mut(file)?.errhandler = eh;
            return Ok(());
        }
        let me = self.core.current();
        self.mpi.ranks[me].file_errhandler = Some(eh);
        Ok(())
    }

    /// Sets the error handler of `comm` for the current rank.
    pub fn set_errhandler(&mut self, comm: i32, eh: i32) -> MpiResult<()> {
        self.comm(comm)?;
        self.check_errhandler(eh)?;
        let me = self.core.current();
        let hs = &mut self.mpi.ranks[me].cold_mut().errhandlers;
        match hs.iter_mut().find(|(h, _)| *h == comm) {
            Some(e) => e.1 = eh,
            None => hs.push((comm, eh)),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::mpi::Protocol;

    fn mpi() -> Mpi {
        let protocol =
            Protocol::from_config(&Config::new(&[crate::mpi::protocol::OPTIONS]), false).unwrap();
        Mpi::new(2, protocol)
    }

    #[test]
    fn handlers_return_stop_or_call_the_program() {
        let mut m = mpi();
        let h = m.add_errhandler(0x1234);
        assert_eq!(m.handling(ERRORS_RETURN), Handling::Return);
        assert_eq!(m.handling(ERRORS_ARE_FATAL), Handling::Fatal);
        assert_eq!(m.handling(h), Handling::Call(0x1234));
    }

    #[test]
    fn user_codes_have_a_class_and_a_bounded_text() {
        let mut m = mpi();
        let c = m.add_error_class();
        let code = m.add_error_code(c).unwrap();
        m.set_error_string(code, &"e".repeat(600)).unwrap();
        let (class_, text) = m.describe_error(code).unwrap();
        assert_eq!((class_, text.len()), (c, MAX_ERROR_STRING - 1));
        let e = m.add_error_code(c + 100).unwrap_err();
        assert_eq!(e.class, class::ARG);
        assert_eq!(
            m.set_error_string(class::TAG, "x").unwrap_err().message,
            "4 is not a user error class or code"
        );
    }
}
