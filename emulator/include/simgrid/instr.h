/* <simgrid/instr.h> of the smpi-rs MPI emulator: SimGrid's C tracing
 * interface for programs: categories (TRACE_smpi_set_category names the
 * category of the calling rank's next computations and messages), marks,
 * user variables of hosts and links, and host states.
 *
 * smpi-rs does not write traces yet. These calls record what a trace will
 * need (the declarations, each rank's category) and otherwise do what
 * SimGrid's do when tracing is off: nothing. A null name stops the
 * simulation (SimGrid crashes on one), except in TRACE_smpi_set_category,
 * where NULL leaves the rank's category as it is. SimGrid's calls that
 * return its containers (TRACE_get_*), the VM variables and the variables
 * of a route (TRACE_link_srcdst_*) are not provided. */
#ifndef SMPI_SIMGRID_INSTR_H
#define SMPI_SIMGRID_INSTR_H

#include <xbt/base.h>

SG_BEGIN_DECL

/* Categories. */
void TRACE_smpi_set_category(const char *category);
void TRACE_category(const char *category);
void TRACE_category_with_color(const char *category, const char *color);

/* Marks: a type, its values, and events of a value. */
void TRACE_declare_mark(const char *mark_type);
void TRACE_declare_mark_value(const char *mark_type, const char *mark_value);
void TRACE_declare_mark_value_with_color(const char *mark_type, const char *mark_value,
                                         const char *mark_color);
void TRACE_mark(const char *mark_type, const char *mark_value);

/* User variables of hosts. */
void TRACE_host_variable_declare(const char *variable);
void TRACE_host_variable_declare_with_color(const char *variable, const char *color);
void TRACE_host_variable_set(const char *host, const char *variable, double value);
void TRACE_host_variable_add(const char *host, const char *variable, double value);
void TRACE_host_variable_sub(const char *host, const char *variable, double value);
void TRACE_host_variable_set_with_time(double time, const char *host, const char *variable,
                                       double value);
void TRACE_host_variable_add_with_time(double time, const char *host, const char *variable,
                                       double value);
void TRACE_host_variable_sub_with_time(double time, const char *host, const char *variable,
                                       double value);

/* User variables of links. */
void TRACE_link_variable_declare(const char *variable);
void TRACE_link_variable_declare_with_color(const char *variable, const char *color);
void TRACE_link_variable_set(const char *link, const char *variable, double value);
void TRACE_link_variable_add(const char *link, const char *variable, double value);
void TRACE_link_variable_sub(const char *link, const char *variable, double value);
void TRACE_link_variable_set_with_time(double time, const char *link, const char *variable,
                                       double value);
void TRACE_link_variable_add_with_time(double time, const char *link, const char *variable,
                                       double value);
void TRACE_link_variable_sub_with_time(double time, const char *link, const char *variable,
                                       double value);

/* States of hosts. */
void TRACE_host_state_declare(const char *state);
void TRACE_host_state_declare_value(const char *state, const char *value, const char *color);
void TRACE_host_set_state(const char *host, const char *state, const char *value);
void TRACE_host_push_state(const char *host, const char *state, const char *value);
void TRACE_host_pop_state(const char *host, const char *state);

SG_END_DECL

#endif /* SMPI_SIMGRID_INSTR_H */
