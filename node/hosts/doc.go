// Package hosts runs a scenario across several machines over OpenSSH
// (`manetlab run --hosts`): it reads the host list, checks every host
// (reachable, the same manetlab or a copy of this one, its clock offset),
// copies the resolved scenario, the mobility file and the run's key to a
// run directory on each, starts one long-lived launcher per host
// (`manetlab launch`, which runs that host's nodes and applies their
// faults locally) against a common start time, receives the traces the
// nodes stream to a collector at home, and stops everything on every host
// at the end, on a signal, or when a host drops out.
//
// The system's ssh client is the only remote access: one multiplexed
// connection per host (ControlMaster), BatchMode, the user's ssh
// configuration (keys, agent, jump hosts) or --ssh-config.
package hosts
