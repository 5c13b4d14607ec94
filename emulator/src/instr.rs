//! What programs declare for tracing through `simgrid/instr.h`, kept for
//! the trace writers, which do not exist yet: categories and their colors,
//! each rank's current category, mark types and their values, user
//! variables of hosts and links, host states and their values.
//!
//! A name is kept once, in the order first declared, with the first color
//! given (none: SimGrid draws one when it traces). Events (marks, variable
//! changes, states) are not kept: with tracing off, which it always is for
//! now, SimGrid's calls do nothing with them either.

/// A declared name and its color, if one was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub name: String,
    pub color: Option<String>,
}

/// A declared name with its declared values (mark types, host states).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WithValues {
    pub name: String,
    pub values: Vec<Declared>,
}

/// The declarations of a simulation.
#[derive(Debug, Default)]
pub struct Instr {
    pub categories: Vec<Declared>,
    /// Each rank's category (an index into `categories`), grown to the
    /// highest rank that set one.
    rank_category: Vec<Option<usize>>,
    pub mark_types: Vec<WithValues>,
    pub host_variables: Vec<Declared>,
    pub link_variables: Vec<Declared>,
    pub host_states: Vec<WithValues>,
}

/// The index of `name` in `list`, declared there if it is not yet.
fn declare(list: &mut Vec<Declared>, name: &str, color: Option<&str>) -> usize {
    if let Some(i) = list.iter().position(|d| d.name == name) {
        return i;
    }
    list.push(Declared {
        name: name.to_string(),
        color: color.map(str::to_string),
    });
    list.len() - 1
}

/// `name`'s entry in `list`, declared there if it is not yet.
fn declare_with_values<'a>(list: &'a mut Vec<WithValues>, name: &str) -> &'a mut WithValues {
    let i = match list.iter().position(|d| d.name == name) {
        Some(i) => i,
        None => {
            list.push(WithValues {
                name: name.to_string(),
                values: Vec::new(),
            });
            list.len() - 1
        }
    };
    &mut list[i]
}

impl Instr {
    /// `TRACE_category(_with_color)`.
    pub fn declare_category(&mut self, name: &str, color: Option<&str>) -> usize {
        declare(&mut self.categories, name, color)
    }

    /// `TRACE_smpi_set_category`: the category of `rank`'s next
    /// computations and messages, declared if it is not yet.
    pub fn set_rank_category(&mut self, rank: usize, name: &str) {
        let i = self.declare_category(name, None);
        if self.rank_category.len() <= rank {
            self.rank_category.resize(rank + 1, None);
        }
        self.rank_category[rank] = Some(i);
    }

    /// The category `rank` set last, if any.
    pub fn rank_category(&self, rank: usize) -> Option<&str> {
        let i = self.rank_category.get(rank).copied().flatten()?;
        Some(self.categories[i].name.as_str())
    }

    /// `TRACE_declare_mark`.
    pub fn declare_mark_type(&mut self, name: &str) {
        declare_with_values(&mut self.mark_types, name);
    }

    /// `TRACE_declare_mark_value(_with_color)` (declares the type too).
    pub fn declare_mark_value(&mut self, mark_type: &str, value: &str, color: Option<&str>) {
        declare(
            &mut declare_with_values(&mut self.mark_types, mark_type).values,
            value,
            color,
        );
    }

    /// `TRACE_host_variable_declare(_with_color)`.
    pub fn declare_host_variable(&mut self, name: &str, color: Option<&str>) {
        declare(&mut self.host_variables, name, color);
    }

    /// `TRACE_link_variable_declare(_with_color)`.
    pub fn declare_link_variable(&mut self, name: &str, color: Option<&str>) {
        declare(&mut self.link_variables, name, color);
    }

    /// `TRACE_host_state_declare`.
    pub fn declare_host_state(&mut self, name: &str) {
        declare_with_values(&mut self.host_states, name);
    }

