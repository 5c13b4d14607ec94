/* <simgrid/plugins/energy.h> of the smpi-rs MPI emulator: SimGrid's host
 * energy plugin, written to SimGrid 3.32's documented interface. Energy is
 * counted when smpirun runs with --cfg=plugin:host_energy (or from the
 * call of sg_host_energy_plugin_init on): a host draws, at its pstate,
 * the Idle watts of its `wattage_per_state` property when no core
 * computes, else Epsilon + load * (AllCores - Epsilon), load being the
 * share of its cores that compute. Link energy is not provided. */
#ifndef SMPI_SIMGRID_PLUGINS_ENERGY_H
#define SMPI_SIMGRID_PLUGINS_ENERGY_H

#include <simgrid/host.h>

SG_BEGIN_DECL

/* Starts counting energy, from now, if --cfg=plugin:host_energy did not. */
void sg_host_energy_plugin_init(void);
/* Brings every host's count up to now (counts are always up to date here). */
void sg_host_energy_update_all(void);
/* The joules the host consumed since the start of the count. */
double sg_host_get_consumed_energy(const_sg_host_t host);
/* Watts at the current pstate: idle, and now (at the current load). */
double sg_host_get_idle_consumption(const_sg_host_t host);
double sg_host_get_current_consumption(const_sg_host_t host);
/* Watts at pstate `pstate`: idle, with one core's epsilon load (min), with
 * every core busy (max), and the slope max - min. */
double sg_host_get_idle_consumption_at(const_sg_host_t host, int pstate);
double sg_host_get_wattmin_at(const_sg_host_t host, int pstate);
double sg_host_get_wattmax_at(const_sg_host_t host, int pstate);
double sg_host_get_power_range_slope_at(const_sg_host_t host, int pstate);

SG_END_DECL

#endif /* SMPI_SIMGRID_PLUGINS_ENERGY_H */
