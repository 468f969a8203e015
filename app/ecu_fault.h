/* app/ecu_fault.h - the virtual ECU's fault injection (app/ecu.h describes the kinds): the
 * fault windows of a struct app_ecu resolved against its mapping at init, opened and closed
 * on ECU time, and the frames of a slot sent with the faults applied; every injected event is
 * counted per fault entry (injected, frames). Internal to the ECU (app/ecu.c).
 * app_ecu_faults_resolve/pick_ids/remote: init (print, getaddrinfo). app_ecu_faults_update,
 * app_ecu_send_slot: the ECU thread (no allocation, no stdio, non-blocking sends). */
#ifndef VD_APP_ECU_FAULT_H
#define VD_APP_ECU_FAULT_H

#include <stdint.h>
#include <stdio.h>

#include "app/ecu.h"

/* init-time */
/* each fault's message among the ones the ECU sends, state reset; -1 with located errors
 * (the run file's position, else the --fault option) for a message it does not send or a
 * bad_datagram without a udp first bus */
int app_ecu_faults_resolve(struct app_ecu *e, FILE *errf);
/* identifiers no message of the mapping uses on bus 0 (unknown_id faults) */
void app_ecu_faults_pick_ids(struct app_ecu *e);
/* the address bad datagrams go to on bus b (udp: the remote end); 0 or -1 */
int app_ecu_faults_remote(struct app_ecu *e, int b);

/* the ECU thread */
/* open and close the windows at ECU time t [s]; set the map's fault bits */
void app_ecu_faults_update(struct app_ecu *e, double t);
/* the frames of slot sl on bus b from the ECU's commands, with the faults applied, sent */
void app_ecu_send_slot(struct app_ecu *e, int b, uint64_t sl);

#endif /* VD_APP_ECU_FAULT_H */