    /// `TRACE_host_state_declare_value` (declares the state too).
    pub fn declare_host_state_value(&mut self, state: &str, value: &str, color: Option<&str>) {
        declare(
            &mut declare_with_values(&mut self.host_states, state).values,
            value,
            color,
        );
    }
}

impl Instr {
    /// The declarations in one line (`categories: a, b; host states:
    /// busy`), or none when nothing was declared.
    pub fn summary(&self) -> Option<String> {
        fn list<'a>(names: impl Iterator<Item = &'a str>) -> String {
            names.collect::<Vec<_>>().join(", ")
        }
        let parts: Vec<String> = [
            (
                "categories",
                list(self.categories.iter().map(|d| d.name.as_str())),
            ),
            (
                "mark types",
                list(self.mark_types.iter().map(|d| d.name.as_str())),
            ),
            (
                "host variables",
                list(self.host_variables.iter().map(|d| d.name.as_str())),
            ),
            (
                "link variables",
                list(self.link_variables.iter().map(|d| d.name.as_str())),
            ),
            (
                "host states",
                list(self.host_states.iter().map(|d| d.name.as_str())),
            ),
        ]
        .into_iter()
        .filter(|(_, names)| !names.is_empty())
        .map(|(what, names)| format!("{what}: {names}"))
        .collect();
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[Declared]) -> Vec<&str> {
        list.iter().map(|d| d.name.as_str()).collect()
    }

    #[test]
    fn categories_are_kept_once_in_order_with_their_first_color() {
        let mut instr = Instr::default();
        assert_eq!(instr.declare_category("compute", Some("1 0 0")), 0);
        assert_eq!(instr.declare_category("exchange", None), 1);
        assert_eq!(instr.declare_category("compute", Some("0 1 0")), 0);
        assert_eq!(names(&instr.categories), ["compute", "exchange"]);
        assert_eq!(instr.categories[0].color.as_deref(), Some("1 0 0"));
        assert_eq!(instr.categories[1].color, None);
    }

    #[test]
    fn each_rank_has_the_category_it_set_last() {
        let mut instr = Instr::default();
        assert_eq!(instr.rank_category(3), None);
        instr.set_rank_category(3, "begin");
        instr.set_rank_category(0, "begin");
        instr.set_rank_category(3, "end");
        assert_eq!(instr.rank_category(3), Some("end"));
        assert_eq!(instr.rank_category(0), Some("begin"));
        assert_eq!(instr.rank_category(1), None);
        assert_eq!(instr.rank_category(99), None);
        assert_eq!(names(&instr.categories), ["begin", "end"]);
    }

    #[test]
    fn marks_variables_and_states_keep_their_declared_values() {
        let mut instr = Instr::default();
        instr.declare_mark_type("phase");
        instr.declare_mark_value("phase", "start", Some("1 1 1"));
        instr.declare_mark_value("phase", "start", None);
        instr.declare_mark_value("other", "x", None);
        assert_eq!(instr.mark_types.len(), 2);
        assert_eq!(names(&instr.mark_types[0].values), ["start"]);
        assert_eq!(instr.mark_types[1].name, "other");
        instr.declare_host_variable("load", None);
        instr.declare_host_variable("load", Some("1 0 0"));
        instr.declare_link_variable("bytes", Some("0 0 1"));
        assert_eq!(names(&instr.host_variables), ["load"]);
        assert_eq!(instr.link_variables[0].color.as_deref(), Some("0 0 1"));
        instr.declare_host_state("activity");
        instr.declare_host_state_value("activity", "busy", Some("1 0 0"));
        instr.declare_host_state_value("activity", "idle", None);
        assert_eq!(names(&instr.host_states[0].values), ["busy", "idle"]);
        assert_eq!(
            instr.summary().as_deref(),
            Some(
                "mark types: phase, other; host variables: load; link variables: bytes; \
                 host states: activity"
            )
        );
        assert_eq!(Instr::default().summary(), None);
    }
}
